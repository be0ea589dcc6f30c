"""The embedded image endpoint over real HTTP: Glance v2 wire format and failure handling."""

import hashlib
import json
import os
import socket
import threading
import uuid

import pytest
import requests

from nova.embedded.image import store
from nova.tests.unit.embedded import image_server

PATCH_21 = 'application/openstack-images-v2.1-json-patch'
PATCH_20 = 'application/openstack-images-v2.0-json-patch'
KERNEL_ID = '8a1f3ffb-1f1a-4a4e-9d5b-0d0f3e0f3a11'
RAMDISK_ID = '0b5e2b0e-9c8e-4a51-a0a8-2b8d0b3c7e21'
# Fixed, so pytest-xdist workers collect identical parametrized ids.
UNKNOWN_ID = '5d3b1c8e-4f39-4a51-9d34-7e9c1b2a0f00'


@pytest.fixture
def server(tmp_path):
    srv = image_server.ImageServer(str(tmp_path / 'images'))
    yield srv
    srv.stop()


def _patch(server, image_id, ops, media_type=PATCH_21):
    return requests.patch('%s/v2/images/%s' % (server.url, image_id),
                          data=json.dumps(ops),
                          headers={'Content-Type': media_type})


# -- versions and schemas ---------------------------------------------------

def test_versions_document_points_at_v2(server):
    root = requests.get(server.url + '/')
    assert root.status_code == 300
    versions = root.json()['versions']
    assert versions[0]['id'] == 'v2.7'
    assert versions[0]['status'] == 'CURRENT'
    assert {v['status'] for v in versions[1:]} == {'SUPPORTED'}
    href = versions[0]['links'][0]['href']
    assert href == server.url + '/v2/'
    assert requests.get(href).status_code == 300
    explicit = requests.get(server.url + '/versions')
    assert explicit.status_code == 200
    assert explicit.json() == root.json()


def test_schemas_are_served(server):
    image = requests.get(server.url + '/v2/schemas/image').json()
    assert image['name'] == 'image'
    assert image['additionalProperties'] == {'type': 'string'}
    assert 'os_hash_value' in image['properties']
    images = requests.get(server.url + '/v2/schemas/images').json()
    assert images['name'] == 'images'
    assert requests.get(server.url + '/v2/schemas/nope').status_code == 404


def test_unknown_route_and_wrong_method(server):
    assert requests.get(server.url + '/v3/images').status_code == 404
    resp = requests.post(server.url + '/v2/images/%s' % uuid.uuid4())
    assert resp.status_code == 405
    assert resp.headers['Allow'] == 'DELETE, GET, PATCH'


# -- create and show --------------------------------------------------------

def test_create_returns_glance_image(server):
    resp = requests.post(
        server.url + '/v2/images',
        json={'name': 'cirros', 'disk_format': 'qcow2',
              'container_format': 'bare', 'min_ram': 64, 'tags': ['a', 'a'],
              'kernel_id': KERNEL_ID, 'ramdisk_id': RAMDISK_ID,
              'hw_disk_bus': 'scsi'},
        headers={'X-Auth-Token': 'u1:p1'})
    assert resp.status_code == 201
    image = resp.json()
    assert resp.headers['Location'].endswith('/v2/images/' + image['id'])
    assert resp.headers['x-openstack-request-id'].startswith('req-')
    expected = {
        'name': 'cirros', 'status': 'queued', 'visibility': 'shared',
        'protected': False, 'os_hidden': False, 'checksum': None,
        'os_hash_algo': None, 'os_hash_value': None, 'size': None,
        'virtual_size': None, 'min_disk': 0, 'min_ram': 64,
        'disk_format': 'qcow2', 'container_format': 'bare', 'owner': 'p1',
        'tags': ['a'], 'kernel_id': KERNEL_ID, 'ramdisk_id': RAMDISK_ID,
        'hw_disk_bus': 'scsi', 'self': '/v2/images/' + image['id'],
        'file': '/v2/images/%s/file' % image['id'],
        'schema': '/v2/schemas/image'}
    assert {k: image[k] for k in expected} == expected
    assert set(image) == set(expected) | {'id', 'created_at', 'updated_at'}
    assert image['created_at'].endswith('Z')
    shown = requests.get(server.url + image['self'],
                         headers={'X-Auth-Token': 'u1:p1'})
    assert shown.json() == image


def test_create_with_id_and_duplicate(server):
    image_id = str(uuid.uuid4())
    assert server.create(id=image_id)['id'] == image_id
    resp = requests.post(server.url + '/v2/images', json={'id': image_id})
    assert resp.status_code == 409


@pytest.mark.parametrize('body,status', [
    ({'status': 'active'}, 403),
    ({'checksum': 'x'}, 403),
    ({'size': 1}, 403),
    ({'self': '/x'}, 403),
    ({'os_glance_foo': 'x'}, 403),
    ({'deleted': 'x'}, 403),
    ({'locations': []}, 403),
    ({'foo': 1}, 400),
    ({'kernel_id': 'not-a-uuid'}, 400),
    ({'id': 'not-a-uuid'}, 400),
    ({'disk_format': 'exe'}, 400),
    ({'visibility': 'everyone'}, 400),
    ({'min_ram': -1}, 400),
    ({'protected': 'yes'}, 400),
    ({'x' * 256: 'long'}, 400),
    ([], 400),
])
def test_create_rejects_like_glance(server, body, status):
    resp = requests.post(server.url + '/v2/images', json=body,
                         headers={'Accept': 'application/json'})
    assert resp.status_code == status, resp.text
    assert requests.get(server.url + '/v2/images').json()['images'] == []


def test_create_rejects_malformed_json(server):
    resp = requests.post(server.url + '/v2/images', data='{nope',
                         headers={'Content-Type': 'application/json'})
    assert resp.status_code == 400
    assert 'Malformed JSON' in resp.text


def test_errors_are_webob_json_when_asked(server):
    resp = requests.get('%s/v2/images/%s' % (server.url, uuid.uuid4()),
                        headers={'Accept': 'application/json'})
    assert resp.status_code == 404
    body = resp.json()
    assert body['code'] == '404 Not Found'
    assert 'No image found with ID' in body['message']


@pytest.mark.parametrize('method,suffix', [
    ('GET', ''), ('DELETE', ''), ('GET', '/file'), ('PUT', '/file'), ('GET', '/tasks')])
def test_missing_image_is_404(server, method, suffix):
    url = '%s/v2/images/%s%s' % (server.url, uuid.uuid4(), suffix)
    resp = requests.request(method, url, data=b'x' if method == 'PUT' else None,
                            headers={'Content-Type': 'application/octet-stream'})
    assert resp.status_code == 404


def test_image_tasks_are_an_empty_list(server):
    # Glance API 2.12; tempest waits on it after every backup and snapshot.
    image = requests.post(server.url + '/v2/images', json={'name': 't'},
                          headers={'X-Auth-Token': 'u1:p1'}).json()
    resp = requests.get('%s/v2/images/%s/tasks' % (server.url, image['id']),
                        headers={'X-Auth-Token': 'u1:p1'})
    assert resp.status_code == 200 and resp.json() == {'tasks': []}
    # Another project's private image is not there for the caller.
    resp = requests.get('%s/v2/images/%s/tasks' % (server.url, image['id']),
                        headers={'X-Auth-Token': 'u2:p2'})
    assert resp.status_code == 404


def test_patch_missing_image_is_404(server):
    assert _patch(server, uuid.uuid4(),
                  [{'op': 'replace', 'path': '/name', 'value': 'x'}]
                  ).status_code == 404


# -- upload and download ----------------------------------------------------

def test_upload_then_download(server):
    image = server.create(name='data', kernel_id=KERNEL_ID)
    data = os.urandom(200 * 1024 + 7)
    resp = server.upload(image['id'], data)
    assert resp.status_code == 204
    shown = server.show(image['id'])
    assert shown['status'] == 'active'
    assert shown['size'] == shown['virtual_size'] == len(data)
    assert shown['checksum'] == hashlib.md5(data).hexdigest()
    assert shown['os_hash_algo'] == 'sha512'
    assert shown['os_hash_value'] == hashlib.sha512(data).hexdigest()
    assert shown['kernel_id'] == KERNEL_ID
    got = requests.get(server.url + shown['file'])
    assert got.status_code == 200
    assert got.content == data
    assert got.headers['Content-MD5'] == shown['checksum']
    assert got.headers['Content-Type'] == 'application/octet-stream'
    assert int(got.headers['Content-Length']) == len(data)
    assert server.data_files() == [image['id']]


def test_chunked_upload(server):
    image = server.create()
    parts = [b'a' * 70000, b'b' * 3, b'c' * 65536]
    assert server.upload(image['id'], iter(parts)).status_code == 204
    shown = server.show(image['id'])
    assert shown['size'] == sum(len(p) for p in parts)
    assert shown['checksum'] == hashlib.md5(b''.join(parts)).hexdigest()


def test_qcow2_virtual_size_from_header(server):
    image = server.create(disk_format='qcow2')
    header = (b'QFI\xfb' + (3).to_bytes(4, 'big') + bytes(16)
              + (10 * 1024 ** 3).to_bytes(8, 'big'))
    server.upload(image['id'], header + bytes(100))
    assert server.show(image['id'])['virtual_size'] == 10 * 1024 ** 3


def test_download_without_data_is_204(server):
    image = server.create()
    resp = requests.get(server.url + image['file'])
    assert resp.status_code == 204
    assert resp.content == b''


def test_upload_to_active_image_is_409(server):
    image = server.create()
    server.upload(image['id'], b'first')
    resp = server.upload(image['id'], b'second')
    assert resp.status_code == 409
    assert 'active to saving' in resp.text
    assert requests.get(server.url + image['file']).content == b'first'


def test_upload_needs_formats(server):
    resp = requests.post(server.url + '/v2/images', json={'name': 'bare'})
    image = resp.json()
    upload = server.upload(image['id'], b'data')
    assert upload.status_code == 400
    assert 'disk_format, container_format' in upload.text
    assert server.show(image['id'])['status'] == 'queued'


def test_upload_needs_octet_stream(server):
    image = server.create()
    resp = requests.put(server.url + image['file'], data=b'x',
                        headers={'Content-Type': 'text/plain'})
    assert resp.status_code == 415
    assert server.show(image['id'])['status'] == 'queued'


def test_upload_size_hint_mismatch_leaves_nothing(server):
    image = server.create()
    resp = requests.put(server.url + image['file'], data=b'12345',
                        headers={'Content-Type': 'application/octet-stream',
                                 'X-OpenStack-Image-Size': '6'})
    assert resp.status_code == 400
    assert server.show(image['id'])['status'] == 'queued'
    assert server.data_files() == []


def test_short_body_leaves_no_image(server):
    image = server.create()
    sock = server.open_upload(image['id'], announced=100000,
                              first_part=b'x' * 5000)
    # The client stops sending: the server sees end-of-body too early.
    sock.shutdown(socket.SHUT_WR)
    assert image_server.read_status(sock) == 400
    sock.close()
    shown = server.show(image['id'])
    assert shown['status'] == 'queued'
    assert shown['size'] is None and shown['checksum'] is None
    assert server.data_files() == []
    # The image is not stuck: a complete upload still works.
    assert server.upload(image['id'], b'complete').status_code == 204


def test_client_disconnect_mid_body_leaves_no_image(server):
    image = server.create()
    sock = server.open_upload(image['id'], announced=1 << 20,
                              first_part=b'y' * 70000)
    server.wait_for_status(image['id'], 'saving')
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                    b'\x01\x00\x00\x00\x00\x00\x00\x00')
    sock.close()  # abortive close: RST
    server.recorder.wait_for('PUT', '/file')
    assert server.show(image['id'])['status'] == 'queued'
    assert server.data_files() == []


def test_only_one_upload_wins(server):
    image = server.create()
    sock = server.open_upload(image['id'], announced=10, first_part=b'01234')
    server.wait_for_status(image['id'], 'saving')
    assert server.upload(image['id'], b'other').status_code == 409
    sock.sendall(b'56789')
    assert image_server.read_status(sock) == 204
    sock.close()
    assert requests.get(server.url + image['file']).content == b'0123456789'


def test_delete_during_upload_is_410_and_cleans_up(server):
    image = server.create()
    sock = server.open_upload(image['id'], announced=10, first_part=b'01234')
    server.wait_for_status(image['id'], 'saving')
    assert requests.delete(server.url + image['self']).status_code == 204
    sock.sendall(b'56789')
    assert image_server.read_status(sock) == 410
    sock.close()
    assert server.data_files() == []


# -- PATCH ------------------------------------------------------------------

def test_patch_v21(server):
    image = server.create(name='old', foo='1', kernel_id=KERNEL_ID)
    resp = _patch(server, image['id'], [
        {'op': 'replace', 'path': '/name', 'value': 'new'},
        {'op': 'add', 'path': '/bar', 'value': '2'},
        {'op': 'add', 'path': '/foo', 'value': '3'},
        {'op': 'remove', 'path': '/kernel_id'},
        {'op': 'replace', 'path': '/tags', 'value': ['t1', 't2']},
        {'op': 'replace', 'path': '/protected', 'value': True},
        {'op': 'add', 'path': '/a~1b', 'value': 'slash'},
    ])
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body['name'] == 'new'
    assert body['bar'] == '2' and body['foo'] == '3'
    assert 'kernel_id' not in body
    assert body['tags'] == ['t1', 't2']
    assert body['protected'] is True
    assert body['a/b'] == 'slash'
    assert server.show(image['id']) == body


def test_patch_v20_draft4_format(server):
    image = server.create(name='old', foo='1')
    resp = _patch(server, image['id'], [
        {'replace': '/name', 'value': 'new'},
        {'add': '/bar', 'value': '2'},
        {'remove': '/foo'},
    ], media_type=PATCH_20)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert (body['name'], body['bar'], 'foo' in body) == ('new', '2', False)
    # Draft 4 'add' refuses to overwrite; draft 10 'add' replaces.
    assert _patch(server, image['id'], [{'add': '/bar', 'value': '3'}],
                  media_type=PATCH_20).status_code == 409


@pytest.mark.parametrize('ops,status', [
    ([{'op': 'replace', 'path': '/nope', 'value': 'x'}], 409),
    ([{'op': 'remove', 'path': '/nope'}], 409),
    ([{'op': 'remove', 'path': '/name'}], 403),
    ([{'op': 'replace', 'path': '/status', 'value': 'active'}], 403),
    ([{'op': 'replace', 'path': '/id', 'value': UNKNOWN_ID}], 403),
    ([{'op': 'replace', 'path': '/checksum', 'value': 'x'}], 403),
    ([{'op': 'add', 'path': '/os_glance_x', 'value': 'x'}], 403),
    ([{'op': 'add', 'path': '/foo', 'value': 1}], 400),
    ([{'op': 'add', 'path': '/kernel_id', 'value': 'bad'}], 400),
    ([{'op': 'replace', 'path': '/min_ram', 'value': -5}], 400),
    ([{'op': 'move', 'path': '/name'}], 400),
    ([{'op': 'add', 'path': '/tags/-', 'value': 'x'}], 400),
    ([{'op': 'add', 'path': 'name', 'value': 'x'}], 400),
    ([{'op': 'add', 'path': '/name'}], 400),
    ({'op': 'add'}, 400),
    (['x'], 400),
])
def test_patch_rejects_like_glance(server, ops, status):
    image = server.create(name='keep')
    resp = _patch(server, image['id'], ops)
    assert resp.status_code == status, resp.text
    assert server.show(image['id']) == image


def test_patch_is_all_or_nothing(server):
    image = server.create(name='keep')
    resp = _patch(server, image['id'], [
        {'op': 'replace', 'path': '/name', 'value': 'changed'},
        {'op': 'remove', 'path': '/missing'}])
    assert resp.status_code == 409
    assert server.show(image['id'])['name'] == 'keep'


def test_patch_needs_patch_media_type(server):
    image = server.create()
    resp = _patch(server, image['id'], [], media_type='application/json')
    assert resp.status_code == 415
    assert resp.headers['Accept-Patch'] == ', '.join([PATCH_20, PATCH_21])


def test_disk_format_frozen_once_active(server):
    image = server.create()
    server.upload(image['id'], b'data')
    resp = _patch(server, image['id'],
                  [{'op': 'replace', 'path': '/disk_format', 'value': 'qcow2'}])
    assert resp.status_code == 403


# -- delete -----------------------------------------------------------------

def test_delete_removes_record_and_data(server):
    image = server.create()
    server.upload(image['id'], b'data')
    assert requests.delete(server.url + image['self']).status_code == 204
    assert requests.get(server.url + image['self']).status_code == 404
    assert server.data_files() == []


def test_protected_image_cannot_be_deleted(server):
    image = server.create(protected=True)
    resp = requests.delete(server.url + image['self'])
    assert resp.status_code == 403
    assert 'is protected' in resp.text
    _patch(server, image['id'],
           [{'op': 'replace', 'path': '/protected', 'value': False}])
    assert requests.delete(server.url + image['self']).status_code == 204


# -- list -------------------------------------------------------------------

def _names(server, query=''):
    body = requests.get(server.url + '/v2/images' + query).json()
    return [i['name'] for i in body['images']]


def test_list_body_and_newest_first(server):
    for name in ('a', 'b', 'c'):
        server.create(name=name)
    body = requests.get(server.url + '/v2/images').json()
    assert body['schema'] == '/v2/schemas/images'
    assert body['first'] == '/v2/images'
    assert 'next' not in body
    assert [i['name'] for i in body['images']] == ['c', 'b', 'a']


def test_list_pagination_follows_next(server):
    for index in range(5):
        server.create(name='img%d' % index)
    names, url = [], server.url + '/v2/images?limit=2&name=in:img0,img1,img2,img3,img4'
    pages = 0
    while url:
        body = requests.get(url).json()
        names += [i['name'] for i in body['images']]
        url = server.url + body['next'] if 'next' in body else None
        pages += 1
    assert names == ['img4', 'img3', 'img2', 'img1', 'img0']
    assert pages == 3
    first = requests.get(server.url + '/v2/images?limit=2').json()
    assert first['first'] == '/v2/images?limit=2'
    assert first['next'].startswith('/v2/images?limit=2&marker=')


def test_list_filters(server):
    a = server.create(name='a', tags=['x', 'y'], foo='1')
    server.create(name='b', visibility='public', tags=['x'],
                  token='admin:admin')
    # Another project's community image: only listed when asked for.
    server.create(name='c', visibility='community', token='other:other')
    server.create(name='d', os_hidden=True)
    server.create(name='e', protected=True)
    server.upload(a['id'], b'data')
    assert _names(server, '?name=a') == ['a']
    assert _names(server, '?status=active') == ['a']
    assert _names(server, '?visibility=public') == ['b']
    assert sorted(_names(server)) == ['a', 'b', 'e']
    assert sorted(_names(server, '?visibility=all')) == ['a', 'b', 'c', 'e']
    assert _names(server, '?os_hidden=true') == ['d']
    assert _names(server, '?tag=x&tag=y') == ['a']
    assert sorted(_names(server, '?tag=x')) == ['a', 'b']
    assert _names(server, '?foo=1') == ['a']
    assert _names(server, '?protected=true') == ['e']
    assert _names(server, '?id=in:%s' % a['id']) == ['a']
    assert _names(server, '?size_min=4&size_max=4') == ['a']
    assert _names(server, '?sort_key=name&sort_dir=asc') == ['a', 'b', 'e']
    assert _names(server, '?sort=name:desc') == ['e', 'b', 'a']


@pytest.mark.parametrize('query', [
    '?limit=x', '?limit=-1', '?sort_key=bogus', '?sort_dir=up',
    '?visibility=nope', '?marker=' + UNKNOWN_ID, '?os_hidden=maybe',
    '?changes-since=2020-01-01', '?sort=name&sort_key=name',
])
def test_list_rejects_bad_queries(server, query):
    assert requests.get(server.url + '/v2/images' + query).status_code == 400


# -- persistence and concurrency --------------------------------------------

def test_records_survive_restart(server, tmp_path):
    image = server.create(name='persist', foo='bar')
    server.upload(image['id'], b'data')
    expected = server.show(image['id'])
    reopened = store.ImageStore(server.data_dir)
    record = reopened.get(image['id'])
    assert record['status'] == 'active'
    assert record['checksum'] == expected['checksum']
    assert record['properties'] == {'foo': 'bar'}


def test_restart_rolls_back_interrupted_upload(tmp_path):
    images = store.ImageStore(str(tmp_path))
    record = images.create(dict(store.new_record(), disk_format='raw',
                                container_format='bare'))
    images.begin_upload(record['id'])
    leftover = os.path.join(str(tmp_path), 'data', '.x.part')
    open(leftover, 'wb').close()
    open(images.data_path(record['id']), 'wb').close()
    reopened = store.ImageStore(str(tmp_path))
    assert reopened.get(record['id'])['status'] == 'queued'
    assert os.listdir(os.path.join(str(tmp_path), 'data')) == []


def test_parallel_creates_and_patches(server):
    errors = []

    def work(index):
        try:
            image = server.create(name='p%d' % index)
            resp = _patch(server, image['id'],
                          [{'op': 'add', 'path': '/n', 'value': str(index)}])
            assert resp.status_code == 200
        except Exception as exc:  # collected for the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    images = requests.get(server.url + '/v2/images?limit=100').json()['images']
    assert sorted(int(i['n']) for i in images) == list(range(20))
