"""Fixes found by tempest classes run without a network: list, swap, request id, snapshot."""

import time
import uuid

import pytest

from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'


@pytest.fixture(scope='module')
def server(aio, image, nano):
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='netless'),
                                   version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    return sid


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


@pytest.mark.parametrize('path', ['/servers', '/servers/detail'])
def test_unknown_status_is_an_empty_list_before_2_38(aio, server, path):
    # tempest ServersAdminTestJSON.test_list_servers_detailed_filter_by_invalid_status.
    for version in ('2.1', '2.37'):
        status, _h, body = aio.request('GET', path + '?status=invalid_status',
                                       version=version, token=ADMIN)
        assert status == 200, body
        assert body['servers'] == []
    status, _h, body = aio.request('GET', path + '?status=invalid_status', version='2.38')
    assert status == 400 and body['badRequest']['message'] == 'Invalid status value'
    # A known status still filters at every version.
    for version in ('2.1', '2.38'):
        listed = aio.request('GET', path + '?status=active', version=version)[2]['servers']
        assert server in [s['id'] for s in listed]


def test_swap_answers_404_for_what_is_not_attached_then_400(aio, image, nano):
    # tempest VolumesAdminNegativeTest.test_update_attached_volume_with_nonexistent_volume_in_uri.
    vid = _volume(aio)
    # Attached at boot (test:///default has no hot-plug).
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, name='swap', block_device_mapping_v2=[
            {'source_type': 'image', 'destination_type': 'local', 'boot_index': 0,
             'uuid': image},
            {'source_type': 'volume', 'destination_type': 'volume', 'uuid': vid}]),
        version='2.37')
    assert status == 202, body
    server = body['server']['id']
    aio.wait_for_status(server, ['ACTIVE'])
    path = '/servers/%s/os-volume_attachments' % server
    _volume(aio, 'in-use', vid)
    swap = {'volumeAttachment': {'volumeId': vid}}
    for version in ('2.1', '2.84'):
        status, _h, body = aio.request('PUT', '%s/%s' % (path, uuid.uuid4()), swap,
                                       version=version, token=ADMIN)
        assert status == 404 and 'could not be found' in body['itemNotFound']['message']
        status, _h, body = aio.request(
            'PUT', '/servers/%s/os-volume_attachments/%s' % (uuid.uuid4(), vid), swap,
            version=version, token=ADMIN)
        assert status == 404, body
        # Upstream serves a swap only to Cinder, for a volume it is migrating.
        status, _h, body = aio.request('PUT', '%s/%s' % (path, vid), swap, version=version,
                                       token=ADMIN)
        assert status == 409, body
        assert body['conflictingRequest']['message'] == (
            'volume %s is not migrating; this API should only be called by Cinder' % vid)
        # The swap policy: Cinder's service user or an administrator.
        status, _h, body = aio.request('PUT', '%s/%s' % (path, vid), swap, version=version)
        assert status == 403, body
        for bad in ({}, {'volumeAttachment': {}},
                    {'volumeAttachment': {'volumeId': vid, 'device': '/dev/vdc'}}):
            status, _h, body = aio.request('PUT', '%s/%s' % (path, vid), bad,
                                           version=version, token=ADMIN)
            assert status == 400 and body['badRequest']['message'], bad
    # 2.85: an update naming another volume is a swap (409 as above); an immutable
    # field sent back changed is 400 with upstream's message.
    other = _volume(aio)
    status, _h, body = aio.request('PUT', '%s/%s' % (path, vid), {'volumeAttachment': {
        'volumeId': other}}, version='2.85', token=ADMIN)
    assert status == 409 and 'is not migrating' in body['conflictingRequest']['message']
    status, _h, body = aio.request('PUT', '%s/%s' % (path, vid), {'volumeAttachment': {
        'volumeId': vid, 'tag': 'changed'}}, version='2.85')
    assert status == 400 and body['badRequest']['message'] == 'The tag property is not mutable'
    # Nothing changed: still attached, as it was.
    listed = aio.request('GET', path)[2]['volumeAttachments']
    assert [a['volumeId'] for a in listed] == [vid]
    assert aio.request('DELETE', '/servers/' + server)[0] == 204
    _volume(aio, 'available', vid)


def test_compute_request_id_header_on_every_answer(aio, server):
    # tempest InstanceActionsTestJSON reads x-compute-request-id from the create answer.
    status, headers, body = aio.request('POST', '/servers', server_body('bad-image'))
    assert status == 400
    assert headers['x-compute-request-id'] == headers['x-openstack-request-id']
    status, headers, body = aio.request('GET', '/servers/' + server)
    req_id = headers['x-compute-request-id']
    assert status == 200 and req_id.startswith('req-')
    assert req_id == headers['x-openstack-request-id']
    # It is the id the server's actions record.
    status, headers, body = aio.request('POST', '/servers/%s/action' % server,
                                        {'reboot': {'type': 'HARD'}})
    assert status == 202
    aio.wait_for_status(server, ['ACTIVE'])
    actions = aio.request('GET', '/servers/%s/os-instance-actions' % server)[2]
    assert headers['x-compute-request-id'] in [a['request_id']
                                               for a in actions['instanceActions']]


def test_create_image_metadata_may_set_image_type(aio, server):
    # tempest ImagesOneServerTestJSON.test_create_delete_image.
    status, headers, body = aio.request(
        'POST', '/servers/%s/action' % server,
        {'createImage': {'name': 'typed', 'metadata': {'image_type': 'test'}}})
    assert status == 202, body
    image_id = headers['Location'].rsplit('/', 1)[1]
    deadline = time.monotonic() + 60
    while True:
        image = aio.request('GET', '/images/' + image_id)[2]['image']
        if image['status'] == 'ACTIVE':
            break
        assert time.monotonic() < deadline, image
        time.sleep(0.1)
    assert image['metadata']['image_type'] == 'test'
    assert image['metadata']['instance_uuid'] == server
    aio.wait_for_status(server, ['ACTIVE'])
    assert aio.request('DELETE', '/images/' + image_id)[0] == 204


@pytest.mark.parametrize('before,after', [('AUTO', 'MANUAL'), ('MANUAL', 'AUTO')])
def test_resize_sets_the_requested_disk_config(aio, image, nano, before, after):
    # tempest ServerDiskConfigTestJSON.test_resize_server_from_auto_to_manual (and back).
    status, _h, body = aio.request('POST', '/flavors', {'flavor': {
        'name': 'nano-' + after, 'ram': 2, 'vcpus': 1, 'disk': 0}}, token=ADMIN)
    assert status == 200, body
    bigger = body['flavor']['id']
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, name='dcf', **{'OS-DCF:diskConfig': before}), version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    assert aio.wait_for_status(sid, ['ACTIVE'])['OS-DCF:diskConfig'] == before
    path = '/servers/%s/action' % sid
    status, _h, body = aio.request('POST', path, {'resize': {
        'flavorRef': bigger, 'OS-DCF:diskConfig': 'SOMETIMES'}})
    assert status == 400, body
    assert aio.request('GET', '/servers/' + sid)[2]['server']['OS-DCF:diskConfig'] == before
    status, _h, body = aio.request('POST', path, {'resize': {
        'flavorRef': bigger, 'OS-DCF:diskConfig': after}})
    assert status == 202, body
    assert aio.wait_for_status(sid, ['VERIFY_RESIZE'])['OS-DCF:diskConfig'] == after
    assert aio.request('POST', path, {'confirmResize': None})[0] == 204
    assert aio.wait_for_status(sid, ['ACTIVE'])['OS-DCF:diskConfig'] == after
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204


def test_server_ips_without_a_network_service(aio, server):
    # tempest's volume attach and server address tests read GET /servers/{id}/ips.
    status, _h, body = aio.request('GET', '/servers/%s/ips' % server)
    assert status == 200 and body == {'addresses': {}}
    status, _h, body = aio.request('GET', '/servers/%s/ips/private' % server)
    assert status == 404, body
    assert body['itemNotFound']['message'] == 'Instance is not a member of specified network'
    status, _h, body = aio.request('GET', '/servers/%s/ips' % uuid.uuid4())
    assert status == 404, body
    # Another project's server is not found for this project's reader.
    status, _h, body = aio.request('GET', '/servers/%s/ips' % server, token='alt:alt')
    assert status in (403, 404), body


def test_boot_from_a_volume_that_is_not_bootable_is_400(aio, image, nano):
    # tempest ServersNegativeTestJSON.test_create_server_from_non_bootable_volume.
    vid = _volume(aio)
    root = [{'source_type': 'volume', 'destination_type': 'volume', 'boot_index': 0,
             'uuid': vid}]
    before = len(aio.db.instance_get_all({}))
    status, _h, body = aio.request('POST', '/servers', server_body(
        '', name='nonboot', block_device_mapping_v2=root), version='2.37')
    assert status == 400, body
    assert body['badRequest']['message'] == 'Block Device %s is not bootable.' % vid
    assert len(aio.db.instance_get_all({})) == before
    _volume(aio, 'available', vid)
    # The same volume as a data disk beside an image root boots.
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, name='data', block_device_mapping_v2=[
            {'source_type': 'image', 'destination_type': 'local', 'boot_index': 0,
             'uuid': image}, dict(root[0], boot_index=-1)]), version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    _volume(aio, 'available', vid)
    # Once the volume is marked bootable, it is the boot device.
    status, _h, body = aio.request(
        'POST', '/v3/demo/volumes/%s/action' % vid, {'os-set_bootable': {'bootable': True}},
        url=aio.aio.urls['volume'], headers={'OpenStack-API-Version': 'volume 3.44'})
    assert status == 200, body
    status, _h, body = aio.request('POST', '/servers', server_body(
        '', name='boot', block_device_mapping_v2=root), version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204


def _snapshot(aio, vid, timeout=60):
    status, _h, body = aio.request('POST', '/os-snapshots', {'snapshot': {
        'volume_id': vid, 'display_name': 'rootsnap'}}, version='2.35')
    assert status == 200, body
    snap = body['snapshot']['id']
    deadline = time.monotonic() + timeout
    while aio.request('GET', '/os-snapshots/' + snap, version='2.35')[2][
            'snapshot']['status'] != 'available':
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return snap


def _set_bootable(aio, vid, bootable):
    status, _h, body = aio.request(
        'POST', '/v3/demo/volumes/%s/action' % vid, {'os-set_bootable': {'bootable': bootable}},
        url=aio.aio.urls['volume'], headers={'OpenStack-API-Version': 'volume 3.44'})
    assert status == 200, body


def test_boot_from_a_snapshot_of_a_volume_that_is_not_bootable_is_400(aio, image, nano):
    # As upstream's _get_bdm_image_metadata: a snapshot has no bootable flag of its
    # own; its source volume's counts, and the 400 names that volume.
    status, _h, body = aio.request('POST', '/v3/demo/volumes', {'volume': {
        'size': 1, 'imageRef': image}}, url=aio.aio.urls['volume'],
        headers={'OpenStack-API-Version': 'volume 3.44'})
    assert status == 202, body
    vid = _volume(aio, vid=body['volume']['id'])
    _set_bootable(aio, vid, False)
    snap = _snapshot(aio, vid)
    root = [{'source_type': 'snapshot', 'destination_type': 'volume', 'boot_index': 0,
             'uuid': snap, 'volume_size': 1, 'delete_on_termination': True}]
    before = len(aio.db.instance_get_all({}))
    status, _h, body = aio.request('POST', '/servers', server_body(
        '', name='snapnonboot', block_device_mapping_v2=root), version='2.37')
    assert status == 400, body
    assert body['badRequest']['message'] == 'Block Device %s is not bootable.' % vid
    assert len(aio.db.instance_get_all({})) == before
    # Once the source volume is bootable, the snapshot boots, with the properties
    # of the image the volume was made from.
    _set_bootable(aio, vid, True)
    status, _h, body = aio.request('POST', '/servers', server_body(
        '', name='snapboot', block_device_mapping_v2=root), version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    assert aio.db.instance_get(sid)['system_metadata'].get('image_os_distro') == 'cirros'
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    aio.wait_for_status(sid, ['DELETED'])
