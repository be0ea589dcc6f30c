"""Real QEMU (TCG): stored and running domains read back into config objects losslessly."""

import pytest

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import config_caps
from nova.virt.libvirt import driver as libvirt_driver

pytestmark = fx.requires_libvirtd()


@pytest.fixture(scope='module')
def drv(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('parse')
    images = {'root': bootimg.write_boot_image(str(tmp / 'root.raw'),
                                               'ROOT-OK\r\n')}
    conf = fx.make_conf(tmp / 'state', uri=fx.QEMU_URI, virt_type='qemu')
    drv = libvirt_driver.LibvirtDriver(conf, fx.file_fetcher(images),
                                       shutdown_poll_interval=0.05)
    drv.init_host('testhost')
    drv.test_tmp = tmp
    yield drv
    drv.cleanup_host('testhost')


@pytest.mark.parametrize('machine', [None, 'q35'])
def test_saved_and_live_domains_round_trip(drv, machine):
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
    try:
        guest = drv.host.get_guest(inst.uuid)
        saved = guest.get_xml_desc(inactive=True, secure=True)
        live = guest.get_xml_desc()
        for xml in (saved, live):
            parsed = vconfig.GuestDomain.from_xml(xml)
            assert fx.canon_xml(parsed.to_xml()) == fx.canon_xml(xml)
        disks = vconfig.GuestDomain.from_xml(saved).get_disks()
        assert {d.serial: d.target_dev for d in disks if d.serial} == {
            'vol-a': 'vdd', 'vol-b': 'sdb'}
        # libvirt gave every disk an address; parsing keeps them.
        assert all(d.address is not None for d in disks)
        # What libvirt stores back from our formatted object is unchanged.
        drv.host.define_guest(vconfig.GuestDomain.from_xml(saved).to_xml())
        assert fx.canon_xml(guest.get_xml_desc(inactive=True, secure=True)) \
            == fx.canon_xml(saved)
    finally:
        drv.destroy(None, inst, block_device_info=bdi)


def test_host_capabilities_parse(drv):
    caps = config_caps.Capabilities.from_xml(
        drv.host.get_connection().getCapabilities())
    assert caps.arch == drv.core.settings.arch
    assert 'qemu' in caps.guest_domain_types[caps.arch]
    assert caps.cells and all(cell.cpus for cell in caps.cells)
    domcaps = drv.host.get_domain_capabilities('qemu')
    assert isinstance(domcaps, config_caps.DomainCapabilities)
    assert {'virtio', 'usb', 'scsi'} <= set(domcaps.disk['bus'])
    assert 'cdrom' in domcaps.disk['diskDevice']
