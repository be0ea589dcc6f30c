"""Volumes end to end on real QEMU: every disk kind at boot, hot attach/detach, snapshot."""

import json
import os
import time

import libvirt
import pytest

from nova.api.metadata import requester
from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures
from nova.tests.functional import test_metadata_api as md

pytestmark = fx.requires_libvirtd()
V = '2.100'
CINDER = {'OpenStack-API-Version': 'volume 3.44'}


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('volumes')
    # The test guests run no OS, so they never acknowledge a hot-unplug.
    c = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI, extra={
        ('libvirt', 'device_detach_timeout'): 2,
        # The metadata API, as behind Neutron's proxy, answering fresh each time.
        ('neutron', 'service_metadata_proxy'): True,
        ('neutron', 'metadata_proxy_shared_secret'): md.SECRET,
        ('api', 'metadata_cache_expiration'): 0})
    c.root = c.upload_image(bootimg.write_boot_image(str(tmp / 'root.img'), 'ROOT-OK\r\n'))
    status, _h, body = c.request('POST', '/flavors', {'flavor': {
        'name': 'full', 'ram': 128, 'vcpus': 1, 'disk': 1, 'id': 'full',
        'OS-FLV-EXT-DATA:ephemeral': 1, 'swap': 64}}, token='admin:admin')
    assert status == 200, body
    yield c
    c.stop()


def volume(cloud, size=1):
    status, _h, body = cloud.request('POST', '/v3/demo/volumes', {'volume': {'size': size}},
                                     url=cloud.aio.urls['volume'], headers=CINDER)
    assert status == 202, body
    return wait_volume(cloud, body['volume']['id'], 'available')


def wait_volume(cloud, vid, status, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = cloud.request('GET', '/v3/demo/volumes/' + vid, url=cloud.aio.urls['volume'],
                             headers=CINDER)[2]
        if body['volume']['status'] == status:
            return body['volume']
        time.sleep(0.1)
    raise AssertionError('volume %s not %s: %s' % (vid, status, body))


def targets(sid):
    conn = libvirt.open(fx.QEMU_URI)
    try:
        dom = conn.lookupByUUIDString(sid)
        return ({t[0]: t[1:3] for t in fx.disk_targets(dom.XMLDesc(0))},
                {t[0]: t[1:3] for t in fx.disk_targets(dom.XMLDesc(
                    libvirt.VIR_DOMAIN_XML_INACTIVE))})
    finally:
        conn.close()


def pci_addresses(sid):
    """{target dev: dddd:bb:ss.f} of the running domain's disks, read from libvirt."""
    from lxml import etree
    conn = libvirt.open(fx.QEMU_URI)
    try:
        root = etree.fromstring(conn.lookupByUUIDString(sid).XMLDesc(0).encode())
    finally:
        conn.close()
    found = {}
    for disk in root.iterfind('devices/disk'):
        addr = disk.find('address')
        if addr is not None and addr.get('type') == 'pci':
            found[disk.find('target').get('dev')] = '%04x:%02x:%02x.%x' % tuple(
                int(addr.get(k), 16) for k in ('domain', 'bus', 'slot', 'function'))
    return found


def metadata_devices(cloud, sid, version='latest'):
    """The "devices" of the server's meta_data.json, asked as Neutron's proxy asks."""
    headers = {'X-Instance-ID': sid, 'X-Forwarded-For': '10.77.0.41',
               'X-Tenant-ID': cloud.db.instance_get(sid)['project_id'],
               'X-Instance-ID-Signature': requester.sign(md.SECRET, sid)}
    status, _h, body = md.call(cloud.aio.urls['metadata'],
                               '/openstack/%s/meta_data.json' % version, headers)
    assert status == 200, body
    return json.loads(body)['devices']


def test_tagged_disks_are_in_the_metadata_at_their_guest_addresses(cloud):
    data, late = volume(cloud), volume(cloud)
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'tagged', 'imageRef': cloud.root, 'flavorRef': '1', 'networks': 'none',
        'config_drive': True, 'block_device_mapping_v2': [
            {'source_type': 'image', 'uuid': cloud.root, 'destination_type': 'local',
             'boot_index': 0, 'tag': 'root'},
            {'source_type': 'volume', 'uuid': data['id'], 'destination_type': 'volume',
             'boot_index': -1, 'tag': 'data'}]}}, version='2.42')
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    addresses = pci_addresses(sid)
    assert set(addresses) == {'vda', 'vdb'}
    expected = [{'type': 'disk', 'bus': 'pci', 'address': addresses['vda'], 'serial': None,
                 'tags': ['root']},
                {'type': 'disk', 'bus': 'pci', 'address': addresses['vdb'],
                 'serial': data['id'], 'tags': ['data']}]
    assert metadata_devices(cloud, sid) == expected
    # The config drive, written once the domain was defined, lists them as well.
    drive = fx.read_iso_files(os.path.join(cloud.conf.instances_path, sid, 'disk.config'))
    assert json.loads(drive['openstack/latest/meta_data.json'])['devices'] == expected
    # The first version with tagged devices lists them the same way.
    assert metadata_devices(cloud, sid, '2016-06-30') == expected
    assert 'devices' not in json.loads(md.call(
        cloud.aio.urls['metadata'], '/openstack/2015-10-15/meta_data.json', {
            'X-Instance-ID': sid, 'X-Forwarded-For': '10.77.0.41',
            'X-Tenant-ID': cloud.db.instance_get(sid)['project_id'],
            'X-Instance-ID-Signature': requester.sign(md.SECRET, sid)})[2])

    # A volume hot-plugged with a tag (2.49) is listed at the address libvirt gave it.
    status, _h, body = cloud.request('POST', '/servers/%s/os-volume_attachments' % sid, {
        'volumeAttachment': {'volumeId': late['id'], 'tag': 'late'}}, version='2.49')
    assert status == 200, body
    wait_volume(cloud, late['id'], 'in-use')
    addresses = pci_addresses(sid)
    assert metadata_devices(cloud, sid) == expected + [
        {'type': 'disk', 'bus': 'pci', 'address': addresses['vdc'], 'serial': late['id'],
         'tags': ['late']}]
    # Detached (stopped: the test guest runs no OS to acknowledge a hot-unplug), it is gone.
    cloud.request('POST', '/servers/%s/action' % sid, {'os-stop': None}, version=V)
    cloud.wait_for_status(sid, ['SHUTOFF'])
    assert cloud.request('DELETE', '/servers/%s/os-volume_attachments/%s' % (
        sid, late['id']), version=V)[0] == 202
    wait_volume(cloud, late['id'], 'available')
    assert metadata_devices(cloud, sid) == expected
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
    cloud.wait_for_status(sid, ['DELETED'])
    wait_volume(cloud, data['id'], 'available')


def test_every_disk_kind_then_hot_attach_and_detach(cloud):
    v1, v2, v3 = volume(cloud), volume(cloud), volume(cloud)
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'disks', 'imageRef': cloud.root, 'flavorRef': 'full', 'networks': 'none',
        'config_drive': True, 'block_device_mapping_v2': [
            {'source_type': 'image', 'uuid': cloud.root, 'destination_type': 'local',
             'boot_index': 0},
            {'source_type': 'volume', 'uuid': v1['id'], 'destination_type': 'volume',
             'boot_index': -1},
            {'source_type': 'volume', 'uuid': v2['id'], 'destination_type': 'volume',
             'boot_index': -1}]}}, version=V)
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    live, _persistent = targets(sid)
    assert live == {'vda': ('virtio', 'disk'), 'vdb': ('virtio', 'disk'),
                    'vdc': ('virtio', 'disk'), 'vdd': ('virtio', 'disk'),
                    'vde': ('virtio', 'disk'), 'hdd': ('ide', 'cdrom')}
    status, _h, body = cloud.request('GET', '/servers/%s/os-volume_attachments' % sid,
                                     version='2.89')
    devices = {a['volumeId']: a['device'] for a in body['volumeAttachments']}
    assert devices == {v1['id']: '/dev/vdd', v2['id']: '/dev/vde'}
    assert wait_volume(cloud, v1['id'], 'in-use')['attachments'][0]['server_id'] == sid

    # Hot-plug a third volume into the running guest, then remove it.
    status, _h, body = cloud.request('POST', '/servers/%s/os-volume_attachments' % sid,
                                     {'volumeAttachment': {'volumeId': v3['id']}}, version=V)
    assert status == 200, body
    assert body['volumeAttachment']['device'] == '/dev/vdf'
    wait_volume(cloud, v3['id'], 'in-use')
    live, persistent = targets(sid)
    assert live['vdf'] == ('virtio', 'disk') and persistent['vdf'] == ('virtio', 'disk')
    # A Xen device name (tempest asks for /dev/xvdb) is accepted as upstream
    # accepts it, and the next name of the guest's bus is used instead.
    v4 = volume(cloud)
    status, _h, body = cloud.request('POST', '/servers/%s/os-volume_attachments' % sid,
                                     {'volumeAttachment': {'volumeId': v4['id'],
                                                           'device': '/dev/xvdb'}},
                                     version=V)
    assert status == 200, body
    assert body['volumeAttachment']['device'] == '/dev/vdg'
    wait_volume(cloud, v4['id'], 'in-use')

    # Names survive a hard reboot (the persistent definition is the truth).
    status, _h, _b = cloud.request('POST', '/servers/%s/action' % sid,
                                   {'reboot': {'type': 'HARD'}}, version=V)
    assert status == 202
    cloud.wait_for_status(sid, ['ACTIVE'])
    assert set(targets(sid)[0]) == {'vda', 'vdb', 'vdc', 'vdd', 'vde', 'vdf', 'vdg', 'hdd'}

    # A guest that does not release the disk keeps it: consistent on all sides.
    assert cloud.request('DELETE', '/servers/%s/os-volume_attachments/%s' % (sid, v3['id']),
                         version=V)[0] == 202
    deadline = time.monotonic() + 20
    while not cloud.db.faults_latest([sid]):
        assert time.monotonic() < deadline, 'detach did not finish'
        time.sleep(0.2)
    assert 'did not release' in cloud.db.faults_latest([sid])[sid]['message']
    assert wait_volume(cloud, v3['id'], 'in-use')
    assert 'vdf' in targets(sid)[1]
    assert cloud.request('GET', '/servers/%s/os-volume_attachments/%s' % (sid, v3['id']),
                         version=V)[0] == 200

    # Stopped, the detach is a change of definition only, and completes.
    cloud.request('POST', '/servers/%s/action' % sid, {'os-stop': None}, version=V)
    cloud.wait_for_status(sid, ['SHUTOFF'])
    assert cloud.request('DELETE', '/servers/%s/os-volume_attachments/%s' % (sid, v3['id']),
                         version=V)[0] == 202
    wait_volume(cloud, v3['id'], 'available')
    assert 'vdf' not in targets(sid)[1]
    status, _h, body = cloud.request('DELETE', '/servers/%s/os-volume_attachments/%s'
                                     % (sid, v3['id']), version=V)
    assert status == 404

    # A failed attach (volume in use elsewhere) is refused before any change.
    status, _h, body = cloud.request('POST', '/servers/%s/os-volume_attachments' % sid,
                                     {'volumeAttachment': {'volumeId': v1['id']}}, version=V)
    assert status == 400

    cloud.request('POST', '/servers/%s/action' % sid, {'os-start': None}, version=V)
    cloud.wait_for_status(sid, ['ACTIVE'])
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
    cloud.wait_for_status(sid, ['DELETED'])
    wait_volume(cloud, v1['id'], 'available')
    wait_volume(cloud, v2['id'], 'available')


def test_boot_from_volume_and_delete_on_termination(cloud):
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'bfv', 'flavorRef': '1', 'networks': 'none', 'block_device_mapping_v2': [
            {'source_type': 'image', 'uuid': cloud.root, 'destination_type': 'volume',
             'volume_size': 1, 'boot_index': 0, 'delete_on_termination': True}]}},
        version=V)
    assert status == 202, body
    sid = body['server']['id']
    server = cloud.wait_for_status(sid, ['ACTIVE'])
    assert server['image'] == ''
    vid = server['os-extended-volumes:volumes_attached'][0]['id']
    deadline = time.monotonic() + 20
    while 'ROOT-OK' not in cloud.request('POST', '/servers/%s/action' % sid,
                                         {'os-getConsoleOutput': {}})[2]['output']:
        assert time.monotonic() < deadline, 'the volume root did not boot'
        time.sleep(0.2)
    assert cloud.request('DELETE', '/servers/%s/os-volume_attachments/%s' % (sid, vid),
                         version=V)[0] == 400
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
    cloud.wait_for_status(sid, ['DELETED'])
    deadline = time.monotonic() + 20
    while cloud.request('GET', '/v3/demo/volumes/' + vid, url=cloud.aio.urls['volume'],
                        headers=CINDER)[0] != 404:
        assert time.monotonic() < deadline, 'delete_on_termination volume still there'
        time.sleep(0.2)


def _console_has(cloud, sid, text, timeout=20):
    deadline = time.monotonic() + timeout
    while text not in cloud.request('POST', '/servers/%s/action' % sid,
                                    {'os-getConsoleOutput': {}})[2]['output']:
        assert time.monotonic() < deadline, 'no %r on the console of %s' % (text, sid)
        time.sleep(0.2)


def test_a_volume_backed_snapshot_boots_a_server_from_its_volume_snapshot(cloud):
    """Upstream's image-defined BDM: createImage of a volume-backed server snapshots
    its volume into an empty image that maps it; a server booted from that image
    boots from a new volume made from the snapshot (tempest's
    test_image_defined_boot_from_volume)."""
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'bfv-src', 'flavorRef': '1', 'networks': 'none', 'block_device_mapping_v2': [
            {'source_type': 'image', 'uuid': cloud.root, 'destination_type': 'volume',
             'volume_size': 1, 'boot_index': 0, 'delete_on_termination': True}]}},
        version=V)
    assert status == 202, body
    src = body['server']['id']
    server = cloud.wait_for_status(src, ['ACTIVE'])
    (src_vol,) = [a['id'] for a in server['os-extended-volumes:volumes_attached']]
    status, _h, body = cloud.request('POST', '/servers/%s/action' % src,
                                     {'createImage': {'name': 'bfv-snap'}}, version=V)
    assert status == 202, body
    image = cloud.request('GET', '/v2/images/' + body['image_id'], url=cloud.image_url)[2]
    assert image['status'] == 'active' and image['size'] == 0, image
    assert image['bdm_v2'] == 'True' and image['root_device_name'] == '/dev/vda'
    (mapping,) = json.loads(image['block_device_mapping'])
    assert mapping['source_type'] == 'snapshot' and mapping['boot_index'] == 0
    snapshot = cloud.request('GET', '/v3/demo/snapshots/' + mapping['snapshot_id'],
                             url=cloud.aio.urls['volume'], headers=CINDER)[2]['snapshot']
    assert snapshot['volume_id'] == src_vol
    # The source server is untouched.
    assert cloud.wait_for_status(src, ['ACTIVE'])['OS-EXT-STS:task_state'] is None

    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'from-snap', 'imageRef': image['id'], 'flavorRef': '1',
        'networks': 'none'}}, version=V)
    assert status == 202, body
    sid = body['server']['id']
    server = cloud.wait_for_status(sid, ['ACTIVE'])
    (new_vol,) = [a['id'] for a in server['os-extended-volumes:volumes_attached']]
    assert new_vol != src_vol and server['image']['id'] == image['id']
    made = wait_volume(cloud, new_vol, 'in-use')
    assert made['snapshot_id'] == mapping['snapshot_id']
    assert made['attachments'][0]['server_id'] == sid
    # It boots the snapshot's contents: the volume, not a local disk.
    assert set(targets(sid)[0]) == {'vda'}
    _console_has(cloud, sid, 'ROOT-OK')
    for server_id in (sid, src):
        assert cloud.request('DELETE', '/servers/' + server_id)[0] == 204
        cloud.wait_for_status(server_id, ['DELETED'])
    deadline = time.monotonic() + 20
    while cloud.request('GET', '/v3/demo/volumes/' + new_vol, url=cloud.aio.urls['volume'],
                        headers=CINDER)[0] != 404:
        assert time.monotonic() < deadline, 'delete_on_termination volume still there'
        time.sleep(0.2)


def test_snapshot_uploads_an_image_and_keeps_the_server(cloud):
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'snap', 'imageRef': cloud.root, 'flavorRef': '1', 'networks': 'none'}},
        version=V)
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                     {'createImage': {'name': 'snap-1',
                                                      'metadata': {'k': 'v'}}}, version=V)
    assert status == 202, body
    image_id = body['image_id']
    deadline = time.monotonic() + 30
    while True:
        image = cloud.request('GET', '/v2/images/' + image_id, url=cloud.image_url)[2]
        if image['status'] == 'active':
            break
        assert time.monotonic() < deadline, image
        time.sleep(0.2)
    assert image['k'] == 'v' and image['image_type'] == 'snapshot'
    assert image['instance_uuid'] == sid and image['disk_format'] == 'qcow2'
    # The image turns active a moment before the host clears the task state.
    deadline = time.monotonic() + 30
    while cloud.wait_for_status(sid, ['ACTIVE'])['OS-EXT-STS:task_state'] is not None:
        assert time.monotonic() < deadline, 'task_state never cleared after the snapshot'
        time.sleep(0.1)
    cloud.request('DELETE', '/servers/' + sid)


def test_failed_attach_leaves_the_volume_available_and_the_guest_unchanged(cloud):
    vol = volume(cloud)
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'att', 'imageRef': cloud.root, 'flavorRef': '1', 'networks': 'none'}},
        version=V)
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    before = targets(sid)
    # IDE cannot be hot-plugged into a running guest: the host refuses it.
    status, _h, body = cloud.request('POST', '/servers/%s/os-volume_attachments' % sid,
                                     {'volumeAttachment': {'volumeId': vol['id'],
                                                           'device': '/dev/hdb'}}, version=V)
    assert status == 200, body
    deadline = time.monotonic() + 20
    while not cloud.db.faults_latest([sid]):
        assert time.monotonic() < deadline, 'the attach did not finish'
        time.sleep(0.1)
    wait_volume(cloud, vol['id'], 'available')
    attachments = cloud.request('GET', '/servers/%s/os-volume_attachments' % sid,
                                version=V)[2]['volumeAttachments']
    assert attachments == []
    assert targets(sid) == before
    assert cloud.request('GET', '/servers/' + sid)[2]['server']['status'] == 'ACTIVE'
    cloud.request('DELETE', '/servers/' + sid)


def test_a_guest_that_acknowledges_unplug_releases_the_volume(cloud, tmp_path):
    """The compat guests eject on request (as an OS does): a running detach completes,
    after a rebuild too, and the disk is gone from the live and persistent domain."""
    image = cloud.upload_image(bootimg.write_boot_image(
        str(tmp_path / 'ack.img'), 'ACK-OK\r\n', ack_unplug=True))
    vol = volume(cloud)
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'ack', 'imageRef': image, 'flavorRef': 'full', 'networks': 'none'}},
        version=V)
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    path = '/servers/%s/os-volume_attachments' % sid
    for rebuild in (False, True):
        status, _h, body = cloud.request('POST', path, {'volumeAttachment': {
            'volumeId': vol['id']}}, version=V)
        assert status == 200, body
        dev = body['volumeAttachment']['device'][len('/dev/'):]
        wait_volume(cloud, vol['id'], 'in-use')
        if rebuild:
            status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                             {'rebuild': {'imageRef': image}}, version=V)
            assert status == 202, body
            cloud.wait_for_status(sid, ['ACTIVE'])
            assert wait_volume(cloud, vol['id'], 'in-use')['attachments'][0][
                'server_id'] == sid
        live, persistent = targets(sid)
        assert dev in live and dev in persistent
        assert cloud.request('DELETE', '%s/%s' % (path, vol['id']), version=V)[0] == 202
        wait_volume(cloud, vol['id'], 'available', timeout=20)
        live, persistent = targets(sid)
        assert dev not in live and dev not in persistent
        assert not cloud.db.faults_latest([sid])
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
    cloud.wait_for_status(sid, ['DELETED'])
