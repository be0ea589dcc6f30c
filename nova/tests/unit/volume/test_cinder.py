"""CinderClient against the embedded volume endpoint, over keystoneauth and over http.client."""

import os
import socket

import pytest
from oslo_config import cfg

from nova import context as nova_context
from nova import exception, service_client, wsgi_server
from nova.conf import cinder as cinder_conf
from nova.conf import glance as glance_conf
from nova.image import glance
from nova.tests.unit.embedded import image_server
from nova.tests.unit.embedded.volume import volume_server as vs
from nova.volume import cinder

GiB = vs.GiB


class RequestLog:
    """WSGI middleware remembering (method, path, headers) of each request."""

    def __init__(self, app):
        self.app = app
        self.requests = []

    def __call__(self, environ, start_response):
        self.requests.append((environ['REQUEST_METHOD'], environ['PATH_INFO'],
                              {k: v for k, v in environ.items()
                               if k.startswith('HTTP_')}))
        return self.app(environ, start_response)


@pytest.fixture
def fetcher(tmp_path):
    images = vs.ImageFetcher()
    raw = vs.make_raw_image(str(tmp_path / 'tiny.raw'))
    images.add(vs.IMAGE_ID, raw, vs.glance_image(vs.IMAGE_ID, raw))
    return images


@pytest.fixture
def server(tmp_path, fetcher):
    srv = vs.VolumeServer(str(tmp_path / 'volumes'), image_fetcher=fetcher)
    srv.log = RequestLog(srv.wsgi_app)
    srv.server.set_app(srv.log)
    yield srv
    srv.stop()


def make_conf(**overrides):
    """[cinder] with its keystoneauth options: the keystoneauth path."""
    conf = cfg.ConfigOpts()
    cinder_conf.register_opts(conf)
    cinder_conf.register_client_opts(conf)
    conf([])
    conf.set_override('auth_type', 'none', group='cinder')
    for name, value in overrides.items():
        conf.set_override(name, value, group='cinder')
    return conf


def conf_for(transport, url, **overrides):
    """keystoneauth to ``url``, or ``url`` as the all-in-one's embedded
    endpoint (http.client, no keystoneauth options registered)."""
    if transport == 'keystoneauth':
        return make_conf(endpoint_override=url, **overrides)
    conf = cfg.ConfigOpts()
    cinder_conf.register_opts(conf)
    conf([])
    for name, value in overrides.items():
        conf.set_override(name, value, group='cinder')
    service_client.use_embedded(conf, 'cinder', url)
    return conf


# Every test taking ``client`` runs over both transports.
@pytest.fixture(params=['keystoneauth', 'direct'])
def transport(request):
    return request.param


@pytest.fixture
def client(server, transport):
    return cinder.CinderClient(conf_for(transport, server.url, http_retries=0))


@pytest.fixture
def ctx():
    return nova_context.RequestContext(user_id='u1', project_id='p1',
                                       auth_token='u1:p1',
                                       global_request_id='req-global-1')


CONNECTOR = {'host': 'compute-1', 'initiator': 'iqn.test',
             'platform': 'x86_64', 'os_type': 'linux'}


# -- endpoint URLs ------------------------------------------------------------

@pytest.mark.parametrize('endpoint,expected', [
    ('http://h:8776', 'http://h:8776/v3/p1'),
    ('http://h:8776/', 'http://h:8776/v3/p1'),
    ('http://h:8776/v3', 'http://h:8776/v3/p1'),
    ('http://h:8776/v3/', 'http://h:8776/v3/p1'),
    ('http://h:8776/v3/p1', 'http://h:8776/v3/p1'),
    ('http://h:8776/v3/%(project_id)s', 'http://h:8776/v3/p1'),
    ('https://h/volume/v3/$(tenant_id)s', 'https://h/volume/v3/p1'),
    ('https://h/volume', 'https://h/volume/v3/p1'),
    ('http://h:8776/v3.0/p1', 'http://h:8776/v3/p1'),
])
def test_volume_api_url(endpoint, expected):
    assert cinder.volume_api_url(endpoint, 'p1') == expected


def test_volume_api_url_without_project_and_wrong_version():
    assert cinder.volume_api_url('http://h:8776', None) == 'http://h:8776/v3'
    with pytest.raises(exception.VolumeServiceError):
        cinder.volume_api_url('http://h:8776/v2/p1', 'p1')


# -- volumes ------------------------------------------------------------------

def test_create_wait_get_delete(client, ctx, server):
    volume = client.create(ctx, 2, 'blank', description='d')
    assert volume['status'] == 'creating'
    volume = client.wait_for_status(ctx, volume['id'], 'available',
                                    timeout=30)
    assert volume['size'] == 2
    assert volume['description'] == 'd'
    info = vs.qemu_info(server.volume_path(volume['id']))
    assert (info['format'], info['virtual-size']) == ('qcow2', 2 * GiB)
    method, path, headers = server.log.requests[0]
    assert (method, path) == ('POST', '/v3/p1/volumes')
    # The user's token and the request id travel with every call.
    assert headers['HTTP_X_AUTH_TOKEN'] == 'u1:p1'
    assert headers['HTTP_X_OPENSTACK_REQUEST_ID'] == 'req-global-1'
    assert headers['HTTP_OPENSTACK_API_VERSION'] == 'volume 3.0'
    client.delete(ctx, volume['id'])
    assert not os.path.exists(server.volume_path(volume['id']))
    with pytest.raises(exception.VolumeNotFound) as err:
        client.get(ctx, volume['id'])
    assert volume['id'] in str(err.value)
    with pytest.raises(exception.VolumeNotFound):
        client.delete(ctx, volume['id'])


def test_create_from_image_and_snapshot(client, ctx, server):
    volume = client.create(ctx, 1, 'boot', image_id=vs.IMAGE_ID)
    volume = client.wait_for_status(ctx, volume['id'], ['available'])
    assert volume['bootable'] == 'true'
    assert volume['volume_image_metadata']['image_id'] == vs.IMAGE_ID

    snapshot = client.create_snapshot(ctx, volume['id'], 'snap')
    snapshot = client.wait_for_snapshot_status(ctx, snapshot['id'],
                                               'available')
    assert client.get_snapshot(ctx, snapshot['id'])['volume_id'] == (
        volume['id'])
    copy = client.create(ctx, 2, 'copy', snapshot_id=snapshot['id'])
    copy = client.wait_for_status(ctx, copy['id'], 'available')
    assert copy['snapshot_id'] == snapshot['id']
    assert vs.qemu_info(server.volume_path(copy['id']))['virtual-size'] == (
        2 * GiB)

    with pytest.raises(exception.InvalidVolume):
        client.delete(ctx, volume['id'])        # it has a snapshot
    client.delete_snapshot(ctx, snapshot['id'])
    with pytest.raises(exception.VolumeSnapshotNotFound):
        client.get_snapshot(ctx, snapshot['id'])
    with pytest.raises(exception.VolumeNotFound):
        client.delete_snapshot(ctx, snapshot['id'])
    client.delete(ctx, volume['id'])


def test_invalid_requests_carry_cinder_message(client, ctx, server):
    before = server.files()
    with pytest.raises(exception.InvalidVolume) as err:
        client.create(ctx, 0, 'zero')
    assert err.value.code == 400
    assert "size '0'" in err.value.format_message()
    with pytest.raises(exception.InvalidVolume) as err:
        client.create(ctx, 1, 'img', image_id='no-such-image')
    assert 'Invalid image identifier' in str(err.value)
    # A missing snapshot is bad input to create, not a missing volume.
    with pytest.raises(exception.InvalidVolume) as err:
        client.create(ctx, 1, 'snap', snapshot_id=vs.INSTANCE_1)
    assert 'Snapshot %s could not be found' % vs.INSTANCE_1 in str(err.value)
    with pytest.raises(exception.InvalidVolume):
        client.create(ctx, 1, 'typed', volume_type='gold')
    assert server.files() == before
    with pytest.raises(exception.VolumeNotFound):
        client.create_snapshot(ctx, vs.INSTANCE_1, 'snap')


def test_wait_for_status_error_and_timeout(tmp_path, ctx):
    def broken(image_id, dest_path):
        raise ConnectionError('image service down')

    srv = vs.VolumeServer(str(tmp_path / 'v'), image_fetcher=broken)
    try:
        client = cinder.CinderClient(make_conf(endpoint_override=srv.url))
        volume = client.create(ctx, 1, 'doomed', image_id=vs.IMAGE_ID)
        with pytest.raises(exception.VolumeNotReady) as err:
            client.wait_for_status(ctx, volume['id'], 'available')
        assert 'error' in str(err.value)
        good = client.create(ctx, 1, 'fine')
        with pytest.raises(exception.VolumeNotReady) as err:
            client.wait_for_status(ctx, good['id'], 'in-use', timeout=0.2)
        assert 'still available' in str(err.value)
    finally:
        srv.stop()


# -- attachments --------------------------------------------------------------

def test_attachment_life_cycle(client, ctx, server):
    volume = client.create(ctx, 1, 'data')
    vid = client.wait_for_status(ctx, volume['id'], 'available')['id']

    attachment = client.attachment_create(ctx, vid, vs.INSTANCE_1)
    assert attachment['status'] == 'reserved'
    assert attachment['connection_info'] is None
    assert client.get(ctx, vid)['status'] == 'reserved'

    updated = client.attachment_update(ctx, attachment['id'], CONNECTOR,
                                       mountpoint='/dev/vdb')
    info = updated['connection_info']
    assert info == {
        'driver_volume_type': 'file',
        'data': {'device_path': server.volume_path(vid), 'format': 'qcow2',
                 'name': 'volume-' + vid, 'volume_id': vid,
                 'attachment_id': attachment['id'], 'access_mode': 'rw',
                 'encrypted': False, 'qos_specs': None}}
    assert client.get(ctx, vid)['status'] == 'attaching'
    assert CONNECTOR.get('mountpoint') is None      # caller's dict untouched

    client.attachment_complete(ctx, attachment['id'])
    volume = client.get(ctx, vid)
    assert volume['status'] == 'in-use'
    assert volume['attachments'][0]['device'] == '/dev/vdb'
    assert volume['attachments'][0]['server_id'] == vs.INSTANCE_1
    assert client.attachment_get(ctx, attachment['id'])['status'] == (
        'attached')
    assert [a['id'] for a in client.attachment_list(ctx, vs.INSTANCE_1)] == [attachment['id']]
    assert client.attachment_list(ctx, vs.INSTANCE_2) == []
    assert [h['HTTP_OPENSTACK_API_VERSION'] for m, p, h in server.log.requests
            if '/attachments' in p] == ['volume 3.44'] * 6

    with pytest.raises(exception.InvalidVolume) as err:
        client.delete(ctx, vid)
    assert 'in-use' in str(err.value)
    with pytest.raises(exception.InvalidVolume):
        client.attachment_create(ctx, vid, vs.INSTANCE_2)

    client.attachment_delete(ctx, attachment['id'])
    assert client.get(ctx, vid)['status'] == 'available'
    with pytest.raises(exception.VolumeAttachmentNotFound):
        client.attachment_get(ctx, attachment['id'])
    with pytest.raises(exception.VolumeNotFound):   # the common base
        client.attachment_delete(ctx, attachment['id'])
    client.delete(ctx, vid)


def test_attachment_create_with_connector_and_mode(client, ctx):
    volume = client.create(ctx, 1, 'ro')
    client.wait_for_status(ctx, volume['id'], 'available')
    attachment = client.attachment_create(ctx, volume['id'], vs.INSTANCE_1,
                                          connector=CONNECTOR,
                                          mountpoint='/dev/vdc', mode='ro')
    assert attachment['status'] == 'attaching'
    assert attachment['connection_info']['data']['access_mode'] == 'ro'
    client.attachment_complete(ctx, attachment['id'])
    assert client.get(ctx, volume['id'])['attachments'][0]['device'] == (
        '/dev/vdc')
    with pytest.raises(exception.VolumeNotFound):
        client.attachment_create(ctx, vs.INSTANCE_2, vs.INSTANCE_1)


# -- service failures ---------------------------------------------------------

def _closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def test_unreachable_service_is_503(ctx, transport):
    client = cinder.CinderClient(conf_for(
        transport, 'http://127.0.0.1:%d' % _closed_port(), http_retries=0))
    with pytest.raises(exception.VolumeServiceError) as err:
        client.get(ctx, vs.INSTANCE_1)
    assert err.value.code == 503


def test_microversion_unsupported_is_service_error(ctx, transport):
    def old_cinder(environ, start_response):
        start_response('406 Not Acceptable',
                       [('Content-Type', 'application/json')])
        return [b'{"computeFault": {"message": "Version 3.44 is not '
                b'supported by the API.", "code": 406}}']

    srv, thread, url = wsgi_server.serve_in_thread(old_cinder)
    try:
        client = cinder.CinderClient(conf_for(transport, url))
        with pytest.raises(exception.VolumeServiceError) as err:
            client.attachment_create(ctx, vs.INSTANCE_1, vs.INSTANCE_2)
        assert 'microversion 3.44' in str(err.value)
    finally:
        srv.shutdown()
        srv.server_close()


def test_catalog_endpoint_with_project(server, ctx):
    """Without endpoint_override the URL comes from the user's catalog."""
    catalog = [{'type': 'volumev3', 'name': 'cinderv3', 'endpoints': [
        {'interface': 'public', 'region': 'RegionOne', 'region_id':
         'RegionOne', 'url': server.url + '/v3/p1'}]}]
    ctx.service_catalog = catalog
    client = cinder.CinderClient(make_conf())
    volume = client.create(ctx, 1, 'via-catalog')
    assert client.wait_for_status(ctx, volume['id'], 'available')[
        'os-vol-tenant-attr:tenant_id'] == 'p1'


def test_catalog_endpoint_v2_layout(server, ctx):
    """keystonemiddleware's X-Service-Catalog: publicURL/internalURL, no
    'interface' key."""
    ctx.service_catalog = [{'type': 'volumev3', 'name': 'cinderv3', 'endpoints': [
        {'region': 'RegionOne', 'publicURL': server.url + '/v3/p1',
         'adminURL': 'http://127.0.0.1:9/v3/p1'}]}]
    client = cinder.CinderClient(make_conf())
    volume = client.create(ctx, 1, 'via-v2-catalog')
    assert client.get(ctx, volume['id'])['name'] == 'via-v2-catalog'


# -- identity of calls on behalf of a server -----------------------------------

def test_context_for_the_owner_keeps_its_token(client, ctx):
    assert client.context_for(ctx, {'project_id': 'p1', 'user_id': 'u1'}) is ctx


def test_context_for_another_project_in_noauth2(client, ctx, server):
    client._conf.register_opts(
        [cfg.StrOpt('auth_strategy', default='noauth2')], group='api')
    admin = nova_context.RequestContext(user_id='admin', project_id='admin',
                                        auth_token='admin:admin', is_admin=True)
    volume = client.create(ctx, 1, 'owned-by-p1')
    vctx = client.context_for(admin, {'project_id': 'p1', 'user_id': 'u1'})
    assert (vctx.auth_token, vctx.project_id, vctx.is_admin) == ('u1:p1', 'p1', False)
    # The call lands in p1, where the volume lives.
    assert client.get(vctx, volume['id'])['id'] == volume['id']
    # No token at all (a periodic task): the server's identity as well.
    periodic = client.context_for(nova_context.get_admin_context(),
                                  {'project_id': 'p1', 'user_id': 'u1'})
    assert periodic.auth_token == 'u1:p1'


def test_context_for_another_project_with_keystone(tmp_path):
    admin = nova_context.RequestContext(user_id='admin', project_id='admin',
                                        auth_token='tok', is_admin=True)
    server = {'project_id': 'p1', 'user_id': 'u1'}

    def client(cinder_section):
        path = tmp_path / 'nova.conf'
        path.write_text('[api]\nauth_strategy = keystone\n[cinder]\n' + cinder_section)
        conf = cfg.ConfigOpts()
        cinder_conf.register_opts(conf)
        conf.register_opts([cfg.StrOpt('auth_strategy')], group='api')
        conf(['--config-file', str(path)])
        return cinder.CinderClient(conf)
    # No service credentials: the caller's own token, as upstream.
    assert client('').context_for(admin, server) is admin
    vctx = client('auth_type = password\nauth_url = http://keystone.invalid/v3\n'
                  'username = nova\npassword = x\nproject_name = service\n'
                  ).context_for(admin, server)
    # The service user acts, in its own project (Cinder refuses a URL that
    # names another project than the token's).
    assert vctx.is_admin and vctx.auth_token is None and vctx.project_id is None


# -- with the embedded image service as the image source ----------------------

def test_volume_from_embedded_image_service(tmp_path, ctx, transport):
    """The all-in-one wiring: volumes fetch image data through Glance, as
    the volume's requester."""
    images = image_server.ImageServer(str(tmp_path / 'images'))
    glance_cfg = cfg.ConfigOpts()
    glance_conf.register_opts(glance_cfg)
    glance_cfg([])
    service_client.use_embedded(glance_cfg, 'glance', images.url)
    glance_client = glance.GlanceClient(glance_cfg)
    srv = vs.VolumeServer(
        str(tmp_path / 'volumes'),
        image_fetcher=lambda context, image_id, dest: glance_client.download(
            context, image_id, dest))
    try:
        raw = vs.make_raw_image(str(tmp_path / 'disk.raw'))
        image = images.create(name='cirros-ish', hw_disk_bus='virtio',
                              token=ctx.auth_token)
        assert images.upload(image['id'], open(raw, 'rb'),
                             token=ctx.auth_token).status_code == 204
        # Another project's private image cannot become this one's volume.
        other = images.create(name='other', visibility='private',
                              token='u2:p2')
        assert images.upload(other['id'], open(raw, 'rb'),
                             token='u2:p2').status_code == 204
        with pytest.raises(exception.InvalidVolume):
            client = cinder.CinderClient(conf_for(transport, srv.url))
            client.create(ctx, 1, 'stolen', image_id=other['id'])
        client = cinder.CinderClient(conf_for(transport, srv.url))
        volume = client.create(ctx, 1, 'boot', image_id=image['id'])
        volume = client.wait_for_status(ctx, volume['id'], 'available')
        meta = volume['volume_image_metadata']
        assert meta['image_id'] == image['id']
        assert meta['image_name'] == 'cirros-ish'
        assert meta['hw_disk_bus'] == 'virtio'
        data = open(raw, 'rb').read()
        assert vs.read_guest_bytes(srv.volume_path(volume['id']), 'qcow2',
                                   len(data), str(tmp_path)) == data
        with pytest.raises(exception.InvalidVolume):
            client.create(ctx, 1, 'missing', image_id=vs.INSTANCE_1)
    finally:
        srv.stop()
        images.stop()


def test_update_snapshot_status(client, ctx, server):
    volume = client.wait_for_status(ctx, client.create(ctx, 1, 'v')['id'], ['available'])
    snapshot = client.create_snapshot(ctx, volume['id'], 'snap')
    snapshot = client.wait_for_snapshot_status(ctx, snapshot['id'], 'available')
    # Only a snapshot still pending may move: Cinder's 400.
    with pytest.raises(exception.InvalidVolume):
        client.update_snapshot_status(ctx, snapshot['id'], 'creating', progress='90%')
    from nova.embedded.volume.store import SNAPSHOTS
    server.app.manager.store.update(SNAPSHOTS, snapshot['id'], status='deleting')
    client.update_snapshot_status(ctx, snapshot['id'], 'error_deleting')
    assert client.get_snapshot(ctx, snapshot['id'])['status'] == 'error_deleting'
    with pytest.raises(exception.VolumeSnapshotNotFound):
        client.update_snapshot_status(ctx, vs.INSTANCE_1, 'error')
