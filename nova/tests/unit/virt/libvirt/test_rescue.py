"""Rescue: validation table, rescue XML transforms, and the driver on test:///default."""

import os
import subprocess

import libvirt
import pytest
from lxml import etree

from nova import exception
from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import driver as libvirt_driver
from nova.virt.libvirt import driver_rescue as rescue


def canon(xml):
    parser = etree.XMLParser(remove_blank_text=True)
    return etree.tostring(etree.fromstring(xml, parser), method='c14n')


def test_parse_domain_disk_caps():
    xml = """<domainCapabilities><devices><disk supported='yes'>
      <enum name='diskDevice'><value>disk</value><value>cdrom</value></enum>
      <enum name='bus'><value>ide</value><value>usb</value></enum>
    </disk></devices></domainCapabilities>"""
    assert rescue.parse_domain_disk_caps(xml) == {
        'diskDevice': ('disk', 'cdrom'), 'bus': ('ide', 'usb')}
    assert rescue.parse_domain_disk_caps(None) is None


# ---------------------------------------------------------- XML transforms

SAVED = """<domain type='qemu'>
  <name>i-1</name>
  <os><type arch='x86_64' machine='pc-i440fx-7.2'>hvm</type></os>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/><source file='/i/u/disk'/>
      <target dev='vda' bus='virtio'/><boot order='1'/>
      <address type='pci' domain='0x0000' bus='0x00' slot='0x04'
               function='0x0'/>
    </disk>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/><source file='/i/u/disk.local'/>
      <target dev='vdb' bus='virtio'/>
      <address type='pci' domain='0x0000' bus='0x00' slot='0x05'
               function='0x0'/>
    </disk>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw'/><source file='/v/data'/>
      <target dev='sdb' bus='scsi'/><serial>vol</serial>
      <address type='drive' controller='0' bus='0' target='0' unit='1'/>
    </disk>
    <disk type='file' device='cdrom'>
      <driver name='qemu' type='raw'/><source file='/i/u/disk.config'/>
      <target dev='hdd' bus='ide'/><readonly/>
      <address type='drive' controller='0' bus='1' target='0' unit='1'/>
    </disk>
    <controller type='scsi' index='0' model='virtio-scsi'/>
    <serial type='file'><source path='/i/u/console.log'/></serial>
  </devices>
</domain>"""


def rescue_disk(bus, dev, device='disk', fmt='qcow2'):
    return vconfig.GuestDisk(
        source_type='file', source_device=device, driver_format=fmt,
        source_path='/i/u/disk.rescue', target_dev=dev, target_bus=bus,
        boot_order=1, readonly=device == 'cdrom')


def without(xml, *paths):
    root = etree.fromstring(xml.encode())
    for path in paths:
        for elem in root.xpath(path):
            elem.getparent().remove(elem)
    return canon(etree.tostring(root))


def test_stable_rescue_keeps_everything_and_appends_the_rescue_disk():
    info = rescue.rescue_disk_info(rescue.read_domain(SAVED), 'scsi', 'disk')
    assert (info['dev'], info['boot_index']) == ('sda', 1)
    xml = rescue.stable_rescue_xml(SAVED, rescue_disk('scsi', 'sda'))
    # Minus the rescue disk and the boot orders, it is the saved domain.
    assert without(xml, "//disk[source/@file='/i/u/disk.rescue']",
                   '//boot') == without(SAVED, '//boot')
    disks = etree.fromstring(xml.encode()).findall('devices/disk')
    assert [d.find('target').get('dev') for d in disks] == \
        ['vda', 'vdb', 'sdb', 'hdd', 'sda']
    assert canon(etree.tostring(disks[-1])) == canon("""
        <disk type="file" device="disk">
          <driver name="qemu" type="qcow2"/>
          <source file="/i/u/disk.rescue"/>
          <target dev="sda" bus="scsi"/>
          <boot order="1"/>
          <address type="drive" controller="0" bus="0" target="0" unit="0"/>
        </disk>""")
    assert disks[0].find('boot').get('order') == '2'


def test_stable_rescue_adds_a_scsi_controller_and_drops_os_boot():
    saved = SAVED.replace("<controller type='scsi' index='0' "
                          "model='virtio-scsi'/>", '').replace(
        "<type arch", "<boot dev='hd'/><type arch")
    xml = rescue.stable_rescue_xml(saved, rescue_disk('scsi', 'sda'))
    root = etree.fromstring(xml.encode())
    assert root.find('os/boot') is None
    ctrl = root.find('devices/controller')
    assert (ctrl.get('type'), ctrl.get('model')) == ('scsi', 'virtio-scsi')


def test_stable_rescue_usb_cdrom_boot_orders_shift():
    saved = SAVED.replace("<target dev='vdb' bus='virtio'/>",
                          "<target dev='vdb' bus='virtio'/>"
                          "<boot order='2'/>")
    xml = rescue.stable_rescue_xml(saved, rescue_disk('ide', 'hda', 'cdrom',
                                                      'raw'))
    orders = {d.find('target').get('dev'): d.find('boot').get('order')
              for d in etree.fromstring(xml.encode()).iterfind(
                  'devices/disk') if d.find('boot') is not None}
    assert orders == {'vda': '2', 'vdb': '3', 'hda': '1'}


def test_legacy_rescue_layout():
    xml = rescue.legacy_rescue_xml(SAVED, rescue_disk('virtio', 'vda'),
                                   '/i/u/disk.config')
    root = etree.fromstring(xml.encode())
    disks = root.findall('devices/disk')
    assert [(d.find('target').get('dev'), d.find('source').get('file'),
             d.find('boot').get('order') if d.find('boot') is not None
             else None) for d in disks] == [
        ('vda', '/i/u/disk.rescue', '1'),
        ('vdb', '/i/u/disk', None),
        ('hdd', '/i/u/disk.config', None)]
    # The rescue disk sits where the root was; the root gets a new slot.
    assert disks[0].find('address').get('slot') == '0x04'
    assert disks[1].find('address') is None
    assert without(xml, '//disk') == without(SAVED, '//disk')


# A guest that boots its disk, then the network (PXE).
SAVED_WITH_NIC = """<domain type='test'>
  <name>%s</name>
  <memory unit='KiB'>65536</memory>
  <os><type arch='i686'>hvm</type></os>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/><source file='/i/u/disk'/>
      <target dev='vda' bus='virtio'/><boot order='1'/>
    </disk>
    <interface type='network'>
      <mac address='52:54:00:00:00:01'/><source network='default'/>
      <model type='virtio'/><boot order='2'/>
    </interface>
  </devices>
</domain>"""


def boot_orders(xml):
    """{disk target or 'nic': boot order} of a domain's bootable devices."""
    root = etree.fromstring(xml.encode())
    orders = {d.find('target').get('dev'): d.find('boot').get('order')
              for d in root.iterfind('devices/disk') if d.find('boot') is not None}
    for nic in root.iterfind('devices/interface'):
        orders['nic'] = nic.find('boot').get('order')
    return orders


def test_stable_rescue_moves_a_nics_boot_order_down_with_the_disks():
    xml = rescue.stable_rescue_xml(SAVED_WITH_NIC % 'd', rescue_disk('usb', 'sda'))
    assert boot_orders(xml) == {'vda': '2', 'nic': '3', 'sda': '1'}


def test_legacy_rescue_moves_a_nics_boot_order_down():
    xml = rescue.legacy_rescue_xml(SAVED_WITH_NIC % 'd', rescue_disk('virtio', 'vda'))
    assert boot_orders(xml) == {'vda': '1', 'nic': '3'}


@pytest.mark.parametrize('layout', ['stable', 'legacy'])
def test_libvirt_accepts_the_rescue_domain_of_a_guest_with_a_nic(layout):
    """libvirt refuses two devices with one boot order: had the NIC kept
    order 2 beside the root's new 2, the define would fail."""
    name = 'rescue-nic-%s-%d' % (layout, os.getpid())
    saved = SAVED_WITH_NIC % name
    if layout == 'stable':
        xml = rescue.stable_rescue_xml(saved, rescue_disk('usb', 'sda'))
    else:
        xml = rescue.legacy_rescue_xml(saved, rescue_disk('virtio', 'vda'))
    conn = libvirt.open(fx.TEST_URI)
    try:
        conn.defineXML(xml).undefine()
        domain = rescue.read_domain(xml)
        (nic,) = domain.get_devices(vconfig.GuestInterface)
        nic.boot_order = 2 if layout == 'stable' else 1
        with pytest.raises(libvirt.libvirtError, match='boot order'):
            conn.defineXML(domain.to_xml())
    finally:
        conn.close()


# ------------------------------------------------ the driver, test:///

@pytest.fixture
def images(tmp_path):
    return {
        'image-1': bootimg.write_boot_image(str(tmp_path / 'root.raw'),
                                            'ROOT'),
        'rescue-raw': bootimg.write_boot_image(str(tmp_path / 'r.raw'),
                                               'RESCUE'),
        'rescue-iso': bootimg.write_boot_iso(str(tmp_path / 'r.iso'),
                                             'RESCUE'),
    }


@pytest.fixture
def drv(tmp_path, images):
    conf = fx.make_conf(tmp_path / 'state')
    drv = libvirt_driver.LibvirtDriver(conf, fx.file_fetcher(images))
    drv.init_host('h')
    yield drv
    drv.cleanup_host('h')


@pytest.fixture
def instance(drv, tmp_path):
    inst = fx.make_instance(config_drive='True',
                            flavor=fx.make_flavor(ephemeral_gb=1, swap=16))
    vol = fx.make_volume(tmp_path / 'vol.qcow2')
    bdi = fx.block_device_info([fx.volume_bdm('vol-1', vol)])
    drv.spawn(None, inst, fx.make_image_meta(), [], None, {},
              block_device_info=bdi)
    yield inst
    drv.destroy(None, inst)


def persistent(drv, instance):
    return drv.host.get_guest(instance.uuid).get_xml_desc(inactive=True)


def test_capabilities_advertise_stable_rescue(drv, tmp_path):
    assert drv.capabilities['supports_stable_rescue'] is True
    assert drv.capabilities['supports_bfv_rescue'] is True
    lxc = libvirt_driver.LibvirtDriver(
        fx.make_conf(tmp_path, virt_type='lxc'), None)
    assert lxc.capabilities['supports_stable_rescue'] is False
    assert libvirt_driver.LibvirtDriver.capabilities[
        'supports_stable_rescue'] is False


@pytest.mark.parametrize('props,fmt,image', [
    ({'hw_rescue_bus': 'usb'}, 'raw', 'rescue-raw'),
    ({'hw_rescue_device': 'cdrom'}, 'iso', 'rescue-iso'),
    ({'hw_rescue_device': 'cdrom'}, 'raw', 'rescue-raw'),
])
def test_stable_rescue_and_unrescue(drv, instance, props, fmt, image):
    before = persistent(drv, instance)
    inst_dir = drv.core.instance_dir(instance)
    drv.rescue(None, instance, None,
               fx.make_image_meta(image, disk_format=fmt, **props), 'pw')
    during = persistent(drv, instance)
    assert without(during, "//disk[source/@file='%s/disk.rescue']"
                   % inst_dir, '//boot') == without(before, '//boot')
    assert os.path.exists(os.path.join(inst_dir, 'unrescue.xml'))
    assert drv.get_info(instance).state == 1
    drv.unrescue(None, instance)
    assert canon(persistent(drv, instance)) == canon(before)
    assert not os.path.exists(os.path.join(inst_dir, 'disk.rescue'))
    assert not os.path.exists(os.path.join(inst_dir, 'unrescue.xml'))
    assert drv.get_info(instance).state == 1


def test_legacy_rescue_and_unrescue(drv, instance):
    before = persistent(drv, instance)
    drv.rescue(None, instance, None, fx.make_image_meta('rescue-raw'), 'pw')
    root = etree.fromstring(persistent(drv, instance).encode())
    assert [(d.find('target').get('dev'),
             os.path.basename(d.find('source').get('file')))
            for d in root.iterfind('devices/disk')] == [
        ('vda', 'disk.rescue'), ('vdb', 'disk'), ('hdd', 'disk.config')]
    drv.unrescue(None, instance)
    assert canon(persistent(drv, instance)) == canon(before)


def test_invalid_rescue_changes_nothing(drv, instance):
    before = persistent(drv, instance)
    # A cdrom on the usb bus never boots: refused before anything changes.
    meta = fx.make_image_meta('rescue-iso', disk_format='iso', hw_rescue_bus='usb',
                              hw_rescue_device='cdrom')
    with pytest.raises(exception.UnsupportedRescueDevice):
        drv.validate_rescue_request(instance, meta)
    with pytest.raises(exception.UnsupportedRescueDevice):
        drv.rescue(None, instance, None, meta, 'pw')
    assert persistent(drv, instance) == before
    assert not os.path.exists(os.path.join(drv.core.instance_dir(instance),
                                           'unrescue.xml'))


def test_failed_rescue_restores_the_domain(drv, instance, monkeypatch):
    before = persistent(drv, instance)
    real_define = drv.host.define_guest
    calls = []

    def define(xml, validate=True):
        calls.append(xml)
        guest = real_define(xml, validate=validate)
        if len(calls) == 1:       # the rescue domain: "fails to start"
            raise exception.HypervisorError(reason='boom')
        return guest

    monkeypatch.setattr(drv.host, 'define_guest', define)
    with pytest.raises(exception.HypervisorError):
        drv.rescue(None, instance, None,
                   fx.make_image_meta('rescue-raw', hw_rescue_bus='usb'),
                   'pw')
    assert len(calls) == 2 and calls[1] == before
    assert canon(persistent(drv, instance)) == canon(before)
    assert drv.get_info(instance).state == 1
    inst_dir = drv.core.instance_dir(instance)
    assert not os.path.exists(os.path.join(inst_dir, 'disk.rescue'))
    assert not os.path.exists(os.path.join(inst_dir, 'unrescue.xml'))


def test_missing_rescue_image_fails_cleanly(drv, instance):
    before = persistent(drv, instance)
    with pytest.raises(KeyError):
        drv.rescue(None, instance, None, fx.make_image_meta('nope'), 'pw')
    assert persistent(drv, instance) == before


def test_rescue_twice_and_unrescue_without_rescue_conflict(drv, instance):
    with pytest.raises(exception.Conflict):
        drv.unrescue(None, instance)
    drv.rescue(None, instance, None,
               fx.make_image_meta('rescue-raw', hw_rescue_bus='usb'), 'pw')
    with pytest.raises(exception.Conflict):
        drv.rescue(None, instance, None,
                   fx.make_image_meta('rescue-raw', hw_rescue_bus='usb'),
                   'pw')
    drv.unrescue(None, instance)


def test_volume_backed_rescue(drv, tmp_path):
    boot = fx.make_volume(tmp_path / 'boot.qcow2')
    inst = fx.make_instance(image_ref=None)
    bdi = fx.block_device_info([fx.volume_bdm('boot', boot, boot_index=0)],
                               root_device_name='/dev/vda')
    drv.spawn(None, inst, fx.make_image_meta(None, None), [], None, {},
              block_device_info=bdi)
    try:
        with pytest.raises(exception.UnsupportedRescue):
            drv.rescue(None, inst, None, fx.make_image_meta('rescue-raw'),
                       'pw', bdi)
        drv.rescue(None, inst, None,
                   fx.make_image_meta('rescue-raw', hw_rescue_bus='virtio'),
                   'pw', bdi)
        disks = etree.fromstring(persistent(drv, inst).encode()).findall(
            'devices/disk')
        assert [(d.find('target').get('dev'), d.find('boot').get('order'))
                for d in disks] == [('vda', '2'), ('vdb', '1')]
        drv.unrescue(None, inst)
    finally:
        drv.destroy(None, inst)


def test_volume_backed_is_the_managers_decision_not_the_domains(drv, instance):
    """The driver takes "volume-backed" from block_device_info (decided from
    the mappings by the compute manager), never from the domain's root disk."""
    before = persistent(drv, instance)
    backed = dict(fx.block_device_info(), volume_backed=True)
    with pytest.raises(exception.UnsupportedRescue, match='volume-backed'):
        drv.rescue(None, instance, None, fx.make_image_meta('rescue-raw'), 'pw', backed)
    with pytest.raises(exception.UnsupportedRescue, match='volume-backed'):
        drv.validate_rescue_request(instance, fx.make_image_meta('rescue-raw'),
                                    volume_backed=True)
    assert canon(persistent(drv, instance)) == canon(before)
    assert not drv.has_rescue_state(instance)
    # The same domain, not volume-backed by its mappings: a legacy rescue.
    drv.rescue(None, instance, None, fx.make_image_meta('rescue-raw'), 'pw',
               fx.block_device_info())
    drv.unrescue(None, instance)
    assert canon(persistent(drv, instance)) == canon(before)


def test_instance_hw_disk_bus_from_system_metadata(drv, tmp_path):
    inst = fx.make_instance(system_metadata={'image_hw_disk_bus': 'scsi'})
    drv.spawn(None, inst, fx.make_image_meta(hw_disk_bus='scsi'), [], None,
              {})
    try:
        drv.rescue(None, inst, None,
                   fx.make_image_meta('rescue-raw',
                                      hw_rescue_device='disk'), 'pw')
        disks = etree.fromstring(persistent(drv, inst).encode()).findall(
            'devices/disk')
        assert [(d.find('target').get('dev'), d.find('target').get('bus'))
                for d in disks] == [('sda', 'scsi'), ('sdb', 'scsi')]
    finally:
        drv.destroy(None, inst)


def test_plain_image_in_a_cdrom_is_a_read_only_qcow2_overlay(drv, instance):
    inst_dir = drv.core.instance_dir(instance)
    drv.rescue(None, instance, None, fx.make_image_meta(
        'rescue-raw', disk_format='raw', hw_rescue_device='cdrom'), 'pw')
    root = etree.fromstring(persistent(drv, instance).encode())
    (disk,) = root.xpath("//disk[source/@file='%s/disk.rescue']" % inst_dir)
    assert disk.get('device') == 'cdrom'
    assert disk.find('driver').get('type') == 'qcow2'
    assert disk.find('readonly') is not None
    assert disk.find('boot').get('order') == '1'
    drv.unrescue(None, instance)


def test_define_checks_the_schema_unless_told_the_xml_is_libvirts_own(drv):
    xml = ("<domain type='test'><name>schema-check</name><memory>1024</memory>"
           "<os><type>hvm</type></os><bogus/></domain>")
    with pytest.raises(exception.HypervisorError, match='bogus'):
        drv.host.define_guest(xml)
    guest = drv.host.define_guest(xml, validate=False)
    assert guest.uuid
    drv.host.get_connection().lookupByName('schema-check').undefine()


@pytest.mark.parametrize('props,fmt,image', [
    ({}, 'raw', 'rescue-raw'),
    ({'hw_rescue_bus': 'usb'}, 'raw', 'rescue-raw'),
    ({'hw_rescue_bus': 'scsi'}, 'raw', 'rescue-raw'),
    ({'hw_rescue_device': 'cdrom'}, 'iso', 'rescue-iso'),
])
def test_rescue_domain_passes_libvirts_schema(drv, instance, tmp_path, monkeypatch,
                                              props, fmt, image):
    # Rescue defines without libvirt's schema check (speed): the XML it
    # builds must pass that check here instead.
    real_define, defined = drv.host.define_guest, []

    def define(xml, validate=True):
        defined.append(xml)
        return real_define(xml, validate=validate)

    monkeypatch.setattr(drv.host, 'define_guest', define)
    drv.rescue(None, instance, None, fx.make_image_meta(image, disk_format=fmt, **props),
               'pw')
    path = tmp_path / 'rescue.xml'
    path.write_text(defined[0])
    proc = subprocess.run(['virt-xml-validate', str(path), 'domain'],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    drv.unrescue(None, instance)
