"""Real QEMU guests changed behind the service's back: events, recreation, orphan guests."""

import os
import time
import uuid as uuidlib

import libvirt
import pytest

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures

pytestmark = fx.requires_libvirtd()
V = '2.105'
CINDER = {'OpenStack-API-Version': 'volume 3.44'}


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('lifecycle-qemu')
    c = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI, extra={
        ('DEFAULT', 'running_deleted_instance_poll_interval'): -1})
    c.root = c.upload_image(bootimg.write_boot_image(str(tmp / 'root.img'), 'ROOT-OK\r\n'))
    status, _h, body = c.request('POST', '/flavors', {'flavor': {
        'name': 'full', 'ram': 128, 'vcpus': 1, 'disk': 1, 'id': 'full',
        'OS-FLV-EXT-DATA:ephemeral': 1, 'swap': 64}}, token='admin:admin')
    assert status == 200, body
    c.compute = c.aio.services[1].manager
    assert c.compute.driver.lifecycle.listener.connected.wait(20)
    c.conn = libvirt.open(fx.QEMU_URI)
    yield c
    c.conn.close()
    c.stop()


def volume(cloud):
    status, _h, body = cloud.request('POST', '/v3/demo/volumes', {'volume': {'size': 1}},
                                     url=cloud.aio.urls['volume'], headers=CINDER)
    assert status == 202, body
    return wait_volume(cloud, body['volume']['id'], 'available')


def wait_volume(cloud, vid, wanted):
    deadline = time.monotonic() + 30
    while cloud.request('GET', '/v3/demo/volumes/' + vid, url=cloud.aio.urls['volume'],
                        headers=CINDER)[2]['volume']['status'] != wanted:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return vid


def server(cloud, sid):
    status, _h, body = cloud.request('GET', '/servers/' + sid, version=V)
    assert status == 200, body
    return body['server']


def console(cloud, sid):
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                     {'os-getConsoleOutput': {}}, version=V)
    assert status == 200, body
    return body['output']


def wait_console(cloud, sid, text, count, timeout=30):
    deadline = time.monotonic() + timeout
    while console(cloud, sid).count(text) < count:
        assert time.monotonic() < deadline, console(cloud, sid)
        time.sleep(0.2)


def disks(dom):
    """{target dev: (bus, device, source)} of the live definition."""
    from lxml import etree
    root = etree.fromstring(dom.XMLDesc(0).encode())
    out = {}
    for disk in root.iterfind('devices/disk'):
        source = disk.find('source')
        out[disk.find('target').get('dev')] = (
            disk.find('target').get('bus'), disk.get('device'),
            None if source is None else (source.get('file') or source.get('dev')))
    return out


def boot(cloud, **extra):
    body = dict({'name': 'lc', 'imageRef': cloud.root, 'flavorRef': '1',
                 'networks': 'none'}, **extra)
    status, _h, resp = cloud.request('POST', '/servers', {'server': body}, version=V)
    assert status == 202, resp
    sid = resp['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    return sid


def test_destroyed_then_undefined_guest_comes_back_whole_on_hard_reboot(cloud):
    v1, v2 = volume(cloud), volume(cloud)
    sid = boot(cloud, flavorRef='full', config_drive=True,
               image_props_override={'hw_disk_bus': 'scsi'},
               block_device_mapping_v2=[
                   {'source_type': 'image', 'uuid': cloud.root,
                    'destination_type': 'local', 'boot_index': 0},
                   {'source_type': 'volume', 'uuid': v1, 'destination_type': 'volume',
                    'boot_index': -1}])
    status, _h, body = cloud.request('POST', '/servers/%s/os-volume_attachments' % sid,
                                     {'volumeAttachment': {'volumeId': v2}}, version=V)
    assert status in (200, 202), body
    wait_volume(cloud, v2, 'in-use')
    wait_console(cloud, sid, 'ROOT-OK', 1)
    dom = cloud.conn.lookupByUUIDString(sid)
    before = disks(dom)
    assert len(before) == 6, before   # root, ephemeral, swap, two volumes, config drive
    assert {bus for bus, device, _s in before.values() if device == 'disk'} == {'scsi'}

    # virsh destroy behind the service's back: SHUTOFF within seconds.
    started = time.monotonic()
    dom.destroy()
    while server(cloud, sid)['status'] != 'SHUTOFF':
        assert time.monotonic() - started < 3, server(cloud, sid)
        time.sleep(0.05)
    assert server(cloud, sid)['OS-EXT-STS:power_state'] == 4

    # The definition and the config drive go too; a hard reboot rebuilds both.
    dom.undefine()
    config_drive = os.path.join(cloud.conf.instances_path, sid, 'disk.config')
    os.unlink(config_drive)
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                     {'reboot': {'type': 'HARD'}}, version=V)
    assert status == 202, body
    assert cloud.wait_for_status(sid, ['ACTIVE'])['OS-EXT-STS:power_state'] == 1
    dom = cloud.conn.lookupByUUIDString(sid)
    assert dom.isActive() and dom.isPersistent()
    assert disks(dom) == before
    assert os.path.getsize(config_drive) > 0
    wait_console(cloud, sid, 'ROOT-OK', 2)
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
    cloud.wait_for_status(sid, ['DELETED'])


def test_start_recreates_the_domain_of_a_stopped_server(cloud):
    sid = boot(cloud)
    wait_console(cloud, sid, 'ROOT-OK', 1)
    dom = cloud.conn.lookupByUUIDString(sid)
    before = disks(dom)
    dom.destroy()
    dom.undefine()
    cloud.wait_for_status(sid, ['SHUTOFF'], timeout=5)
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                     {'os-start': None}, version=V)
    assert status == 202, body
    cloud.wait_for_status(sid, ['ACTIVE'])
    assert disks(cloud.conn.lookupByUUIDString(sid)) == before
    wait_console(cloud, sid, 'ROOT-OK', 2)
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204


FOREIGN_XML = """<domain type='qemu'><name>%s</name><uuid>%s</uuid>
<memory unit='MiB'>32</memory><vcpu>1</vcpu><os><type>hvm</type></os>
<devices><serial type='pty'/></devices></domain>"""


def _exists(conn, uuid):
    try:
        conn.lookupByUUIDString(uuid)
        return True
    except libvirt.libvirtError:
        return False


def test_running_deleted_guest_is_shut_down_then_reaped_and_foreign_untouched(cloud):
    conf, compute = cloud.conf, cloud.compute
    sid = boot(cloud)
    inst_dir = os.path.join(conf.instances_path, sid)
    cloud.db.instance_destroy(sid)      # deleted in the database, guest still running
    foreign = str(uuidlib.uuid4())
    dom = cloud.conn.defineXML(FOREIGN_XML % ('foreign-%s' % foreign[:8], foreign))
    dom.create()
    try:
        conf.set_override('running_deleted_instance_action', 'shutdown')
        assert compute.lifecycle.cleanup_running_deleted_instances() == [sid]
        assert not cloud.conn.lookupByUUIDString(sid).isActive()
        assert os.path.isdir(inst_dir)

        conf.set_override('running_deleted_instance_action', 'reap')
        assert compute.lifecycle.cleanup_running_deleted_instances() == [sid]
        assert not _exists(cloud.conn, sid) and not os.path.exists(inst_dir)
        assert cloud.conn.lookupByUUIDString(foreign).isActive()
        assert compute.lifecycle.cleanup_running_deleted_instances() == []
    finally:
        conf.clear_override('running_deleted_instance_action')
        dom.destroy()
        dom.undefine()


def test_rescue_redefinitions_are_not_taken_for_outside_stops(cloud):
    sid = boot(cloud)
    for body, status in (({'rescue': {}}, 'RESCUE'), ({'unrescue': None}, 'ACTIVE'),
                         ({'reboot': {'type': 'HARD'}}, 'ACTIVE')):
        code, _h, resp = cloud.request('POST', '/servers/%s/action' % sid, body, version=V)
        assert code in (200, 202), resp
        cloud.wait_for_status(sid, [status])
        time.sleep(1.0)   # every event the operation caused has been handled
        assert server(cloud, sid)['status'] == status
        assert cloud.conn.lookupByUUIDString(sid).isActive()
    code, _h, resp = cloud.request('GET', '/servers/%s/os-instance-actions' % sid, version=V)
    assert 'stop' not in [a['action'] for a in resp['instanceActions']]
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204


def test_guest_powering_itself_off_shows_shutoff(cloud, tmp_path):
    from nova.tests.fixtures import kernelguest
    try:
        kernel, busybox = kernelguest.fetch()
    except kernelguest.KernelUnavailable as exc:
        pytest.skip('no test kernel: %s' % exc)
    initrd = str(tmp_path / 'initrd.gz')
    kernelguest.write_initrd(initrd, busybox)   # its /init ends with `poweroff -f`
    kernel_id, ramdisk_id = cloud.upload_kernel_and_ramdisk(kernel, initrd)
    image = cloud.upload_image(fixtures.tiny_disk(tmp_path / 'root.img'), name='k',
                               kernel_id=kernel_id, ramdisk_id=ramdisk_id,
                               os_command_line='console=ttyS0 quiet')
    sid = boot(cloud, imageRef=image)
    dom = cloud.conn.lookupByUUIDString(sid)
    deadline = time.monotonic() + 120
    while dom.isActive():
        assert time.monotonic() < deadline, 'the guest did not power off'
        time.sleep(0.05)
    stopped = time.monotonic()
    while server(cloud, sid)['status'] != 'SHUTOFF':
        assert time.monotonic() - stopped < 3, server(cloud, sid)
        time.sleep(0.05)
    assert kernelguest.DONE_MARKER in console(cloud, sid)
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204


def _our_event_clients():
    """libvirtd's ids of this process's read-only clients (the event listener's)."""
    import subprocess
    out = subprocess.run(['virt-admin', 'srv-clients-list', 'libvirtd'], capture_output=True,
                         text=True, check=True).stdout
    ids = [line.split()[0] for line in out.splitlines()[2:] if line.strip()]
    mine = []
    for cid in ids:
        info = subprocess.run(['virt-admin', 'client-info', 'libvirtd', cid],
                              capture_output=True, text=True, check=False).stdout
        fields = dict(line.split(':', 1) for line in info.splitlines() if ':' in line)
        fields = {k.strip(): v.strip() for k, v in fields.items()}
        if fields.get('readonly') == 'yes' and \
                fields.get('unix_process_id') == str(os.getpid()):
            mine.append(cid)
    return mine


def test_listener_reconnects_when_libvirtd_drops_it_and_resyncs(cloud):
    import shutil
    import subprocess
    if not shutil.which('virt-admin'):
        pytest.skip('virt-admin is not installed')
    sid = boot(cloud)
    listener = cloud.compute.driver.lifecycle.listener
    before = listener.reconnects
    # A change the events will not tell: only the resync after reconnecting fixes it.
    cloud.db.instance_update(sid, {'power_state': 3})
    clients = _our_event_clients()
    assert clients
    for cid in clients:       # what a libvirtd restart does to the connection
        subprocess.run(['virt-admin', 'client-disconnect', 'libvirtd', cid], check=True,
                       capture_output=True)
    deadline = time.monotonic() + 20
    while listener.reconnects == before or not listener.connected.is_set():
        assert time.monotonic() < deadline, 'the listener did not reconnect'
        time.sleep(0.05)
    while server(cloud, sid)['OS-EXT-STS:power_state'] != 1:
        assert time.monotonic() < deadline, 'no resync after reconnecting'
        time.sleep(0.05)
    # Events flow again on the new connection.
    cloud.conn.lookupByUUIDString(sid).destroy()
    started = time.monotonic()
    while server(cloud, sid)['status'] != 'SHUTOFF':
        assert time.monotonic() - started < 3, server(cloud, sid)
        time.sleep(0.05)
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
