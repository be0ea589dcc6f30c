"""Multiattach volumes through the compute API (2.60) and the embedded volume service.

The test driver cannot hot-plug disks: volumes are given at boot here, and
test_multiattach_qemu attaches and detaches them on running guests.
"""

import time

from lxml import etree

from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'
CINDER = {'OpenStack-API-Version': 'volume 3.70'}
GATE = 'Multiattach volumes are only supported starting with compute API version 2.60.'


def _cinder(aio, method, path, body=None, token='demo:demo'):
    return aio.request(method, path, body, url=aio.aio.urls['volume'], headers=CINDER,
                       token=token)


def _multiattach_type(aio):
    status, _h, body = _cinder(aio, 'GET', '/v3/admin/types', token=ADMIN)
    for vtype in body['volume_types']:
        if vtype['name'] == 'multiattach':
            return vtype
    status, _h, body = _cinder(aio, 'POST', '/v3/admin/types', {'volume_type': {
        'name': 'multiattach', 'extra_specs': {'multiattach': '<is> True'}}}, token=ADMIN)
    assert status == 200, body
    return body['volume_type']


def _volume(aio, volume_type=None):
    spec = {'size': 1}
    if volume_type:
        spec['volume_type'] = volume_type
    status, _h, body = _cinder(aio, 'POST', '/v3/demo/volumes', {'volume': spec})
    assert status == 202, body
    return _wait_volume(aio, body['volume']['id'], 'available')


def _show(aio, vid):
    status, _h, body = _cinder(aio, 'GET', '/v3/demo/volumes/' + vid)
    assert status == 200, body
    return body['volume']


def _wait_volume(aio, vid, wanted, attached=None, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        volume = _show(aio, vid)
        if volume['status'] == wanted and (
                attached is None or len(volume['attachments']) == attached):
            return volume
        assert time.monotonic() < deadline, volume
        time.sleep(0.05)


def _server(aio, image, nano, name, **extra):
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, flavor=nano, name=name, **extra), version='2.60')
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    return sid


def _attach(aio, sid, vid, version='2.60'):
    return aio.request('POST', '/servers/%s/os-volume_attachments' % sid,
                       {'volumeAttachment': {'volumeId': vid}}, version=version)


def _volume_disks(aio, sid):
    """{volume id: shareable?} of the guest's disks, live and persistent agree."""
    conn = aio.aio.services[1].manager.driver.host.get_connection()
    dom = conn.lookupByUUIDString(sid)
    found = []
    for flags in (0, 2):  # live, then VIR_DOMAIN_XML_INACTIVE
        root = etree.fromstring(dom.XMLDesc(flags).encode())
        found.append({d.findtext('serial'): d.find('shareable') is not None
                      for d in root.iter('disk') if d.findtext('serial')})
    assert found[0] == found[1], found
    return found[0]


def _wait_disks(aio, sid, wanted, timeout=30):
    deadline = time.monotonic() + timeout
    while _volume_disks(aio, sid) != wanted:
        assert time.monotonic() < deadline, _volume_disks(aio, sid)
        time.sleep(0.05)


def _listed(aio, sid):
    status, _h, body = aio.request('GET', '/servers/%s/os-volume_attachments' % sid,
                                   version='2.60')
    assert status == 200, body
    return [a['volumeId'] for a in body['volumeAttachments']]


def test_boot_with_a_multiattach_volume_needs_2_60(aio, image, nano):
    _multiattach_type(aio)
    vid = _volume(aio, 'multiattach')['id']
    bdm = [{'source_type': 'image', 'destination_type': 'local', 'uuid': image,
            'boot_index': 0},
           {'source_type': 'volume', 'destination_type': 'volume', 'uuid': vid,
            'boot_index': -1}]
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, flavor=nano, name='ma-boot', block_device_mapping_v2=bdm), version='2.59')
    assert status == 400, body
    assert body['badRequest']['message'] == GATE
    servers = [_server(aio, image, nano, 'ma-boot-%d' % i, block_device_mapping_v2=bdm)
               for i in range(2)]
    shown = _wait_volume(aio, vid, 'in-use', attached=2)
    assert sorted(a['server_id'] for a in shown['attachments']) == sorted(servers)
    for sid in servers:
        assert _volume_disks(aio, sid) == {vid: True}
        assert _listed(aio, sid) == [vid]
    # Deleting one server releases its attachment only.
    assert aio.request('DELETE', '/servers/' + servers[0], version='2.60')[0] == 204
    aio.wait_for_status(servers[0], ['DELETED'])
    shown = _wait_volume(aio, vid, 'in-use', attached=1)
    assert [a['server_id'] for a in shown['attachments']] == [servers[1]]
    assert _volume_disks(aio, servers[1]) == {vid: True}


def test_attach_gate_and_plain_volumes(aio, image, nano):
    _multiattach_type(aio)
    vid = _volume(aio, 'multiattach')['id']
    plain = _volume(aio)['id']
    sid = _server(aio, image, nano, 'gate')
    # Before 2.60 a multiattach volume is refused, nothing reserved.
    status, _h, body = _attach(aio, sid, vid, version='2.59')
    assert status == 400, body
    assert body['badRequest']['message'] == GATE
    assert _show(aio, vid)['status'] == 'available'
    assert _listed(aio, sid) == []

    # A plain volume in use by one server is refused to another, at any version.
    bdm = [{'source_type': 'image', 'destination_type': 'local', 'uuid': image,
            'boot_index': 0},
           {'source_type': 'volume', 'destination_type': 'volume', 'uuid': plain,
            'boot_index': -1}]
    owner = _server(aio, image, nano, 'plain-owner', block_device_mapping_v2=bdm)
    _wait_volume(aio, plain, 'in-use', attached=1)
    assert _volume_disks(aio, owner) == {plain: False}
    status, _h, body = _attach(aio, sid, plain)
    assert status == 400, body
    assert 'status must be available' in body['badRequest']['message']
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, flavor=nano, name='plain-2', block_device_mapping_v2=bdm), version='2.60')
    assert status == 400, body
    assert _listed(aio, sid) == []


def test_shelved_offloaded_server_refuses_multiattach(aio, image, nano):
    _multiattach_type(aio)
    vid = _volume(aio, 'multiattach')['id']
    sid = _server(aio, image, nano, 'shelved')
    assert aio.request('POST', '/servers/%s/action' % sid, {'shelve': None},
                       version='2.60')[0] == 202
    aio.wait_for_status(sid, ['SHELVED_OFFLOADED'])
    for version in ('2.59', '2.60'):
        status, _h, body = _attach(aio, sid, vid, version=version)
        assert status == 400, body
        assert body['badRequest']['message'] == (
            'Attaching multiattach volumes is not supported for shelved-offloaded '
            'instances.')
    assert _show(aio, vid)['status'] == 'available'
    assert _listed(aio, sid) == []


def test_swap_of_a_volume_with_two_writers_is_refused(aio, image, nano):
    """Upstream's guard, past the checks every swap gets (Cinder migrating the volume)."""
    _multiattach_type(aio)
    vid = _volume(aio, 'multiattach')['id']
    new = _volume(aio)['id']
    bdm = [{'source_type': 'image', 'destination_type': 'local', 'uuid': image,
            'boot_index': 0},
           {'source_type': 'volume', 'destination_type': 'volume', 'uuid': vid,
            'boot_index': -1}]
    servers = [_server(aio, image, nano, 'swap-%d' % i, block_device_mapping_v2=bdm)
               for i in range(2)]
    _wait_volume(aio, vid, 'in-use', attached=2)
    path = '/servers/%s/os-volume_attachments/%s' % (servers[0], vid)
    swap = {'volumeAttachment': {'volumeId': new}}
    # Not migrating: upstream's 409 comes first.
    assert aio.request('PUT', path, swap, version='2.60', token=ADMIN)[0] == 409
    status, _h, body = _cinder(aio, 'POST', '/v3/admin/volumes/%s/action' % vid, {
        'os-reset_status': {'migration_status': 'migrating'}}, token=ADMIN)
    assert status == 202, body
    assert _show(aio, vid)['migration_status'] == 'migrating'
    status, _h, body = aio.request('PUT', path, swap, version='2.60', token=ADMIN)
    assert status == 400, body
    assert body['badRequest']['message'] == (
        'Swapping multi-attach volumes with more than one read/write attachment is not '
        'supported.')
    # With one server left it is an ordinary swap, which this service does not do.
    assert aio.request('DELETE', '/servers/' + servers[1], version='2.60')[0] == 204
    aio.wait_for_status(servers[1], ['DELETED'])
    _wait_volume(aio, vid, 'in-use', attached=1)
    status, _h, body = aio.request('PUT', path, swap, version='2.60', token=ADMIN)
    assert status == 400, body
    assert body['badRequest']['message'] == (
        'Swapping volumes is not supported by this deployment.')
    assert _listed(aio, servers[0]) == [vid]
