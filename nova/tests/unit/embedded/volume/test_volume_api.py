"""The embedded volume endpoint over real HTTP: Cinder v3 wire format, disk files, bad input."""

import json
import os
import threading
import time

import pytest
import requests

from nova.embedded.volume import app
from nova.tests.unit.embedded.volume import volume_server as vs
from nova.tests.unit.embedded.volume.volume_server import GiB

# tempest's volume show schema: keys every volume must carry.
TEMPEST_REQUIRED = ('attachments', 'links', 'encrypted', 'updated_at',
                    'replication_status', 'id', 'size', 'user_id',
                    'availability_zone', 'metadata', 'status', 'description',
                    'multiattach', 'consistencygroup_id', 'name', 'bootable',
                    'created_at', 'volume_type', 'snapshot_id', 'source_volid')
SNAPSHOT_REQUIRED = ('status', 'description', 'created_at', 'metadata', 'name',
                     'volume_id', 'id', 'size', 'updated_at')


@pytest.fixture
def fetcher(tmp_path):
    images = vs.ImageFetcher()
    raw = vs.make_raw_image(str(tmp_path / 'tiny.raw'))
    images.add(vs.IMAGE_ID, raw, vs.glance_image(
        vs.IMAGE_ID, raw, hw_disk_bus='scsi', hw_qemu_guest_agent=True))
    qcow2 = vs.make_qcow2_image(str(tmp_path / 'tiny.qcow2'))
    # No Glance dict: the format has to be probed from the data.
    images.add(vs.QCOW2_IMAGE_ID, qcow2)
    return images


@pytest.fixture
def server(tmp_path, fetcher):
    srv = vs.VolumeServer(str(tmp_path / 'volumes'), image_fetcher=fetcher)
    yield srv
    srv.stop()


@pytest.fixture
def api(server):
    return vs.Api(server.url)


def _fault(resp, code):
    assert resp.status_code == code, resp.text
    body = resp.json()
    assert len(body) == 1
    (name, fault), = body.items()
    assert fault['code'] == code
    assert fault['message']
    return name, fault['message']


# -- versions and microversions ---------------------------------------------

def test_version_documents(server):
    root = requests.get(server.url + '/')
    assert root.status_code == 300
    (version,) = root.json()['versions']
    assert version['id'] == 'v3.0'
    assert version['status'] == 'CURRENT'
    assert version['min_version'] == '3.0'
    assert version['version'] == '3.70'
    assert version['media-types'][0]['type'] == (
        'application/vnd.openstack.volume+json;version=3')
    self_link = [link for link in version['links'] if link['rel'] == 'self']
    assert self_link[0]['href'] == server.url + '/v3/'
    v3 = requests.get(server.url + '/v3/')
    assert v3.status_code == 200
    assert v3.json() == root.json()


def test_microversion_negotiation(api):
    resp = api.get('/volumes', version='volume 3.44')
    assert resp.headers['OpenStack-API-Version'] == 'volume 3.44'
    assert 'OpenStack-API-Version' in resp.headers['Vary']
    assert resp.headers['x-openstack-request-id'].startswith('req-')
    assert api.get('/volumes', version='volume latest').headers[
        'OpenStack-API-Version'] == 'volume 3.70'
    # Without the header Cinder serves its minimum.
    resp = requests.get(api.base + '/volumes',
                        headers={'X-Auth-Token': 'u1:p1'})
    assert resp.headers['OpenStack-API-Version'] == 'volume 3.0'
    # Another service's entry is ignored.
    resp = api.get('/volumes', version='compute 2.90, volume 3.27')
    assert resp.headers['OpenStack-API-Version'] == 'volume 3.27'
    assert _fault(api.get('/volumes', version='volume 3.x'), 400)[0] == (
        'badRequest')
    name, message = _fault(api.get('/volumes', version='volume 3.71'), 406)
    assert 'maximum is 3.70' in message
    _fault(api.get('/volumes', version='volume 2.0'), 406)


def test_routes_absent_below_their_microversion(api, server):
    volume = api.create_volume(size=1)
    assert _fault(api.get('/attachments', version='volume 3.26'),
                  404)[0] == 'itemNotFound'
    attachment = api.attach(volume['id'])
    action = '/attachments/%s/action' % attachment['id']
    _fault(api.post(action, {'os-complete': None}, version='volume 3.43'), 404)
    assert api.post(action, {'os-complete': None},
                    version='volume 3.44').status_code == 204


def test_unknown_route_and_wrong_method(api, server):
    _fault(api.get('/backups'), 404)
    _fault(requests.get(server.url + '/v2/p1/volumes',
                        headers={'X-Auth-Token': 'u1:p1'}), 404)
    resp = api.request('PATCH', '/volumes')
    name, _ = _fault(resp, 405)
    assert name == 'badMethod'
    assert resp.headers['Allow'] == 'GET, POST'


def test_project_from_the_token_never_from_headers(api, server):
    volume = api.create_volume(size=1)
    vs.Api(server.url, 'other').create_volume(size=1)
    # The token's project must match the URL's.
    _fault(api.get('/volumes', headers={'X-Auth-Token': 'u1:other'}), 400)
    # Identity headers a client sends are ignored: p1's token stays p1.
    spoofed = {'X-Project-Id': 'other', 'X-Roles': 'admin',
               'X-User-Id': 'mallory'}
    resp = api.get('/volumes/detail', headers=spoofed,
                   params={'all_tenants': '1'})
    assert [v['id'] for v in resp.json()['volumes']] == [volume['id']]
    assert resp.json()['volumes'][0]['user_id'] == 'u1'
    # Project-less URLs (Cinder 3.67+) take the project from the token.
    resp = requests.get(server.url + '/v3/volumes/' + volume['id'],
                        headers={'X-Auth-Token': 'u1:p1'})
    assert resp.json()['volume']['id'] == volume['id']
    # No token: 401, whatever the headers claim; version documents are open.
    assert requests.get(server.url + '/v3/volumes',
                        headers={'X-Project-Id': 'p1'}).status_code == 401
    assert requests.get(server.url + '/v3/p1/volumes').status_code == 401
    assert requests.get(server.url + '/').status_code in (200, 300)
    assert requests.get(server.url + '/v3').status_code == 200


def test_volumes_record_the_token_user_and_project(server):
    api = vs.Api(server.url, 'p3', user='u3')
    volume = api.create_volume(size=1)
    shown = vs.Api(server.url, 'p3', user='admin').volume(volume['id'])
    assert (shown['user_id'], shown['os-vol-tenant-attr:tenant_id']) == \
        ('u3', 'p3')


# -- volume create ------------------------------------------------------------

def test_create_blank_volume(api, server):
    resp = api.post('/volumes', {'volume': {
        'size': 2, 'name': ' data ', 'description': 'scratch',
        'metadata': {'purpose': 'test'}}})
    assert resp.status_code == 202
    created = resp.json()['volume']
    # The create answer is the accepted request; the build follows.
    assert created['status'] == 'creating'
    assert created['name'] == 'data'
    assert 'os-vol-tenant-attr:tenant_id' not in created
    volume = api.volume(created['id'])
    for key in TEMPEST_REQUIRED:
        assert key in volume, key
    assert volume['status'] == 'available'
    assert volume['size'] == 2
    assert volume['bootable'] == 'false'
    assert volume['attachments'] == []
    assert volume['metadata'] == {'purpose': 'test'}
    assert volume['availability_zone'] == 'nova'
    assert volume['volume_type'] == '__DEFAULT__'
    assert volume['multiattach'] is False
    assert volume['user_id'] == 'u1'
    assert volume['os-vol-tenant-attr:tenant_id'] == 'p1'
    assert 'os-vol-host-attr:host' not in volume       # admin only
    assert 'volume_image_metadata' not in volume
    assert volume['links'][0]['href'] == '%s/volumes/%s' % (api.base,
                                                            volume['id'])
    info = vs.qemu_info(server.volume_path(volume['id']))
    assert info['format'] == 'qcow2'
    assert info['virtual-size'] == 2 * GiB


def test_view_follows_microversion(api):
    volume = api.create_volume(size=1)
    old = api.get('/volumes/' + volume['id'], version='volume 3.0').json()
    new = api.get('/volumes/' + volume['id']).json()
    assert 'group_id' not in old['volume']
    assert 'volume_type_id' not in old['volume']
    assert new['volume']['group_id'] is None
    assert new['volume']['shared_targets'] is False
    assert new['volume']['consumes_quota'] is True
    assert new['volume']['volume_type_id']


def test_raw_volume_format(tmp_path):
    srv = vs.VolumeServer(str(tmp_path / 'raw'), volume_format='raw')
    try:
        api = vs.Api(srv.url)
        volume = api.create_volume(size=1)
        info = vs.qemu_info(srv.volume_path(volume['id']))
        assert info['format'] == 'raw'
        assert info['virtual-size'] == GiB
        attachment = api.attach(volume['id'], connector={'host': 'h'})
        assert attachment['connection_info']['data']['format'] == 'raw'
    finally:
        srv.stop()


def test_create_from_raw_image(api, server, fetcher, tmp_path):
    volume = api.create_volume(size=1, imageRef=vs.IMAGE_ID)
    volume = api.volume(volume['id'])
    assert volume['status'] == 'available'
    assert volume['bootable'] == 'true'
    meta = volume['volume_image_metadata']
    assert meta['image_id'] == vs.IMAGE_ID
    assert meta['image_name'] == 'tiny'
    assert meta['disk_format'] == 'raw'
    assert meta['hw_disk_bus'] == 'scsi'
    assert meta['hw_qemu_guest_agent'] == 'true'
    assert 'self' not in meta and 'visibility' not in meta
    path = server.volume_path(volume['id'])
    info = vs.qemu_info(path)
    assert (info['format'], info['virtual-size']) == ('qcow2', GiB)
    image_bytes = open(fetcher.images[vs.IMAGE_ID][0], 'rb').read()
    assert vs.read_guest_bytes(path, 'qcow2', len(image_bytes),
                               str(tmp_path)) == image_bytes
    # The staged download is gone.
    assert not os.listdir(os.path.join(server.data_dir, 'tmp'))
    # The image was read as the volume's requester, not as a service.
    fetched_as = fetcher.contexts[-1]
    assert (fetched_as.project_id, fetched_as.user_id) == ('p1', 'u1')
    assert not fetched_as.is_admin


def test_create_from_probed_qcow2_image(api, server):
    volume = api.volume(api.create_volume(size=1,
                                          imageRef=vs.QCOW2_IMAGE_ID)['id'])
    assert volume['status'] == 'available'
    assert volume['volume_image_metadata'] == {
        'image_id': vs.QCOW2_IMAGE_ID, 'disk_format': 'qcow2',
        'size': str(os.path.getsize(os.path.join(
            os.path.dirname(server.data_dir), 'tiny.qcow2')))}
    assert vs.qemu_info(server.volume_path(volume['id']))[
        'virtual-size'] == GiB


def test_image_fetch_failure_ends_in_error(tmp_path):
    def broken(context, image_id, dest_path):
        raise ConnectionError('image service down')

    srv = vs.VolumeServer(str(tmp_path / 'v'), image_fetcher=broken)
    try:
        api = vs.Api(srv.url)
        volume = api.volume(api.create_volume(size=1,
                                              imageRef=vs.IMAGE_ID)['id'])
        assert volume['status'] == 'error'
        assert not os.path.exists(srv.volume_path(volume['id']))
        assert api.delete('/volumes/' + volume['id']).status_code == 202
    finally:
        srv.stop()


def test_create_from_snapshot_and_from_volume(api, server, fetcher, tmp_path):
    source = api.create_volume(size=1, imageRef=vs.IMAGE_ID)
    snapshot = api.create_snapshot(source['id'], name='snap')
    assert snapshot['status'] == 'creating'
    snapshot = api.snapshot(snapshot['id'])
    assert snapshot['status'] == 'available'
    assert snapshot['os-extended-snapshot-attributes:progress'] == '100%'
    assert snapshot['size'] == 1
    assert os.path.exists(server.snapshot_path(snapshot['id']))

    copy = api.volume(api.create_volume(snapshot_id=snapshot['id'],
                                        size=3)['id'])
    assert copy['status'] == 'available'
    assert copy['snapshot_id'] == snapshot['id']
    assert copy['bootable'] == 'true'
    assert copy['volume_image_metadata']['image_id'] == vs.IMAGE_ID
    path = server.volume_path(copy['id'])
    assert vs.qemu_info(path)['virtual-size'] == 3 * GiB
    image_bytes = open(fetcher.images[vs.IMAGE_ID][0], 'rb').read()
    assert vs.read_guest_bytes(path, 'qcow2', len(image_bytes),
                               str(tmp_path)) == image_bytes

    # Without a size the snapshot's is used.
    same = api.volume(api.create_volume(snapshot_id=snapshot['id'])['id'])
    assert same['size'] == 1

    clone = api.volume(api.create_volume(source_volid=source['id'])['id'])
    assert clone['status'] == 'available'
    assert clone['source_volid'] == source['id']
    assert clone['size'] == 1
    assert vs.read_guest_bytes(server.volume_path(clone['id']), 'qcow2',
                               len(image_bytes), str(tmp_path)) == image_bytes


BAD_CREATES = [
    ({'volume': {}}, 400),
    ({'volume': {'size': 0}}, 400),
    ({'volume': {'size': -1}}, 400),
    ({'volume': {'size': 'abc'}}, 400),
    ({'volume': {'size': 1.5}}, 400),
    ({'volume': {'size': 10 ** 9}}, 400),
    ({'volume': {'size': 1, 'name': 'x' * 256}}, 400),
    ({'volume': {'size': 1, 'metadata': {'k': 1}}}, 400),
    ({'volume': {'size': 1, 'metadata': 'k=v'}}, 400),
    ({'volume': {'size': 1, 'volume_type': 'gold'}}, 404),
    ({'volume': {'size': 1, 'availability_zone': 'elsewhere'}}, 400),
    ({'volume': {'size': 1, 'multiattach': True}}, 400),
    ({'volume': {'size': 1, 'snapshot_id': 'not-a-uuid'}}, 400),
    ({'volume': {'size': 1, 'snapshot_id': vs.INSTANCE_1}}, 404),
    ({'volume': {'size': 1, 'source_volid': vs.INSTANCE_1}}, 404),
    ({'volume': {'size': 1, 'imageRef': vs.IMAGE_ID,
                 'snapshot_id': vs.INSTANCE_1}}, 400),
    ({'volume': {'imageRef': vs.IMAGE_ID}}, 400),
    ({'volume': {'size': 1, 'imageRef': 'no-such-image'}}, 400),
    ({'volume': {'size': 1, 'bogus': True}}, 400),      # 3.53+
    ({'volume': {'size': 1}, 'extra': 1}, 400),
    ({'size': 1}, 400),
    ([], 400),
]


@pytest.mark.parametrize('body,code', BAD_CREATES)
def test_bad_create_changes_nothing(api, server, body, code):
    before = server.files()
    name, message = _fault(api.post('/volumes', body), code)
    assert name == ('badRequest' if code == 400 else 'itemNotFound')
    assert server.files() == before
    assert api.get('/volumes').json()['volumes'] == []


def test_malformed_bodies(api, server):
    before = server.files()
    for data in (b'', b'{', b'not json'):
        _fault(api.request('POST', '/volumes', data=data,
                           headers={'Content-Type': 'application/json'}), 400)
    assert server.files() == before


def test_unknown_attributes_ignored_before_3_53(api):
    resp = api.post('/volumes', {'volume': {'size': 1, 'bogus': True}},
                    version='volume 3.52')
    assert resp.status_code == 202


def test_bad_images_are_refused(api, server, fetcher, tmp_path):
    base = vs.make_raw_image(str(tmp_path / 'base.raw'))
    with_backing = vs.make_qcow2_image(str(tmp_path / 'overlay.qcow2'),
                                       backing=base)
    fetcher.add('11111111-2222-3333-4444-555555555555', with_backing)
    fetcher.add('22222222-3333-4444-5555-666666666666', with_backing,
                {'disk_format': 'vmdk'})
    big = vs.make_qcow2_image(str(tmp_path / 'big.qcow2'), size='3G')
    fetcher.add('33333333-4444-5555-6666-777777777777', big,
                {'disk_format': 'qcow2'})
    before = server.files()
    for image_id, hint in (
            ('11111111-2222-3333-4444-555555555555', 'backing file'),
            ('22222222-3333-4444-5555-666666666666', 'vmdk'),
            ('33333333-4444-5555-6666-777777777777', "doesn't fit")):
        _, message = _fault(api.post('/volumes', {'volume': {
            'size': 1, 'imageRef': image_id}}), 400)
        assert hint in message
    assert server.files() == before


def test_no_image_fetcher(tmp_path):
    srv = vs.VolumeServer(str(tmp_path / 'v'))
    try:
        _fault(vs.Api(srv.url).post('/volumes', {'volume': {
            'size': 1, 'imageRef': vs.IMAGE_ID}}), 400)
    finally:
        srv.stop()


# -- list, show, update, extend, delete ---------------------------------------

def test_list_filters_sorting_and_paging(api):
    ids = [api.create_volume(size=1, name='vol-%d' % i,
                             metadata={'n': str(i)})['id'] for i in range(5)]
    listed = api.get('/volumes').json()['volumes']
    # Newest first, each with links and no details.
    assert [v['id'] for v in listed] == ids[::-1]
    assert set(listed[0]) == {'id', 'name', 'links'}
    detail = api.get('/volumes/detail').json()['volumes']
    assert detail[0]['status'] == 'available'

    assert [v['id'] for v in api.get(
        '/volumes/detail', params={'name': 'vol-2'}).json()['volumes']] == [
            ids[2]]
    assert api.get('/volumes', params={'status': 'error'}).json()[
        'volumes'] == []
    assert [v['id'] for v in api.get('/volumes', params={
        'metadata': "{'n': '3'}"}).json()['volumes']] == [ids[3]]
    by_name = api.get('/volumes', params={'sort': 'name:asc'}).json()
    assert [v['name'] for v in by_name['volumes']] == [
        'vol-%d' % i for i in range(5)]

    seen, params = [], {'limit': 2, 'with_count': 'true'}
    url = api.base + '/volumes'
    while url:
        page = requests.get(url, params=params, headers=api.headers).json()
        assert page['count'] == 5
        seen += [v['id'] for v in page['volumes']]
        links = page.get('volumes_links')
        url, params = (links[0]['href'], None) if links else (None, None)
    assert seen == ids[::-1]

    _fault(api.get('/volumes', params={'marker': vs.INSTANCE_1}), 404)
    _fault(api.get('/volumes', params={'limit': 'x'}), 400)
    _fault(api.get('/volumes', params={'sort': 'bogus:asc'}), 400)
    _fault(api.get('/volumes', params={'color': 'red'}), 400)
    # Before 3.31 unknown filters are ignored.
    assert len(api.get('/volumes', params={'color': 'red'},
                       version='volume 3.30').json()['volumes']) == 5


def test_projects_are_isolated(server):
    p1, p2 = vs.Api(server.url, 'p1'), vs.Api(server.url, 'p2')
    admin = vs.Api(server.url, 'p2', user='admin')
    volume = p1.create_volume(size=1)
    _fault(p2.get('/volumes/' + volume['id']), 404)
    _fault(p2.delete('/volumes/' + volume['id']), 404)
    _fault(p2.post('/attachments', {'attachment': {
        'volume_uuid': volume['id'], 'instance_uuid': vs.INSTANCE_1}}), 404)
    assert p2.get('/volumes').json()['volumes'] == []
    assert admin.get('/volumes').json()['volumes'] == []
    everything = admin.get('/volumes/detail',
                           params={'all_tenants': '1'}).json()['volumes']
    assert [v['id'] for v in everything] == [volume['id']]
    shown = admin.get('/volumes/' + volume['id']).json()['volume']
    assert shown['os-vol-host-attr:host'].endswith('@file#file')
    assert shown['os-vol-tenant-attr:tenant_id'] == 'p1'


def test_update_volume(api):
    volume = api.create_volume(size=1, name='old')
    resp = api.put('/volumes/' + volume['id'], {'volume': {
        'name': 'new', 'metadata': {'a': 'b'}}})
    assert resp.status_code == 200
    assert resp.json()['volume']['name'] == 'new'
    assert api.volume(volume['id'])['metadata'] == {'a': 'b'}
    _fault(api.put('/volumes/' + volume['id'], {'volume': {}}), 400)
    _fault(api.put('/volumes/' + vs.INSTANCE_1, {'volume': {'name': 'x'}}),
           404)


def test_extend_and_actions(api, server):
    volume = api.create_volume(size=1)
    action = '/volumes/%s/action' % volume['id']
    assert api.post(action, {'os-extend': {'new_size': 2}}).status_code == 202
    assert api.volume(volume['id'])['size'] == 2
    assert vs.qemu_info(server.volume_path(volume['id']))[
        'virtual-size'] == 2 * GiB
    _, message = _fault(api.post(action, {'os-extend': {'new_size': 2}}), 400)
    assert 'greater than current size' in message
    _fault(api.post(action, {'os-extend': {}}), 400)
    _fault(api.post(action, {'os-frobnicate': {}}), 400)
    _fault(api.post('/volumes/%s/action' % vs.INSTANCE_1,
                    {'os-extend': {'new_size': 3}}), 404)
    assert api.post(action, {'os-set_bootable': {'bootable': True}}).ok
    assert api.volume(volume['id'])['bootable'] == 'true'
    # reset_status is for admins.
    _fault(api.post(action, {'os-reset_status': {'status': 'error'}}), 403)


def test_delete_volume(api, server):
    volume = api.create_volume(size=1)
    path = server.volume_path(volume['id'])
    assert os.path.exists(path)
    assert api.delete('/volumes/' + volume['id']).status_code == 202
    assert not os.path.exists(path)
    _fault(api.get('/volumes/' + volume['id']), 404)
    _fault(api.delete('/volumes/' + volume['id']), 404)


def test_delete_with_snapshots_needs_cascade(api, server):
    volume = api.create_volume(size=1)
    snapshot = api.create_snapshot(volume['id'])
    _, message = _fault(api.delete('/volumes/' + volume['id']), 400)
    assert 'snapshot' in message
    assert api.delete('/volumes/' + volume['id'],
                      params={'cascade': 'true'}).status_code == 202
    _fault(api.get('/snapshots/' + snapshot['id']), 404)
    assert not os.path.exists(server.snapshot_path(snapshot['id']))


def test_records_survive_restart_and_interrupted_work_fails(tmp_path):
    data_dir = str(tmp_path / 'v')
    srv = vs.VolumeServer(data_dir)
    api = vs.Api(srv.url)
    kept = api.create_volume(size=1, name='kept')
    cut = api.create_volume(size=1)
    # As if the process died in the middle of building it.
    srv.app.manager.store.update('volumes', cut['id'], status='creating')
    srv.stop()
    leftover = os.path.join(data_dir, 'volumes', 'volume-x.part')
    open(leftover, 'w').close()

    restarted = app.make_app(data_dir)
    store = restarted.manager.store
    assert store.get('volumes', kept['id'])['status'] == 'available'
    assert store.get('volumes', kept['id'])['name'] == 'kept'
    assert store.get('volumes', cut['id'])['status'] == 'error'
    assert not os.path.exists(leftover)


# -- snapshots ----------------------------------------------------------------

def test_snapshot_views_and_delete(api, server):
    volume = api.create_volume(size=1)
    created = api.create_snapshot(volume['id'], name='s1',
                                  description='first', metadata={'k': 'v'})
    for key in SNAPSHOT_REQUIRED:
        assert key in created, key
    assert 'os-extended-snapshot-attributes:project_id' not in created
    shown = api.snapshot(created['id'])
    assert shown['os-extended-snapshot-attributes:project_id'] == 'p1'
    assert shown['user_id'] == 'u1'
    assert shown['metadata'] == {'k': 'v'}
    summary = api.get('/snapshots').json()['snapshots']
    assert [s['id'] for s in summary] == [created['id']]
    assert 'os-extended-snapshot-attributes:progress' not in summary[0]
    detail = api.get('/snapshots/detail',
                     params={'volume_id': volume['id']}).json()['snapshots']
    assert detail[0]['os-extended-snapshot-attributes:progress'] == '100%'
    renamed = api.put('/snapshots/' + created['id'],
                      {'snapshot': {'name': 's2'}})
    assert renamed.json()['snapshot']['name'] == 's2'
    assert api.delete('/snapshots/' + created['id']).status_code == 202
    assert not os.path.exists(server.snapshot_path(created['id']))
    _fault(api.get('/snapshots/' + created['id']), 404)
    _fault(api.delete('/snapshots/' + created['id']), 404)


def test_snapshot_errors_change_nothing(api, server):
    volume = api.create_volume(size=1)
    before = server.files()
    _fault(api.post('/snapshots', {'snapshot': {
        'volume_id': vs.INSTANCE_1}}), 404)
    _fault(api.post('/snapshots', {'snapshot': {'name': 'x'}}), 400)
    _fault(api.post('/snapshots', {'snapshot': {
        'volume_id': volume['id'], 'force': 'maybe'}}), 400)
    assert server.files() == before


def test_snapshot_of_in_use_volume(api):
    volume = api.create_volume(size=1)
    attachment = api.attach(volume['id'], connector={'host': 'h'})
    api.post('/attachments/%s/action' % attachment['id'],
             {'os-complete': None})
    body = {'snapshot': {'volume_id': volume['id']}}
    # Before 3.66 an in-use volume needs force.
    _fault(api.post('/snapshots', body, version='volume 3.65'), 400)
    forced = {'snapshot': {'volume_id': volume['id'], 'force': True}}
    assert api.post('/snapshots', forced,
                    version='volume 3.65').status_code == 202
    assert api.post('/snapshots', body).status_code == 202
    unforced = {'snapshot': {'volume_id': volume['id'], 'force': False}}
    _fault(api.post('/snapshots', unforced), 400)
    snapshots = api.get('/snapshots/detail').json()['snapshots']
    assert {s['status'] for s in snapshots} == {'available'}


# -- attachments --------------------------------------------------------------

def test_attachment_life_cycle(api, server):
    volume = api.create_volume(size=1)
    vid = volume['id']

    reserved = api.attach(vid)
    assert reserved['status'] == 'reserved'
    assert reserved['instance'] == vs.INSTANCE_1
    assert reserved['connection_info'] is None
    assert reserved['attached_at'] == ''
    assert api.volume(vid)['status'] == 'reserved'
    # A non-multiattach volume is taken.
    _, message = _fault(api.post('/attachments', {'attachment': {
        'volume_uuid': vid, 'instance_uuid': vs.INSTANCE_2}}), 400)
    assert 'reserved' in message
    _fault(api.delete('/volumes/' + vid), 400)

    connector = {'host': 'compute-1', 'mountpoint': '/dev/vdb',
                 'initiator': 'iqn.test', 'platform': 'x86_64'}
    resp = api.put('/attachments/' + reserved['id'],
                   {'attachment': {'connector': connector}})
    assert resp.status_code == 200
    updated = resp.json()['attachment']
    assert updated['status'] == 'attaching'
    info = updated['connection_info']
    assert info['driver_volume_type'] == 'file'
    data = info['data']
    assert data['device_path'] == server.volume_path(vid)
    assert os.path.isabs(data['device_path'])
    assert os.path.exists(data['device_path'])
    assert data['format'] == 'qcow2'
    assert data['name'] == 'volume-' + vid
    assert data['volume_id'] == vid
    assert data['access_mode'] == 'rw'
    assert api.volume(vid)['status'] == 'attaching'
    assert api.volume(vid)['attachments'] == []

    resp = api.post('/attachments/%s/action' % reserved['id'],
                    {'os-complete': None})
    assert resp.status_code == 204
    volume = api.volume(vid)
    assert volume['status'] == 'in-use'
    (entry,) = volume['attachments']
    assert entry['attachment_id'] == reserved['id']
    assert entry['server_id'] == vs.INSTANCE_1
    assert entry['volume_id'] == entry['id'] == vid
    assert entry['device'] == '/dev/vdb'
    assert entry['host_name'] == 'compute-1'
    assert entry['attached_at']
    shown = api.get('/attachments/' + reserved['id']).json()['attachment']
    assert shown['status'] == 'attached'
    assert shown['attached_at']
    assert shown['connection_info'] == info

    listed = api.get('/attachments', params={'volume_id': vid}).json()
    assert listed['attachments'] == [{
        'id': reserved['id'], 'status': 'attached',
        'instance': vs.INSTANCE_1, 'volume_id': vid}]
    assert api.get('/attachments/detail').json()['attachments'][0][
        'connection_info'] == info

    # In use: not deletable, however asked.
    _, message = _fault(api.delete('/volumes/' + vid), 400)
    assert 'in-use' in message
    _fault(api.delete('/volumes/' + vid, params={'cascade': 'true'}), 400)

    resp = api.delete('/attachments/' + reserved['id'])
    assert resp.status_code == 200
    assert resp.json() == {'attachments': []}
    volume = api.volume(vid)
    assert volume['status'] == 'available'
    assert volume['attachments'] == []
    _fault(api.get('/attachments/' + reserved['id']), 404)
    assert api.delete('/volumes/' + vid).status_code == 202


def test_attachment_with_connector_and_read_only_mode(api):
    volume = api.create_volume(size=1)
    attachment = api.attach(volume['id'], connector={'host': 'h1'}, mode='ro')
    assert attachment['status'] == 'attaching'
    assert attachment['attach_mode'] == 'ro'
    assert attachment['connection_info']['data']['access_mode'] == 'ro'
    assert api.volume(volume['id'])['status'] == 'attaching'
    # 'mode' is only known from 3.54.
    _fault(api.post('/attachments', {'attachment': {
        'volume_uuid': volume['id'], 'instance_uuid': vs.INSTANCE_1,
        'mode': 'ro'}}, version='volume 3.53'), 400)


def test_second_attachment_for_same_instance(api):
    """Live migration creates a second attachment for the same server."""
    volume = api.create_volume(size=1)
    first = api.attach(volume['id'], connector={'host': 'src'})
    api.post('/attachments/%s/action' % first['id'], {'os-complete': None})
    second = api.attach(volume['id'], connector={'host': 'dest'})
    assert api.volume(volume['id'])['status'] == 'in-use'
    remaining = api.delete('/attachments/' + first['id']).json()
    assert [a['id'] for a in remaining['attachments']] == [second['id']]
    # The remaining attachment was never completed.
    assert api.volume(volume['id'])['status'] == 'attaching'
    api.post('/attachments/%s/action' % second['id'], {'os-complete': None})
    assert api.volume(volume['id'])['attachments'][0]['host_name'] == 'dest'


def test_attachment_errors(api, server):
    volume = api.create_volume(size=1)
    before = server.files()
    _fault(api.post('/attachments', {'attachment': {
        'volume_uuid': vs.INSTANCE_2, 'instance_uuid': vs.INSTANCE_1}}), 404)
    _fault(api.post('/attachments', {'attachment': {
        'volume_uuid': volume['id']}}), 400)
    _fault(api.post('/attachments', {'attachment': {
        'volume_uuid': volume['id'], 'instance_uuid': 'nope'}}), 400)
    _fault(api.post('/attachments', {'attachment': {
        'volume_uuid': volume['id'], 'instance_uuid': vs.INSTANCE_1,
        'connector': 'iqn'}}), 400)
    assert server.files() == before
    assert api.volume(volume['id'])['status'] == 'available'

    attachment = api.attach(volume['id'])
    path = '/attachments/' + attachment['id']
    _fault(api.put(path, {'attachment': {}}), 400)
    _fault(api.put(path, {'attachment': {'connector': {}}}), 400)
    _fault(api.put('/attachments/' + vs.INSTANCE_2,
                   {'attachment': {'connector': {'host': 'h'}}}), 404)
    _fault(api.post(path + '/action', {'os-detach': None}), 400)
    _fault(api.post('/attachments/%s/action' % vs.INSTANCE_2,
                    {'os-complete': None}), 404)
    _fault(api.delete('/attachments/' + vs.INSTANCE_2), 404)
    assert api.get(path).json()['attachment']['status'] == 'reserved'


def test_concurrent_attachments_one_wins(api):
    volume = api.create_volume(size=1)
    instances = ['%08d-0000-4000-8000-000000000000' % i for i in range(8)]
    codes = []

    def attach(instance):
        codes.append(api.post('/attachments', {'attachment': {
            'volume_uuid': volume['id'], 'instance_uuid': instance}})
            .status_code)

    threads = [threading.Thread(target=attach, args=(i,)) for i in instances]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [200] + [400] * 7
    assert len(api.get('/attachments').json()['attachments']) == 1


def test_volume_types(api):
    types = api.get('/types').json()['volume_types']
    assert [t['name'] for t in types] == ['__DEFAULT__']
    shown = api.get('/types/' + types[0]['id']).json()['volume_type']
    assert shown == types[0]
    volume = api.create_volume(size=1, volume_type=types[0]['id'])
    assert api.volume(volume['id'])['volume_type'] == '__DEFAULT__'
    _fault(api.get('/types/' + vs.INSTANCE_1), 404)


def test_metadata_files_are_json(api, server):
    volume = api.create_volume(size=1)
    path = os.path.join(server.data_dir, 'metadata', 'volumes',
                        volume['id'] + '.json')
    with open(path) as fp:
        assert json.load(fp)['status'] == 'available'


def test_update_snapshot_status_moves_only_pending_snapshots(api, server):
    # What the compute service's assisted snapshots send (Cinder's rules).
    volume = api.create_volume(size=1)
    snapshot = api.create_snapshot(volume['id'])
    while api.snapshot(snapshot['id'])['status'] == 'creating':
        time.sleep(0.05)
    action = '/snapshots/%s/action' % snapshot['id']
    _, message = _fault(api.post(action, {'os-update_snapshot_status': {
        'status': 'creating', 'progress': '90%'}}), 400)
    assert message == 'Snapshot status available not allowed for update_snapshot_status'
    _fault(api.post('/snapshots/%s/action' % vs.INSTANCE_1, {
        'os-update_snapshot_status': {'status': 'error'}}), 404)
    from nova.embedded.volume.store import SNAPSHOTS
    server.app.manager.store.update(SNAPSHOTS, snapshot['id'], status='creating')
    resp = api.post(action, {'os-update_snapshot_status': {'status': 'creating',
                                                           'progress': '90%'}})
    assert resp.status_code == 202, resp.text
    shown = api.snapshot(snapshot['id'])
    assert (shown['status'], shown['os-extended-snapshot-attributes:progress']) == (
        'creating', '90%')
    _, message = _fault(api.post(action, {'os-update_snapshot_status': {
        'status': 'deleting'}}), 400)
    assert message == ('Provided snapshot status deleting not allowed for snapshot with '
                       'status creating.')
    _fault(api.post(action, {'os-update_snapshot_status': {
        'status': 'error', 'progress': '120%'}}), 400)
    _fault(api.post(action, {'os-update_snapshot_status': {}}), 400)
    _fault(api.post(action, {'os-frobnicate': {}}), 400)
    assert api.post(action, {'os-update_snapshot_status': {'status': 'error'}}).ok
    assert api.snapshot(snapshot['id'])['status'] == 'error'
