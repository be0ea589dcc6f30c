"""GlanceClient against the embedded image endpoint, over keystoneauth and over http.client."""

import hashlib
import os
import socket

import pytest
from oslo_config import cfg

from nova import conf as nova_conf
from nova import context as nova_context
from nova import exception, service_client
from nova.conf import glance as glance_conf
from nova.image import glance
from nova.tests.unit.embedded import image_server

KERNEL_ID = '8a1f3ffb-1f1a-4a4e-9d5b-0d0f3e0f3a11'
RAMDISK_ID = '0b5e2b0e-9c8e-4a51-a0a8-2b8d0b3c7e21'


@pytest.fixture
def server(tmp_path):
    srv = image_server.ImageServer(str(tmp_path / 'images'))
    yield srv
    srv.stop()


def make_conf(**overrides):
    """A [glance] group with its keystoneauth options: the keystoneauth path."""
    conf = cfg.ConfigOpts()
    glance_conf.register_opts(conf)
    glance_conf.register_client_opts(conf)
    conf([])
    for name, value in overrides.items():
        conf.set_override(name, value, group='glance')
    return conf


def direct_conf(url, **overrides):
    """[glance] without keystoneauth options, the client sent straight to
    ``url`` as the all-in-one's default mode does: the http.client path."""
    conf = cfg.ConfigOpts()
    glance_conf.register_opts(conf)
    conf([])
    for name, value in overrides.items():
        conf.set_override(name, value, group='glance')
    service_client.use_embedded(conf, 'glance', url)
    return conf


# Every test taking ``conf`` or ``client`` runs over both transports.
@pytest.fixture(params=['keystoneauth', 'direct'])
def transport(request):
    return request.param


def conf_for(transport, url, **overrides):
    if transport == 'direct':
        return direct_conf(url, **overrides)
    return make_conf(endpoint_override=url, **overrides)


@pytest.fixture
def conf(server, transport):
    return conf_for(transport, server.url, num_retries=0)


@pytest.fixture
def client(conf):
    return glance.GlanceClient(conf)


@pytest.fixture
def ctx():
    return nova_context.RequestContext(user_id='u1', project_id='p1',
                                       auth_token='u1:p1')


@pytest.fixture
def src(tmp_path):
    path = tmp_path / 'src.img'
    path.write_bytes(os.urandom(300 * 1024 + 11))
    return str(path)


def _new(client, ctx, **meta):
    meta.setdefault('disk_format', 'raw')
    meta.setdefault('container_format', 'bare')
    return client.create(ctx, meta)


def _leftovers(directory):
    return [name for name in os.listdir(directory) if name.endswith('.part')]


def test_create_show_and_internal_form(client, ctx):
    created = _new(client, ctx, name='img', min_ram=128, properties={
        'kernel_id': KERNEL_ID, 'ramdisk_id': RAMDISK_ID,
        'hw_qemu_guest_agent': True, 'hw_video_ram': 64})
    shown = client.show(ctx, created['id'])
    assert shown == created
    assert shown['status'] == 'queued'
    assert shown['kernel_id'] == KERNEL_ID
    assert shown['hw_qemu_guest_agent'] == 'true'
    assert shown['hw_video_ram'] == '64'
    internal = glance.image_dict_to_internal(shown)
    assert internal['id'] == created['id']
    assert internal['min_ram'] == 128
    assert internal['properties'] == {
        'kernel_id': KERNEL_ID, 'ramdisk_id': RAMDISK_ID,
        'hw_qemu_guest_agent': 'true', 'hw_video_ram': '64'}
    assert not {'self', 'file', 'schema'} & set(internal)


def test_requests_carry_user_token_and_request_id(client, server, ctx):
    client.show(ctx, _new(client, ctx)['id'])
    calls = [h for h in server.recorder.headers if h['path'] != '/']
    assert {h.get('HTTP_X_AUTH_TOKEN') for h in calls} == {'u1:p1'}
    assert {h.get('HTTP_X_OPENSTACK_REQUEST_ID') for h in calls} == {
        ctx.global_id}


def test_anonymous_without_token_or_credentials(server, transport):
    conf = conf_for(transport, server.url)
    if transport == 'keystoneauth':
        conf.set_override('auth_type', 'none', group='glance')
    client = glance.GlanceClient(conf)
    anonymous = nova_context.RequestContext(auth_token=None)
    _new(client, anonymous)
    assert 'HTTP_X_AUTH_TOKEN' not in server.recorder.headers[-1]


def test_endpoint_from_service_catalog(server):
    client = glance.GlanceClient(make_conf(num_retries=0))
    catalog = [{'type': 'image', 'name': 'glance', 'endpoints': [
        {'interface': 'public', 'region': 'RegionOne', 'url': server.url}]}]
    ctx = nova_context.RequestContext(auth_token='t', project_id='p',
                                      service_catalog=catalog)
    assert _new(client, ctx)['status'] == 'queued'


def test_endpoint_from_keystonemiddleware_v2_catalog(server):
    """keystonemiddleware hands the catalog over in the v2 layout."""
    client = glance.GlanceClient(make_conf(num_retries=0))
    catalog = [{'type': 'image', 'name': 'glance', 'endpoints': [
        {'region': 'RegionOne', 'publicURL': 'http://127.0.0.1:9/unused',
         'internalURL': server.url}]}]
    ctx = nova_context.RequestContext(auth_token='t', project_id='p',
                                      service_catalog=catalog)
    # valid_interfaces defaults to internal, then public.
    assert _new(client, ctx)['status'] == 'queued'


def test_no_endpoint_is_service_error():
    client = glance.GlanceClient(make_conf(num_retries=0))
    ctx = nova_context.RequestContext(auth_token='t', project_id='p')
    with pytest.raises(exception.ImageServiceError):
        client.show(ctx, KERNEL_ID)


def test_connection_refused_is_service_error(ctx, transport):
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    sock.close()
    client = glance.GlanceClient(conf_for(transport, 'http://127.0.0.1:%d' % port,
                                          num_retries=0))
    with pytest.raises(exception.ImageServiceError):
        client.show(ctx, KERNEL_ID)


def test_missing_image(client, ctx):
    for call in (client.show, client.delete):
        with pytest.raises(exception.ImageNotFound) as info:
            call(ctx, KERNEL_ID)
        assert info.value.kwargs['image_id'] == KERNEL_ID
    with pytest.raises(exception.ImageNotFound):
        client.download(ctx, KERNEL_ID, '/nonexistent/dest')


def test_invalid_metadata_is_invalid(client, ctx):
    with pytest.raises(exception.Invalid):
        _new(client, ctx, properties={'kernel_id': 'not-a-uuid'})


def test_upload_and_verified_download(client, server, ctx, src, tmp_path):
    image = _new(client, ctx, name='disk')
    client.upload(ctx, image['id'], src)
    put = [h for h in server.recorder.headers if h['method'] == 'PUT'][0]
    assert put['HTTP_X_OPENSTACK_IMAGE_SIZE'] == str(os.path.getsize(src))
    dest = str(tmp_path / 'cache' / 'disk')
    os.makedirs(os.path.dirname(dest))
    meta = client.download(ctx, image['id'], dest)
    data = open(src, 'rb').read()
    assert open(dest, 'rb').read() == data
    assert meta['status'] == 'active'
    assert meta['os_hash_value'] == hashlib.sha512(data).hexdigest()
    assert _leftovers(os.path.dirname(dest)) == []


def test_download_rejects_corrupted_data(client, server, ctx, src, tmp_path):
    image = _new(client, ctx)
    client.upload(ctx, image['id'], src)
    size = os.path.getsize(src)
    with open(server.data_path(image['id']), 'wb') as fp:
        fp.write(b'\0' * size)  # same size, different bytes
    dest = str(tmp_path / 'dest')
    with pytest.raises(exception.ImageServiceError) as info:
        client.download(ctx, image['id'], dest)
    assert 'sha512 mismatch' in str(info.value)
    assert not os.path.exists(dest)
    assert _leftovers(str(tmp_path)) == []


def test_download_rejects_truncated_data(client, server, ctx, src, tmp_path):
    image = _new(client, ctx)
    client.upload(ctx, image['id'], src)
    with open(server.data_path(image['id']), 'r+b') as fp:
        fp.truncate(1000)
    dest = str(tmp_path / 'dest')
    with pytest.raises(exception.ImageServiceError):
        client.download(ctx, image['id'], dest)
    assert not os.path.exists(dest)
    assert _leftovers(str(tmp_path)) == []


def test_download_of_queued_image_is_unacceptable(client, ctx, tmp_path):
    image = _new(client, ctx)
    dest_dir = tmp_path / 'cache'
    dest_dir.mkdir()
    with pytest.raises(exception.ImageUnacceptable):
        client.download(ctx, image['id'], str(dest_dir / 'dest'))
    assert os.listdir(str(dest_dir)) == []


def test_md5_only_verifier():
    data = b'payload'
    image = {'checksum': hashlib.md5(data).hexdigest(), 'size': len(data)}
    good = glance._Verifier(image)
    good.update(data)
    assert good.problem() is None
    bad = glance._Verifier(image)
    bad.update(b'PAYLOAD')
    assert 'md5 mismatch' in bad.problem()
    header_only = glance._Verifier({}, content_md5=image['checksum'])
    header_only.update(data)
    assert header_only.problem() is None


def test_upload_to_active_image_conflicts(client, ctx, src):
    image = _new(client, ctx)
    client.upload(ctx, image['id'], src)
    with pytest.raises(exception.Conflict):
        client.upload(ctx, image['id'], src)


def test_update_sets_and_removes(client, ctx):
    image = _new(client, ctx, name='before', properties={
        'kernel_id': KERNEL_ID, 'ramdisk_id': RAMDISK_ID, 'drop_me': 'x'})
    updated = client.update(ctx, image['id'],
                            {'name': 'after', 'min_disk': 2,
                             'properties': {'hw_rng_model': 'virtio'}},
                            remove=['drop_me', 'never_there'])
    assert updated['name'] == 'after'
    assert updated['min_disk'] == 2
    assert updated['hw_rng_model'] == 'virtio'
    assert 'drop_me' not in updated
    assert (updated['kernel_id'], updated['ramdisk_id']) == (KERNEL_ID,
                                                             RAMDISK_ID)
    assert client.show(ctx, image['id']) == updated


def test_update_ignores_read_only_attributes(client, ctx):
    image = _new(client, ctx, name='x')
    again = dict(image, name='y')
    assert client.update(ctx, image['id'], again)['name'] == 'y'


def test_delete_and_protected_delete(client, ctx):
    image = _new(client, ctx, protected=True)
    with pytest.raises(exception.Forbidden):
        client.delete(ctx, image['id'])
    client.update(ctx, image['id'], {'protected': False})
    client.delete(ctx, image['id'])
    with pytest.raises(exception.ImageNotFound):
        client.show(ctx, image['id'])


def test_list_follows_next_links(client, ctx):
    ids = [_new(client, ctx, name='n%d' % i, tags=['t'] if i % 2 else [])['id']
           for i in range(5)]
    listed = client.list(ctx, page_size=2)
    assert [i['id'] for i in listed] == list(reversed(ids))
    assert [i['name'] for i in client.list(ctx, tag='t', page_size=1)] == [
        'n3', 'n1']
    assert [i['name'] for i in client.list(ctx, name='n2')] == ['n2']
    chosen = client.list(ctx, id='in:%s,%s' % (ids[0], ids[4]))
    assert sorted(i['id'] for i in chosen) == sorted([ids[0], ids[4]])


def test_list_opts_cover_keystoneauth_groups():
    opts = glance_conf.list_opts()['glance']
    names = {opt.dest for opt in opts}
    assert {'num_retries', 'download_chunk_size', 'endpoint_override',
            'auth_type', 'cafile', 'valid_interfaces'} <= names
    assert 'min_version' not in names
    assert all(opt.help for opt in opts if opt.dest in (
        'num_retries', 'download_chunk_size'))


class _FlakyDownloads:
    """Middleware cutting the first ``failures`` image downloads in half."""

    def __init__(self, app, failures):
        self.app = app
        self.failures = failures

    def __call__(self, environ, start_response):
        if (environ['REQUEST_METHOD'] == 'GET'
                and environ['PATH_INFO'].endswith('/file') and self.failures):
            self.failures -= 1
            body = b''.join(self.app(environ, start_response))
            return [body[:len(body) // 2]]
        return self.app(environ, start_response)


@pytest.mark.parametrize('retries,succeeds', [(1, True), (0, False)])
def test_download_retries_broken_transfers(server, ctx, src, tmp_path,
                                           retries, succeeds, transport):
    client = glance.GlanceClient(conf_for(transport, server.url, num_retries=retries))
    image = _new(client, ctx)
    client.upload(ctx, image['id'], src)
    server.recorder.app = image_server.TokenIdentity(
        _FlakyDownloads(server.app, failures=1))
    dest_dir = tmp_path / 'cache'
    dest_dir.mkdir()
    dest = str(dest_dir / 'dest')
    if succeeds:
        client.download(ctx, image['id'], dest)
        assert open(dest, 'rb').read() == open(src, 'rb').read()
    else:
        with pytest.raises(exception.ImageServiceError):
            client.download(ctx, image['id'], dest)
        assert os.listdir(str(dest_dir)) == []


def test_versioned_endpoint_override(server, ctx):
    client = glance.GlanceClient(make_conf(
        endpoint_override=server.url + '/v2', num_retries=0))
    image = _new(client, ctx, name='via-v2')
    assert client.show(ctx, image['id'])['name'] == 'via-v2'


def _noauth_client(server, transport):
    from nova.conf import api as api_conf
    conf = conf_for(transport, server.url, num_retries=0)
    if transport == 'keystoneauth':
        conf.set_override('auth_type', 'none', group='glance')
    api_conf.register_opts(conf)
    conf.set_override('auth_strategy', 'noauth2', group='api')
    return glance.GlanceClient(conf)


@pytest.mark.parametrize('ctx_args,token', [
    ({'user_id': 'u2', 'project_id': 'p2'}, 'u2:p2'),
    ({'user_id': 'u2', 'project_id': None}, 'u2:u2'),
    ({'user_id': None, 'project_id': 'p2'}, 'p2:p2'),
    ({'is_admin': True, 'roles': ['admin']}, 'admin:admin'),
    ({'user_id': 'u3', 'project_id': 'p3', 'auth_token': 'u3:p3'}, 'u3:p3'),
])
def test_noauth_calls_name_the_caller(server, ctx_args, token, transport):
    client = _noauth_client(server, transport)
    ctx = nova_context.RequestContext(overwrite=False, **ctx_args)
    _new(client, ctx)
    assert server.recorder.headers[-1]['HTTP_X_AUTH_TOKEN'] == token
    assert ctx.auth_token == ctx_args.get('auth_token')


def test_another_projects_private_image_is_not_found(server, client, ctx):
    image = _new(client, ctx, visibility='private')
    other = nova_context.RequestContext(user_id='u2', project_id='p2',
                                        auth_token='u2:p2')
    with pytest.raises(exception.ImageNotFound):
        client.show(other, image['id'])
    with pytest.raises(exception.ImageNotFound):
        client.download(other, image['id'], os.devnull)
    with pytest.raises(exception.ImageNotFound):
        client.delete(other, image['id'])
    assert client.show(ctx, image['id'])['owner'] == 'p1'


def test_direct_path_until_the_group_is_pointed_elsewhere(server, ctx, tmp_path):
    """The embedded endpoint is used while [glance] names no endpoint_override;
    once registered and set (by an operator or a test) keystoneauth takes over."""
    conf = direct_conf(server.url, num_retries=0)
    client = glance.GlanceClient(conf)
    assert isinstance(client._transport(ctx), service_client.DirectTransport)
    image = _new(client, ctx)
    other = image_server.ImageServer(str(tmp_path / 'other'))
    try:
        nova_conf.register_client_opts(conf, 'glance')
        assert isinstance(client._transport(ctx), service_client.DirectTransport)
        conf.set_override('endpoint_override', other.url, group='glance')
        with pytest.raises(exception.ImageNotFound):
            client.show(ctx, image['id'])
        assert other.recorder.headers[-1]['HTTP_X_AUTH_TOKEN'] == 'u1:p1'
        conf.clear_override('endpoint_override', group='glance')
        assert client.show(ctx, image['id'])['id'] == image['id']
    finally:
        other.stop()


def test_direct_transport_sends_what_keystoneauth_sends(server, ctx):
    """Same method, path, query, body and the headers the endpoint reads."""
    seen = {}
    for transport in ('keystoneauth', 'direct'):
        before = len(server.recorder.headers)
        client = glance.GlanceClient(conf_for(transport, server.url, num_retries=0))
        image = _new(client, ctx, name=transport)
        client.update(ctx, image['id'], {'properties': {'a': 'b'}})
        client.list(ctx, page_size=1, name=transport)
        calls = [h for h in server.recorder.headers[before:] if h['path'] != '/']
        seen[transport] = [
            (h['method'], h['path'].replace(image['id'], 'ID'),
             h.get('QUERY_STRING').replace(image['id'], 'ID').replace(transport, 'NAME'),
             h.get('CONTENT_TYPE'), h.get('HTTP_X_AUTH_TOKEN'),
             h.get('HTTP_X_OPENSTACK_REQUEST_ID'), h.get('HTTP_ACCEPT'))
            for h in calls]
    assert seen['direct'] == seen['keystoneauth']
    assert len(seen['direct']) >= 3
