"""A multiattach volume on two running QEMU guests: shared disk, detach one keeps the other."""

import time

import libvirt
import pytest
from lxml import etree

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures

pytestmark = fx.requires_libvirtd()
V = '2.60'
CINDER = {'OpenStack-API-Version': 'volume 3.70'}


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('multiattach')
    c = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI,
                            extra={('libvirt', 'device_detach_timeout'): 20})
    # The guest ejects a disk when asked, as an OS does.
    c.root = c.upload_image(bootimg.write_boot_image(str(tmp / 'root.img'), 'MA-OK\r\n',
                                                     ack_unplug=True))
    status, _h, body = c.request('POST', '/flavors', {'flavor': {
        'name': 'ma', 'ram': 64, 'vcpus': 1, 'disk': 1, 'id': 'ma'}}, token='admin:admin')
    assert status == 200, body
    yield c
    c.stop()


def _cinder(cloud, method, path, body=None, token='demo:demo'):
    return cloud.request(method, path, body, url=cloud.aio.urls['volume'], headers=CINDER,
                         token=token)


def _wait_volume(cloud, vid, status, attached, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        volume = _cinder(cloud, 'GET', '/v3/demo/volumes/' + vid)[2]['volume']
        if volume['status'] == status and len(volume['attachments']) == attached:
            return volume
        assert time.monotonic() < deadline, volume
        time.sleep(0.1)


def _shared_disks(sid):
    """{target dev: shareable?} of the running guest's volume disks."""
    conn = libvirt.open(fx.QEMU_URI)
    try:
        root = etree.fromstring(conn.lookupByUUIDString(sid).XMLDesc(0).encode())
    finally:
        conn.close()
    return {d.find('target').get('dev'): d.find('shareable') is not None
            for d in root.iter('disk') if d.findtext('serial')}


def test_one_volume_on_two_running_guests(cloud):
    status, _h, body = _cinder(cloud, 'POST', '/v3/admin/types', {'volume_type': {
        'name': 'multiattach', 'extra_specs': {'multiattach': '<is> True'}}},
        token='admin:admin')
    assert status == 200, body
    status, _h, body = _cinder(cloud, 'POST', '/v3/demo/volumes', {'volume': {
        'size': 1, 'volume_type': 'multiattach'}})
    assert status == 202, body
    vid = body['volume']['id']
    _wait_volume(cloud, vid, 'available', 0)
    servers = []
    for name in ('ma-a', 'ma-b'):
        status, _h, body = cloud.request('POST', '/servers', {'server': {
            'name': name, 'imageRef': cloud.root, 'flavorRef': 'ma', 'networks': 'none'}},
            version=V)
        assert status == 202, body
        servers.append(body['server']['id'])
    for sid in servers:
        cloud.wait_for_status(sid, ['ACTIVE'])

    # QEMU opens the one file in both guests (libvirt refuses an unshared
    # second writer): each attach completes and the volume lists both.
    for count, sid in enumerate(servers, 1):
        status, _h, body = cloud.request('POST', '/servers/%s/os-volume_attachments' % sid,
                                         {'volumeAttachment': {'volumeId': vid}}, version=V)
        assert status == 200, body
        _wait_volume(cloud, vid, 'in-use', count)
    for sid in servers:
        assert _shared_disks(sid) == {'vdb': True}
        assert not cloud.db.faults_latest([sid])

    first, second = servers
    assert cloud.request('DELETE', '/servers/%s/os-volume_attachments/%s' % (first, vid),
                         version=V)[0] == 202
    volume = _wait_volume(cloud, vid, 'in-use', 1)
    assert [a['server_id'] for a in volume['attachments']] == [second]
    deadline = time.monotonic() + 20
    while _shared_disks(first):
        assert time.monotonic() < deadline, _shared_disks(first)
        time.sleep(0.1)
    assert _shared_disks(second) == {'vdb': True}

    assert cloud.request('DELETE', '/servers/%s/os-volume_attachments/%s' % (second, vid),
                         version=V)[0] == 202
    _wait_volume(cloud, vid, 'available', 0)
    assert _shared_disks(second) == {}
    for sid in servers:
        assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
        cloud.wait_for_status(sid, ['DELETED'])
