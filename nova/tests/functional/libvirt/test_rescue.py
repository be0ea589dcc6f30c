"""Real QEMU (TCG): stable-device and legacy rescue boot the rescue media; unrescue restores."""

import pytest

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import driver as libvirt_driver

pytestmark = fx.requires_libvirtd()

ROOT = 'ROOT-OK'
RESCUE = 'RESCUE-OK'


@pytest.fixture(scope='module')
def drv(tmp_path_factory):
    """One driver (one image cache) for the module: each test spawns its
    own instance."""
    tmp = tmp_path_factory.mktemp('rescue')
    images = {
        'root': bootimg.write_boot_image(str(tmp / 'root.raw'),
                                         ROOT + '\r\n'),
        'rescue-disk': bootimg.write_boot_image(str(tmp / 'rescue.raw'),
                                                RESCUE + '\r\n'),
        'rescue-iso': bootimg.write_boot_iso(str(tmp / 'rescue.iso'),
                                             RESCUE + '\r\n'),
        'rescue-floppy': bootimg.write_boot_floppy(str(tmp / 'rescue.flp'),
                                                   RESCUE + '\r\n'),
    }
    conf = fx.make_conf(tmp / 'state', uri=fx.QEMU_URI, virt_type='qemu')
    drv = libvirt_driver.LibvirtDriver(conf, fx.file_fetcher(images),
                                       shutdown_poll_interval=0.05)
    drv.init_host('testhost')
    drv.test_tmp = tmp
    yield drv
    drv.cleanup_host('testhost')


@pytest.fixture
def instance(drv, request):
    """Running guest with root + ephemeral + swap + config drive + two
    volumes (virtio and scsi); machine type from the test's param."""
    machine = getattr(request, 'param', None)
    inst = fx.make_instance(image_ref='root', config_drive='True',
                            flavor=fx.make_flavor(ephemeral_gb=1, swap=16))
    vols = [fx.make_volume(drv.test_tmp / ('%s-%d' % (inst.uuid, i)))
            for i in range(2)]
    bdi = fx.block_device_info([
        fx.volume_bdm('vol-a', vols[0]),
        fx.volume_bdm('vol-b', vols[1], mount_device='/dev/sdb')])
    props = {'hw_machine_type': machine} if machine else {}
    drv.spawn(None, inst, fx.make_image_meta('root', **props), [], None, {},
              block_device_info=bdi)
    inst.bdi = bdi
    yield inst
    drv.destroy(None, inst, block_device_info=bdi)


def persistent(drv, inst):
    return drv.host.get_guest(inst.uuid).get_xml_desc(inactive=True)


def rescue_disk_xpath(drv, inst):
    return "//disk[source/@file='%s/disk.rescue']" % drv.core.instance_dir(
        inst)


CASES = [
    # (bus, device, image, machine, expected rescue target)
    ('usb', 'disk', 'rescue-disk', None, ('sda', 'usb')),
    ('virtio', 'disk', 'rescue-disk', None, ('vde', 'virtio')),
    ('scsi', 'disk', 'rescue-disk', None, ('sda', 'scsi')),
    ('ide', 'disk', 'rescue-disk', None, ('hda', 'ide')),
    ('ide', 'cdrom', 'rescue-iso', None, ('hda', 'ide')),
    ('sata', 'cdrom', 'rescue-iso', 'q35', ('sda', 'sata')),
    ('fdc', 'floppy', 'rescue-floppy', None, ('fda', 'fdc')),
]


@pytest.mark.parametrize(
    'bus,device,image,machine,target,instance',
    [case + (case[3],) for case in CASES],
    ids=['%s-%s' % (c[0], c[1]) for c in CASES],
    indirect=['instance'])
def test_stable_rescue_boots_rescue_media(drv, instance, bus, device, image,
                                          machine, target):
    fx.wait_for_console(drv, instance, ROOT)
    before = persistent(drv, instance)
    meta = fx.make_image_meta(
        image, disk_format='iso' if device == 'cdrom' else 'raw',
        hw_rescue_bus=bus, hw_rescue_device=device)

    drv.rescue(None, instance, None, meta, 'secret', instance.bdi)
    fx.wait_for_console(drv, instance, RESCUE)
    during = persistent(drv, instance)
    # Every normal disk is where it was; only the rescue disk and the boot
    # orders differ (plus the controller libvirt implies for a new bus:
    # <controller type='fdc'/> for a floppy).
    drop = [rescue_disk_xpath(drv, instance), '//boot']
    if "<controller type='%s'" % bus not in before:
        drop.append("//controller[@type='%s']" % bus)
    assert fx.canon_xml(during, drop) == fx.canon_xml(before, ['//boot'])
    targets = fx.disk_targets(during)
    assert (target + (device, '1')) in targets
    assert ('vda', 'virtio', 'disk', '2') in targets
    assert [t for t in targets if t[3] is not None and t[0] != target[0]] \
        == [('vda', 'virtio', 'disk', '2')]

    drv.unrescue(None, instance)
    fx.wait_for_console(drv, instance, ROOT, count=2)
    assert fx.canon_xml(persistent(drv, instance)) == fx.canon_xml(before)
    out = drv.get_console_output(None, instance)
    assert out.count(RESCUE.encode()) == 1


def test_legacy_rescue(drv, instance):
    fx.wait_for_console(drv, instance, ROOT)
    before = persistent(drv, instance)
    drv.rescue(None, instance, None, fx.make_image_meta('rescue-disk'),
               'secret', instance.bdi)
    fx.wait_for_console(drv, instance, RESCUE)
    assert fx.disk_targets(persistent(drv, instance)) == [
        ('vda', 'virtio', 'disk', '1'), ('vdb', 'virtio', 'disk', None),
        ('hdd', 'ide', 'cdrom', None)]
    drv.unrescue(None, instance)
    fx.wait_for_console(drv, instance, ROOT, count=2)
    assert fx.canon_xml(persistent(drv, instance)) == fx.canon_xml(before)
