"""Stable-device rescue through the API on real libvirtd + QEMU (TCG) guests."""

import logging
import os
import time

import pytest
from lxml import etree

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures

pytestmark = fx.requires_libvirtd()
V = '2.106'
ROOT = 'ROOT-DISK-OK'
RESCUE = 'RESCUE-MEDIA-OK'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('rescue')
    c = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI)
    c.root = c.upload_image(bootimg.write_boot_image(str(tmp / 'root.img'), ROOT + '\r\n'),
                            name='root')
    disk = bootimg.write_boot_image(str(tmp / 'rescue.img'), RESCUE + '\r\n')
    iso = bootimg.write_boot_iso(str(tmp / 'rescue.iso'), RESCUE + '\r\n')
    floppy = bootimg.write_boot_floppy(str(tmp / 'rescue.fd'), RESCUE + '\r\n')
    c.images = {
        ('usb', 'disk'): c.upload_image(disk, hw_rescue_bus='usb', hw_rescue_device='disk'),
        ('virtio', 'disk'): c.upload_image(disk, hw_rescue_bus='virtio'),
        ('scsi', 'disk'): c.upload_image(disk, hw_rescue_bus='scsi', hw_scsi_model='virtio-scsi'),
        ('ide', 'disk'): c.upload_image(disk, hw_rescue_bus='ide', hw_rescue_device='disk'),
        ('ide', 'cdrom'): c.upload_image(iso, disk_format='iso', hw_rescue_bus='ide',
                                         hw_rescue_device='cdrom'),
        ('sata', 'cdrom'): c.upload_image(iso, disk_format='iso', hw_rescue_device='cdrom'),
        ('fdc', 'floppy'): c.upload_image(floppy, hw_rescue_bus='fdc',
                                          hw_rescue_device='floppy'),
        'legacy': c.upload_image(disk, name='legacy'),
        'raw-cdrom': c.upload_image(disk, hw_rescue_bus='ide', hw_rescue_device='cdrom'),
        'broken': c.upload_image(disk, disk_format='qcow2', hw_rescue_bus='usb'),
    }
    status, _h, body = c.request('POST', '/flavors', {'flavor': {
        'name': 'full', 'ram': 128, 'vcpus': 1, 'disk': 1, 'id': 'full',
        'OS-FLV-EXT-DATA:ephemeral': 1, 'swap': 64}}, token='admin:admin')
    assert status == 200, body
    yield c
    c.stop()


def act(cloud, sid, body, version=V):
    status, _h, resp = cloud.request('POST', '/servers/%s/action' % sid, body, version=version)
    return status, resp


def console(cloud, sid):
    return act(cloud, sid, {'os-getConsoleOutput': {}})[1]['output']


def wait_console(cloud, sid, text, count, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if console(cloud, sid).count(text) >= count:
            return
        time.sleep(0.1)
    raise AssertionError('%s x%d not seen: %r' % (text, count, console(cloud, sid)))


def boot(cloud, flavor='1', overrides=None, bdms=None, config_drive=False, image=None):
    server = {'name': 'r', 'flavorRef': flavor, 'networks': 'none',
              'config_drive': config_drive}
    if image is not False:
        server['imageRef'] = image or cloud.root
    if overrides:
        server['image_props_override'] = overrides
    if bdms:
        server['block_device_mapping_v2'] = bdms
    status, _h, body = cloud.request('POST', '/servers', {'server': server}, version=V)
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    wait_console(cloud, sid, ROOT, 1)
    return sid


def _disks(xml):
    return fx.disk_targets(xml)


def _controllers(xml):
    root = etree.fromstring(xml.encode())
    return {(c.get('type'), c.get('index')) for c in root.iter('controller')}


def _without_rescue(xml, rescued=True, controllers=None):
    """The domain minus the rescue disk and every boot order: what must not change.

    libvirt keeps disks grouped by bus in the XML it reports, so the rescue
    disk (appended last in the XML the driver defines) is found by its boot
    order here.
    """
    root = etree.fromstring(xml.encode())
    for disk in root.findall('devices/disk'):
        boot = disk.find('boot')
        if rescued and boot is not None and boot.get('order') == '1':
            disk.getparent().remove(disk)
    for boot in root.iter('boot'):
        boot.getparent().remove(boot)
    root.attrib.pop('id', None)
    # libvirt adds the controller a new bus needs (e.g. the chipset's IDE or
    # the floppy controller) when the rescue disk brings that bus.
    for ctrl in list(root.iter('controller')):
        if controllers is not None and (ctrl.get('type'), ctrl.get('index')) not in controllers:
            ctrl.getparent().remove(ctrl)
    for elem in root.iter('source', 'backingStore'):
        elem.attrib.pop('index', None)
    # The VNC port is chosen at each start (autoport); another guest may
    # take the old one in between.
    for elem in root.iter('graphics'):
        elem.attrib.pop('port', None)
    # Run-time details that differ between two starts of the same domain.
    return fx.canon_xml(etree.tostring(root), drop=('//seclabel', '//alias'))


def _root_target(xml):
    return next(d[0] for d in _disks(xml) if d[0] in ('vda', 'sda', 'hda'))


def rescue_round_trip(cloud, sid, image, expect_bus, expect_device):
    before = fx.live_xml(sid)
    status, body = act(cloud, sid, {'rescue': {'rescue_image_ref': image}})
    assert status == 200, body
    assert set(body) == {'adminPass'}
    server = cloud.wait_for_status(sid, ['RESCUE'])
    assert server['OS-EXT-STS:vm_state'] == 'rescued'
    wait_console(cloud, sid, RESCUE, 1)
    rescued = fx.live_xml(sid)
    disks = _disks(rescued)
    rescue = [d for d in disks if d[3] == '1']
    assert [d[1:3] for d in rescue] == [(expect_bus, expect_device)]
    # Every other disk keeps its target and bus; the root boots second.
    others = [d for d in disks if d[3] != '1']
    assert sorted(d[:3] for d in others) == sorted(d[:3] for d in _disks(before))
    root_dev = _root_target(before)
    assert [d[3] for d in others if d[0] == root_dev] == ['2']
    assert _without_rescue(rescued, controllers=_controllers(before)) == \
        _without_rescue(before, rescued=False)
    instance_dir = os.path.join(cloud.conf.instances_path, sid)
    assert os.path.exists(os.path.join(instance_dir, 'disk.rescue'))
    assert act(cloud, sid, {'unrescue': None})[0] == 202
    cloud.wait_for_status(sid, ['ACTIVE'])
    wait_console(cloud, sid, ROOT, 2)
    assert _disks(fx.live_xml(sid)) == _disks(before)
    # The exact pre-rescue definition is back and no rescue artefact remains.
    assert _without_rescue(fx.live_xml(sid), rescued=False) == \
        _without_rescue(before, rescued=False)
    assert not os.path.exists(os.path.join(instance_dir, 'disk.rescue'))
    assert not os.path.exists(os.path.join(instance_dir, 'unrescue.xml'))
    return rescued


@pytest.mark.parametrize('combo,overrides,expect', [
    (('usb', 'disk'), None, ('usb', 'disk')),
    (('virtio', 'disk'), None, ('virtio', 'disk')),
    (('scsi', 'disk'), None, ('scsi', 'disk')),
    (('ide', 'disk'), None, ('ide', 'disk')),
    (('ide', 'cdrom'), None, ('ide', 'cdrom')),
    (('sata', 'cdrom'), {'hw_machine_type': 'q35'}, ('sata', 'cdrom')),
    (('fdc', 'floppy'), None, ('fdc', 'floppy')),
])
def test_stable_rescue_boots_the_rescue_media(cloud, combo, overrides, expect):
    sid = boot(cloud, overrides=overrides)
    rescue_round_trip(cloud, sid, cloud.images[combo], *expect)
    cloud.request('DELETE', '/servers/' + sid)


def _volume_bdms(count):
    return [{'source_type': 'blank', 'destination_type': 'volume', 'volume_size': 1,
             'boot_index': -1, 'delete_on_termination': True} for _ in range(count)]


def test_stable_rescue_keeps_every_disk(cloud):
    sid = boot(cloud, flavor='full', bdms=_volume_bdms(2), config_drive=True)
    normal = _disks(fx.live_xml(sid))
    assert len(normal) == 6  # root, ephemeral, swap, two volumes, config drive
    rescued = rescue_round_trip(cloud, sid, cloud.images[('usb', 'disk')], 'usb', 'disk')
    assert sorted(d[:3] for d in _disks(rescued) if d[3] != '1') == sorted(
        d[:3] for d in normal)
    status, _h, body = cloud.request('GET', '/servers/%s/os-volume_attachments' % sid,
                                     version='2.89')
    assert len(body['volumeAttachments']) == 2
    cloud.request('DELETE', '/servers/' + sid)


def test_legacy_rescue_puts_the_rescue_disk_first(cloud):
    sid = boot(cloud)
    assert act(cloud, sid, {'rescue': {'rescue_image_ref': cloud.images['legacy']}})[0] == 200
    cloud.wait_for_status(sid, ['RESCUE'])
    wait_console(cloud, sid, RESCUE, 1)
    assert [d[0] for d in _disks(fx.live_xml(sid))][:2] == ['vda', 'vdb']
    assert act(cloud, sid, {'unrescue': None})[0] == 202
    cloud.wait_for_status(sid, ['ACTIVE'])
    wait_console(cloud, sid, ROOT, 2)
    cloud.request('DELETE', '/servers/' + sid)


def test_override_picks_the_rescue_bus_per_rescue(cloud):
    sid = boot(cloud)
    status, body = act(cloud, sid, {'rescue': {
        'rescue_image_ref': cloud.images['legacy'],
        'image_props_override': {'hw_rescue_bus': 'usb'}}})
    assert status == 200, body
    cloud.wait_for_status(sid, ['RESCUE'])
    wait_console(cloud, sid, RESCUE, 1)
    assert [d[1:] for d in _disks(fx.live_xml(sid)) if d[3] == '1'] == [('usb', 'disk', '1')]
    assert act(cloud, sid, {'unrescue': None})[0] == 202
    cloud.wait_for_status(sid, ['ACTIVE'])
    # Below 2.106 the key is unknown.
    status, body = act(cloud, sid, {'rescue': {'image_props_override': {
        'hw_rescue_bus': 'usb'}}}, version='2.105')
    assert status == 400
    cloud.request('DELETE', '/servers/' + sid)


def test_volume_backed_rescue_needs_2_87_and_a_stable_image(cloud):
    bdms = [{'source_type': 'image', 'uuid': cloud.root, 'destination_type': 'volume',
             'volume_size': 1, 'boot_index': 0, 'delete_on_termination': True}]
    sid = boot(cloud, bdms=bdms, image=False)
    assert cloud.request('GET', '/servers/' + sid, version=V)[2]['server']['image'] == ''
    image = cloud.images[('usb', 'disk')]
    status, body = act(cloud, sid, {'rescue': {'rescue_image_ref': image}}, version='2.86')
    assert status == 400 and 'volume-backed' in body['badRequest']['message']
    status, body = act(cloud, sid, {'rescue': {'rescue_image_ref': cloud.images['legacy']}})
    assert status == 400 and 'hw_rescue_bus' in body['badRequest']['message']
    assert cloud.request('GET', '/servers/' + sid)[2]['server']['status'] == 'ACTIVE'
    status, body = act(cloud, sid, {'rescue': {'rescue_image_ref': image}}, version='2.87')
    assert status == 200, body
    cloud.wait_for_status(sid, ['RESCUE'])
    wait_console(cloud, sid, RESCUE, 1)
    disks = _disks(fx.live_xml(sid))
    assert ('vda', 'virtio', 'disk', '2') in disks
    assert [d[1:] for d in disks if d[3] == '1'] == [('usb', 'disk', '1')]
    assert act(cloud, sid, {'unrescue': None})[0] == 202
    cloud.wait_for_status(sid, ['ACTIVE'])
    wait_console(cloud, sid, ROOT, 2)
    cloud.request('DELETE', '/servers/' + sid)


def test_blank_volume_as_the_boot_device_then_rescue(cloud):
    """As tempest's BFV rescue: imageRef plus a blank volume at boot_index 0.
    The guest boots an empty disk; a stable rescue then boots the rescue media."""
    server = {'name': 'blank', 'flavorRef': '1', 'networks': 'none', 'imageRef': cloud.root,
              'block_device_mapping_v2': [{
                  'boot_index': '0', 'delete_on_termination': 'true', 'source_type': 'blank',
                  'volume_size': 1, 'destination_type': 'volume'}]}
    status, _h, body = cloud.request('POST', '/servers', {'server': server}, version=V)
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    status, _h, body = cloud.request('GET', '/servers/%s/os-volume_attachments' % sid,
                                     version='2.89')
    [att] = body['volumeAttachments']
    assert att['device'] == '/dev/vda' and att['volumeId'] and att['delete_on_termination']
    disks = _disks(fx.live_xml(sid))
    assert [d[:2] for d in disks] == [('vda', 'virtio')]
    assert ROOT not in console(cloud, sid)
    status, body = act(cloud, sid, {'rescue': {
        'rescue_image_ref': cloud.images[('virtio', 'disk')]}}, version='2.87')
    assert status == 200, body
    cloud.wait_for_status(sid, ['RESCUE'])
    wait_console(cloud, sid, RESCUE, 1)
    assert act(cloud, sid, {'unrescue': None})[0] == 202
    cloud.wait_for_status(sid, ['ACTIVE'])
    cloud.request('DELETE', '/servers/' + sid)


@pytest.mark.parametrize('bdm,words', [
    ({'source_type': 'blank', 'destination_type': 'local'},
     'blank local disk cannot be the boot device'),
])
def test_blank_local_boot_device_is_400(cloud, bdm, words):
    server = {'name': 'x', 'flavorRef': '1', 'networks': 'none', 'imageRef': cloud.root,
              'block_device_mapping_v2': [dict(bdm, boot_index=0)]}
    status, _h, body = cloud.request('POST', '/servers', {'server': server}, version=V)
    assert status == 400 and words in body['badRequest']['message'], body


def test_plain_image_in_a_cdrom_is_media_not_a_boot_device(cloud):
    """As upstream: the image goes in the drive; firmware boots only El Torito,
    so the guest boots its own disk and the rescue image is readable media."""
    sid = boot(cloud)
    wait_console(cloud, sid, ROOT, 1)
    status, body = act(cloud, sid, {'rescue': {'rescue_image_ref': cloud.images['raw-cdrom']}})
    assert status == 200, body
    cloud.wait_for_status(sid, ['RESCUE'])
    disks = _disks(fx.live_xml(sid))
    assert [d[1:] for d in disks if d[3] == '1'] == [('ide', 'cdrom', '1')]
    wait_console(cloud, sid, ROOT, 2)
    assert act(cloud, sid, {'unrescue': None})[0] == 202
    cloud.wait_for_status(sid, ['ACTIVE'])
    cloud.request('DELETE', '/servers/' + sid)


@pytest.mark.parametrize('image_key,overrides,machine,needle', [
    (('ide', 'disk'), None, 'q35', 'ide'),
    (('usb', 'disk'), {'hw_rescue_device': 'floppy'}, None, 'floppy'),
    (('usb', 'disk'), {'hw_rescue_bus': 'lxc'}, None, 'lxc'),
    (('usb', 'disk'), {'hw_rescue_bus': 'nonsense'}, None, 'must be one of'),
])
def test_impossible_rescue_is_400_and_changes_nothing(cloud, image_key, overrides, machine,
                                                      needle, caplog):
    sid = boot(cloud, overrides={'hw_machine_type': machine} if machine else None)
    before = fx.live_xml(sid)
    caplog.clear()
    spec = {'rescue_image_ref': cloud.images[image_key]}
    if overrides:
        spec['image_props_override'] = overrides
    status, body = act(cloud, sid, {'rescue': spec})
    assert status == 400, body
    assert needle.lower() in body['badRequest']['message'].lower()
    server = cloud.request('GET', '/servers/' + sid)[2]['server']
    assert server['status'] == 'ACTIVE' and server['OS-EXT-STS:task_state'] is None
    assert fx.live_xml(sid) == before
    # Refusals cross RPC as expected exceptions: no traceback on the host.
    assert not [r for r in caplog.records if r.levelname == 'ERROR'], caplog.text
    cloud.request('DELETE', '/servers/' + sid)


def test_rescue_on_a_full_bus_is_400_before_anything_changes(cloud, caplog):
    # Root, ephemeral, swap and config drive fill the four IDE names of a pc
    # machine: a stable rescue on IDE has no name left for its disk.
    sid = boot(cloud, flavor='full', overrides={'hw_disk_bus': 'ide',
                                                'hw_machine_type': 'pc'},
               config_drive=True)
    before = fx.live_xml(sid)
    caplog.clear()
    status, body = act(cloud, sid, {'rescue': {'rescue_image_ref':
                                               cloud.images[('ide', 'disk')]}})
    assert status == 400, body
    assert 'no free device name' in body['badRequest']['message']
    server = cloud.request('GET', '/servers/' + sid)[2]['server']
    assert server['status'] == 'ACTIVE' and server['OS-EXT-STS:task_state'] is None
    assert fx.live_xml(sid) == before
    # An expected refusal crossing RPC is not an error on the compute host.
    assert not [r for r in caplog.records if r.levelname == 'ERROR'], caplog.text
    cloud.request('DELETE', '/servers/' + sid)


def test_static_rescue_refusals_come_from_the_node_record(cloud, caplog):
    """The host reports its rescue facts; only a bus that may be full is asked about."""
    manager = cloud.aio.services[1].manager
    caps = cloud.db.compute_node_get(manager.host)['capabilities']
    assert caps['virt_type'] in ('qemu', 'kvm') and caps['supports_stable_rescue']
    assert {'virtio', 'usb', 'ide'} <= set(caps['rescue_disk_buses'].split(','))
    assert {'disk', 'cdrom'} <= set(caps['rescue_disk_devices'].split(','))
    caplog.set_level(logging.INFO, logger='nova.compute.manager_rescue')
    q35 = boot(cloud, overrides={'hw_machine_type': 'q35'})
    full = boot(cloud, flavor='full', overrides={'hw_disk_bus': 'ide', 'hw_machine_type': 'pc'},
                config_drive=True)
    ide = {'rescue': {'rescue_image_ref': cloud.images[('ide', 'disk')]}}
    caplog.clear()
    status, body = act(cloud, q35, ide)
    assert status == 400 and 'ide' in body['badRequest']['message'].lower(), body
    asked = [r for r in caplog.records if r.name == 'nova.compute.manager_rescue']
    assert asked == []
    status, body = act(cloud, full, ide)
    assert status == 400 and 'no free device name' in body['badRequest']['message'], body
    asked = [r.getMessage() for r in caplog.records if r.name == 'nova.compute.manager_rescue']
    assert asked and full in asked[0] and 'refused' in asked[0]
    for sid in (q35, full):
        cloud.request('DELETE', '/servers/' + sid)


def test_failed_rescue_rolls_back_with_a_fault(cloud):
    sid = boot(cloud)
    before = _disks(fx.live_xml(sid))
    # The image claims qcow2 but holds raw data: the host refuses it mid-rescue.
    assert act(cloud, sid, {'rescue': {'rescue_image_ref': cloud.images['broken']}})[0] == 200
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        server = cloud.request('GET', '/servers/' + sid, token='admin:admin')[2]['server']
        if server['OS-EXT-STS:task_state'] is None:
            break
        time.sleep(0.1)
    assert server['status'] == 'ACTIVE'
    assert cloud.db.faults_latest([sid])[sid]['message']
    assert _disks(fx.live_xml(sid)) == before
    status, _h, body = cloud.request('GET', '/servers/%s/os-instance-actions' % sid,
                                     version='2.84')
    rescue = body['instanceActions'][0]
    assert rescue['action'] == 'rescue' and rescue['message'] == 'Error'
    cloud.request('DELETE', '/servers/' + sid)
