"""os-assisted-volume-snapshots on the all-in-one (test:///default): the API contract."""

import json
import time
import urllib.parse
import uuid

import pytest

from nova.tests.functional import fixtures
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'
PATH = '/os-assisted-volume-snapshots'


def _volume(aio, wanted='available', vid=None, timeout=60):
    if vid is None:
        status, _h, body = aio.request('POST', '/os-volumes', {'volume': {'size': 1}},
                                       version='2.35')
        assert status == 200, body
        vid = body['volume']['id']
    deadline = time.monotonic() + timeout
    while True:
        body = aio.request('GET', '/os-volumes/' + vid, version='2.35')[2]
        if body['volume']['status'] == wanted:
            return vid
        assert time.monotonic() < deadline, body
        time.sleep(0.1)


@pytest.fixture(scope='module')
def attached(aio, image, nano):
    """(server id, volume id): a volume attached at boot (test:///default has no hot-plug)."""
    vid = _volume(aio)
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, name='avs', block_device_mapping_v2=[
            {'source_type': 'image', 'destination_type': 'local', 'boot_index': 0,
             'uuid': image},
            {'source_type': 'volume', 'destination_type': 'volume', 'uuid': vid}]),
        version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    _volume(aio, 'in-use', vid)
    return sid, vid


def _create(aio, volume_id, token=ADMIN, version='2.1', **info):
    create_info = dict({'snapshot_id': str(uuid.uuid4()), 'type': 'qcow2',
                        'new_file': 'new_file'}, **info)
    return aio.request('POST', PATH, {'snapshot': {'volume_id': volume_id,
                                                   'create_info': create_info}},
                       version=version, token=token)[::2]


def _delete(aio, query, snapshot_id='snap', token=ADMIN, version='2.1'):
    url = '%s/%s?%s' % (PATH, snapshot_id, urllib.parse.urlencode(query))
    return aio.request('DELETE', url, version=version, token=token)[::2]


def _info(**values):
    return {'delete_info': json.dumps(values)}


def test_create_echoes_the_optional_id_and_the_volume(aio, attached):
    sid, vid = attached
    status, body = _create(aio, vid, id='caller-id', new_file='avs-1.qcow2')
    assert (status, body) == (200, {'snapshot': {'id': 'caller-id', 'volumeId': vid}})
    # Without create_info's id, upstream answers a null id (tempest deletes ".../None").
    status, body = _create(aio, vid, new_file='avs-2.qcow2', version='2.100')
    assert (status, body) == (200, {'snapshot': {'id': None, 'volumeId': vid}})
    # The work is cast; whatever the host makes of it, the server stays usable.
    time.sleep(0.5)
    server = aio.wait_for_status(sid, ['ACTIVE'])
    assert server['OS-EXT-STS:task_state'] is None


def test_delete_is_204_and_tempest_delete_info_does_not_break_the_server(aio, attached):
    sid, vid = attached
    # What tempest sends: no type, so the host refuses the merge after the 204.
    assert _delete(aio, _info(volume_id=vid), snapshot_id='None')[0] == 204
    status, _body = _delete(aio, _info(volume_id=vid, type='qcow2', file_to_merge=None,
                                       merge_target_file=None), version='2.100')
    assert status == 204
    time.sleep(0.5)
    assert aio.wait_for_status(sid, ['ACTIVE'])['OS-EXT-STS:task_state'] is None


def test_volume_not_attached_is_400(aio, attached):
    vid = _volume(aio)
    status, body = _create(aio, vid)
    assert status == 400
    assert body['badRequest']['message'] == \
        'No volume Block Device Mapping with id %s.' % vid
    status, body = _delete(aio, _info(volume_id=vid))
    assert status == 400 and vid in body['badRequest']['message']
    status, body = _create(aio, str(uuid.uuid4()))
    assert status == 400


@pytest.mark.parametrize('create_info', [
    {'type': 'qcow2', 'new_file': 'f'},                       # no snapshot_id
    {'snapshot_id': 's', 'type': 'raw', 'new_file': 'f'},     # only qcow2
    {'snapshot_id': 's', 'type': 'qcow2'},                    # no new_file
    {'snapshot_id': 's', 'type': 'qcow2', 'new_file': ''},    # empty
    {'snapshot_id': 's', 'type': 'qcow2', 'new_file': 'f', 'extra': 1},
    {'snapshot_id': 's', 'type': 'qcow2', 'new_file': 'f', 'id': 5},
])
def test_bad_create_info_is_400(aio, attached, create_info):
    status, _h, body = aio.request('POST', PATH, {'snapshot': {
        'volume_id': attached[1], 'create_info': create_info}}, token=ADMIN)
    assert status == 400 and body['badRequest']['message'], body


@pytest.mark.parametrize('body', [
    {}, {'snapshot': {}}, {'snapshot': {'volume_id': 'v'}},
    {'snapshot': {'create_info': {'snapshot_id': 's', 'type': 'qcow2', 'new_file': 'f'}}},
    {'snapshot': {'volume_id': '', 'create_info': {
        'snapshot_id': 's', 'type': 'qcow2', 'new_file': 'f'}}},
    {'snapshot': {'volume_id': 'v', 'create_info': {}, 'x': 1}},
])
def test_bad_create_body_is_400(aio, body):
    status, _h, answer = aio.request('POST', PATH, body, token=ADMIN)
    assert status == 400 and answer['badRequest']['message'], answer


def test_bad_delete_info_is_400_with_upstreams_messages(aio, attached):
    vid = attached[1]
    assert _delete(aio, {}) == (400, {'badRequest': {'code': 400,
                                                     'message': "'delete_info'"}})
    status, body = _delete(aio, {'delete_info': 'not json'})
    assert status == 400 and body['badRequest']['message'].startswith('Expecting value')
    status, body = _delete(aio, _info(type='qcow2'))
    assert status == 400 and body['badRequest']['message'] == "'volume_id'"
    status, body = _delete(aio, {'delete_info': json.dumps([vid])})
    assert status == 400, body


def test_unknown_query_parameters_are_refused_from_2_75(aio, attached):
    query = dict(_info(volume_id=attached[1]), other='x')
    assert _delete(aio, query, version='2.74')[0] == 204
    status, body = _delete(aio, query, version='2.75')
    assert status == 400 and 'other' in body['badRequest']['message'], body


def test_plain_users_are_refused(aio, attached):
    vid = attached[1]
    assert _create(aio, vid, token='demo:demo')[0] == 403
    assert _delete(aio, _info(volume_id=vid), token='demo:demo')[0] == 403


def test_other_methods(aio):
    status, _h, _b = aio.request('GET', PATH, token=ADMIN)
    assert status == 405
    status, _h, _b = aio.request('GET', PATH + '/x', token=ADMIN)
    assert status == 405


def test_server_without_a_host_is_400(aio, image):
    # Scheduling fails (no host has the memory): the server is ERROR with no host.
    status, _h, body = aio.request('POST', '/flavors', {'flavor': {
        'name': 'huge', 'id': 'huge', 'ram': 1024 * 1024 * 64, 'vcpus': 1, 'disk': 0}},
        token=ADMIN)
    assert status == 200, body
    vid = _volume(aio)
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, flavor='huge', name='nohost', block_device_mapping_v2=[
            {'source_type': 'image', 'destination_type': 'local', 'boot_index': 0,
             'uuid': image},
            {'source_type': 'volume', 'destination_type': 'volume', 'uuid': vid}]),
        version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ERROR'])
    status, body = _create(aio, vid)
    assert status == 400
    assert body['badRequest']['message'] == 'Instance %s is not ready' % sid
    status, body = _delete(aio, _info(volume_id=vid))
    assert status == 400 and 'is not ready' in body['badRequest']['message']


def test_compute_rpc_pinned_below_1_4_is_400(tmp_path):
    pinned = fixtures.RunningAio(tmp_path / 'pinned',
                                 extra={('upgrade_levels', 'compute'): '1.3'})
    try:
        image = pinned.upload_image(fixtures.tiny_disk(tmp_path / 'disk.raw'),
                                    token=ADMIN, visibility='public')
        status, _h, body = pinned.request('POST', '/flavors', {'flavor': {
            'name': 'nano', 'id': 'nano', 'ram': 1, 'vcpus': 1, 'disk': 0}}, token=ADMIN)
        assert status == 200, body
        vid = _volume(pinned)
        status, _h, body = pinned.request('POST', '/servers', server_body(
            image, name='pinned', block_device_mapping_v2=[
                {'source_type': 'image', 'destination_type': 'local', 'boot_index': 0,
                 'uuid': image},
                {'source_type': 'volume', 'destination_type': 'volume', 'uuid': vid}]),
            version='2.37')
        assert status == 202, body
        pinned.wait_for_status(body['server']['id'], ['ACTIVE'])
        status, body = _create(pinned, vid)
        assert status == 400 and 'pins it to 1.3' in body['badRequest']['message'], body
        assert _delete(pinned, _info(volume_id=vid))[0] == 400
    finally:
        pinned.stop()
