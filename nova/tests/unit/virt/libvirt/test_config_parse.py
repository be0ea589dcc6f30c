"""parse_dom/format_dom round trips of the config classes on XML real libvirt wrote."""

import os
from xml.etree import ElementTree

import libvirt
import pytest
from lxml import etree

from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import config, config_base, config_caps

DATA = os.path.join(os.path.dirname(__file__), 'data')
# Inactive definitions libvirtd (QEMU driver, libvirt 9) stored for a guest
# with root, ephemeral, swap, virtio and scsi volumes, a usb disk, a config
# drive (ide on pc, sata on q35) and the driver's usual devices.
SAVED = ('qemu_saved_pc.xml', 'qemu_saved_q35_efi.xml')


def canon(xml):
    if not isinstance(xml, (str, bytes, etree._Element)):
        xml = ElementTree.tostring(xml)     # the config classes' elements
    if not isinstance(xml, etree._Element):
        if isinstance(xml, str):
            xml = xml.encode()
        xml = etree.fromstring(xml, etree.XMLParser(remove_blank_text=True))
    return etree.tostring(xml, method='c14n')


def saved(name):
    with open(os.path.join(DATA, name)) as f:
        return f.read()


def round_trip(cls, xml):
    obj = cls.from_xml(xml)
    assert canon(obj.format_dom()) == canon(xml), obj.to_xml()
    return obj


def test_domains_of_the_libvirt_test_driver_round_trip():
    conn = libvirt.open(fx.TEST_URI)
    try:
        xmls = [dom.XMLDesc(flags) for dom in conn.listAllDomains()
                for flags in (0, libvirt.VIR_DOMAIN_XML_INACTIVE)]
    finally:
        conn.close()
    assert xmls
    for xml in xmls:
        guest = round_trip(config.GuestDomain, xml)
        assert guest.get_disks()[0].target_dev == 'vda'


def test_spawned_guest_round_trips_and_matches_what_the_driver_built(
        tmp_path):
    from nova.tests.fixtures import bootimg
    from nova.virt.libvirt import driver as libvirt_driver
    image = bootimg.write_boot_image(str(tmp_path / 'root.raw'), 'ROOT')
    drv = libvirt_driver.LibvirtDriver(fx.make_conf(tmp_path / 's'),
                                       fx.file_fetcher({'image-1': image}))
    drv.init_host('h')
    inst = fx.make_instance(config_drive='True',
                            flavor=fx.make_flavor(ephemeral_gb=1, swap=16))
    vol = fx.make_volume(tmp_path / 'vol.qcow2')
    bdi = fx.block_device_info([fx.volume_bdm('vol-1', vol),
                                fx.volume_bdm('vol-2', vol,
                                              mount_device='/dev/sdb')])
    drv.spawn(None, inst, fx.make_image_meta(), [], None, {},
              block_device_info=bdi)
    try:
        guest = drv.host.get_guest(inst.uuid)
        for xml in (guest.get_xml_desc(inactive=True), guest.get_xml_desc()):
            parsed = round_trip(config.GuestDomain, xml)
            assert [(d.target_dev, d.target_bus, d.boot_order)
                    for d in parsed.get_disks()] == [
                ('vda', 'virtio', 1), ('vdb', 'virtio', None),
                ('vdc', 'virtio', None), ('vdd', 'virtio', None),
                ('sdb', 'scsi', None), ('hdd', 'ide', None)]
            assert parsed.get_controller('scsi').model == 'virtio-scsi'
    finally:
        drv.destroy(None, inst)


@pytest.mark.parametrize('name', SAVED)
def test_saved_qemu_domains_round_trip(name):
    xml = saved(name)
    guest = round_trip(config.GuestDomain, xml)
    assert guest.virt_type == 'qemu' and guest.memory_kib == 131072
    assert guest.vcpus == 2
    assert [p.cpuset for p in guest.cputune.vcpupins] == ['0', '1']
    assert guest.cputune.emulatorpin_cpuset == '0-1'
    disks = guest.get_disks()
    assert [d.source_path for d in disks] == [
        '/srv/i/disk', '/srv/i/disk.eph0', '/srv/i/disk.swap',
        '/srv/v/vol-a', '/srv/v/vol-b', '/srv/i/disk.config', '/srv/v/usb']
    assert disks[0].boot_order == 1 and disks[4].serial == 'vol-b'
    assert isinstance(disks[0].address, config.GuestDeviceAddressPCI)
    assert (disks[4].address.controller, disks[4].address.unit) == (0, 1)
    # usb addresses are carried along as they are
    assert disks[6].address.type == 'usb'
    (serial,) = guest.get_devices(config.GuestSerial)
    assert (serial.type, serial.source_path) == ('file',
                                                 '/srv/i/console.log')
    (graphics,) = guest.get_devices(config.GuestGraphics)
    assert (graphics.type, graphics.autoport, graphics.listen) == (
        'vnc', True, '127.0.0.1')
    (nic,) = guest.get_devices(config.GuestInterface)
    assert (nic.type, nic.mac_addr, nic.model) == ('user',
                                                   '52:54:00:12:34:56',
                                                   'virtio')
    # Every element of the domain is either modelled or kept verbatim.
    assert any(isinstance(d, config.RawElement) and d.root_name == 'rng'
               for d in guest.devices)


@pytest.mark.parametrize('name', SAVED)
def test_each_parsed_element_round_trips_on_its_own(name):
    root = config_base.parse(saved(name))
    round_trip(config.GuestOS, root.find('os'))
    round_trip(config.GuestCPUTune, root.find('cputune'))
    for pin in root.findall('cputune/vcpupin'):
        round_trip(config.GuestVCPUPin, pin)
    for disk in root.findall('devices/disk'):
        round_trip(config.GuestDisk, disk)
    for ctrl in root.findall('devices/controller'):
        round_trip(config.GuestController, ctrl)
    for tag, cls in (('serial', config.GuestSerial),
                     ('console', config.GuestConsole),
                     ('graphics', config.GuestGraphics),
                     ('interface', config.GuestInterface)):
        elems = root.findall('devices/' + tag)
        assert elems, tag
        for elem in elems:
            round_trip(cls, elem)
    addresses = root.findall('devices//address')
    assert {a.get('type') for a in addresses} >= {'pci', 'drive', 'usb'}
    for address in addresses:
        parsed = config.parse_address(address)
        assert canon(parsed.format_dom()) == canon(address)


def test_os_parse_models_the_fields_the_driver_sets():
    os_ = config.GuestOS.from_xml(
        "<os firmware='efi'><type arch='x86_64' machine='q35'>hvm</type>"
        "<loader readonly='yes' type='pflash' secure='no'>/f/CODE.fd</loader>"
        "<nvram template='/f/VARS.fd'>/n/v.fd</nvram><kernel>/k</kernel>"
        "<initrd>/r</initrd><cmdline>root=/dev/vda</cmdline>"
        "<boot dev='hd'/><boot dev='cdrom'/><bootmenu enable='no'/>"
        "<smbios mode='sysinfo'/></os>")
    assert (os_.firmware, os_.arch, os_.machine, os_.type) == (
        'efi', 'x86_64', 'q35', 'hvm')
    assert (os_.loader_path, os_.loader_type, os_.loader_readonly,
            os_.loader_secure) == ('/f/CODE.fd', 'pflash', True, False)
    assert (os_.nvram_path, os_.nvram_template) == ('/n/v.fd', '/f/VARS.fd')
    assert (os_.kernel, os_.initrd, os_.cmdline) == ('/k', '/r',
                                                     'root=/dev/vda')
    assert os_.boot_devs == ['hd', 'cdrom'] and os_.bootmenu is False
    os_.boot_devs = []
    assert b'<boot dev' not in canon(os_.format_dom())
    assert b'<smbios mode="sysinfo">' in canon(os_.format_dom())


def test_disk_parse_models_fields_and_keeps_the_rest():
    xml = ("<disk type='block' device='lun' snapshot='no'>"
           "<driver name='qemu' type='raw' cache='none' io='native' "
           "discard='unmap' copy_on_read='on'/>"
           "<source dev='/dev/sdz' index='2'/><backingStore/>"
           "<target dev='sdc' bus='scsi' removable='on'/>"
           "<boot order='3' loadparm='x'/><readonly/><shareable/>"
           "<serial>s-1</serial><alias name='scsi0-0-0-2'/>"
           "<address type='drive' controller='0' bus='0' target='0' "
           "unit='2'/></disk>")
    disk = round_trip(config.GuestDisk, xml)
    assert (disk.source_type, disk.source_device, disk.source_path) == (
        'block', 'lun', '/dev/sdz')
    assert (disk.driver_format, disk.driver_cache, disk.driver_io,
            disk.driver_discard) == ('raw', 'none', 'native', 'unmap')
    assert (disk.target_dev, disk.target_bus, disk.boot_order) == (
        'sdc', 'scsi', 3)
    assert disk.readonly and disk.shareable and disk.serial == 's-1'
    assert disk.alias == 'scsi0-0-0-2' and disk.address.unit == 2
    # A field changed on the object is what formats.
    disk.boot_order = 4
    assert config.GuestDisk.from_xml(disk.to_xml()).boot_order == 4


def test_controller_and_raw_devices_round_trip():
    round_trip(config.GuestController,
               "<controller type='pci' index='1' model='pcie-root-port'>"
               "<model name='pcie-root-port'/><target chassis='1' port='0x10'/>"
               "<address type='pci' domain='0x0000' bus='0x00' slot='0x02' "
               "function='0x0' multifunction='on'/></controller>")
    raw = config.RawElement.from_xml("<input type='tablet' bus='usb'/>")
    assert raw.root_name == 'input'
    assert canon(raw.format_dom()) == canon("<input type='tablet' bus='usb'/>")


def test_live_char_devices_graphics_and_nics_parse():
    live = """<domain type='qemu' id='3'><name>i</name><devices>
      <serial type='tcp'><source mode='bind' host='127.0.0.1' service='10000'
        tls='no'/><protocol type='raw'/><log file='/i/console.log'
        append='off'/><target type='isa-serial' port='0'><model
        name='isa-serial'/></target><alias name='serial0'/></serial>
      <console type='tcp'><source mode='bind' host='127.0.0.1'
        service='10000' tls='no'/><protocol type='raw'/><target type='serial'
        port='0'/><alias name='serial0'/></console>
      <graphics type='vnc' port='5901' autoport='yes' listen='0.0.0.0'>
        <listen type='address' address='0.0.0.0'/></graphics>
      <interface type='network'><mac address='52:54:00:aa:bb:cc'/><source
        network='default' portid='p-1' bridge='virbr0'/><target
        dev='vnet3'/><model type='virtio'/><alias name='net0'/><address
        type='pci' domain='0x0000' bus='0x00' slot='0x03'
        function='0x0'/></interface></devices></domain>"""
    guest = round_trip(config.GuestDomain, live)
    (serial,) = guest.get_devices(config.GuestSerial)
    assert (serial.type, serial.source_mode, serial.source_host,
            serial.source_service, serial.protocol_type, serial.log_file,
            serial.log_append) == ('tcp', 'bind', '127.0.0.1', '10000', 'raw',
                                   '/i/console.log', False)
    (console,) = guest.get_devices(config.GuestConsole)
    assert (console.target_type, console.target_port) == ('serial', 0)
    (graphics,) = guest.get_devices(config.GuestGraphics)
    assert (graphics.port, graphics.listen) == (5901, '0.0.0.0')
    (nic,) = guest.get_devices(config.GuestInterface)
    assert (nic.target_dev, nic.mac_addr, nic.source_network) == (
        'vnet3', '52:54:00:aa:bb:cc', None)   # the source is kept whole
    from nova.virt.libvirt import consoles, diagnostics
    assert consoles.vnc_port(live) == 5901
    assert consoles.serial_tcp_endpoints(live) == [('127.0.0.1', 10000)]
    assert diagnostics.devices(live) == ([], [('vnet3', '52:54:00:aa:bb:cc')])


def test_a_domain_built_by_the_driver_parses_into_equal_objects():
    guest = config.GuestDomain(
        name='i-1', uuid='u-1', memory_kib=65536, vcpus=2,
        os=config.GuestOS(arch='x86_64', machine='pc', boot_devs=['hd']),
        devices=[config.GuestDisk(source_path='/d', target_dev='vda',
                                  target_bus='virtio', boot_order=1),
                 config.GuestController(type='scsi', index=0,
                                        model='virtio-scsi')])
    parsed = config.GuestDomain.from_xml(guest.to_xml())
    assert canon(parsed.format_dom()) == canon(guest.format_dom())
    assert (parsed.name, parsed.uuid, parsed.memory_kib, parsed.vcpus) == (
        'i-1', 'u-1', 65536, 2)
    assert parsed.os.boot_devs == ['hd']


def test_domain_capabilities_parse():
    conn = libvirt.open(fx.TEST_URI)
    try:
        caps_xml = conn.getCapabilities()
    finally:
        conn.close()
    caps = config_caps.Capabilities.from_xml(caps_xml)
    assert caps.arch == 'i686' and len(caps.cells) == 2
    assert caps.host_uuid is None      # the test driver names none
    assert config_caps.Capabilities.from_xml(
        '<capabilities><host><uuid>4c4c4544-0001</uuid></host></capabilities>'
    ).host_uuid == '4c4c4544-0001'
    assert [len(c.cpus) for c in caps.cells] == [8, 8]
    assert caps.guest_domain_types['i686'] == ('test',)
    domcaps = config_caps.DomainCapabilities.from_xml(
        "<domainCapabilities><machine>pc-q35-7.2</machine><arch>x86_64</arch>"
        "<devices><disk supported='yes'>"
        "<enum name='diskDevice'><value>disk</value><value>cdrom</value>"
        "</enum><enum name='bus'><value>sata</value><value>usb</value>"
        "</enum></disk><video supported='yes'><enum name='modelType'>"
        "<value>vga</value></enum></video></devices></domainCapabilities>")
    assert domcaps.machine == 'pc-q35-7.2' and domcaps.arch == 'x86_64'
    assert domcaps.disk == {'diskDevice': ('disk', 'cdrom'),
                            'bus': ('sata', 'usb')}
    assert domcaps.video_models == {'vga'}
    empty = config_caps.DomainCapabilities.from_xml('<domainCapabilities/>')
    assert empty.disk is None and empty.video_models is None
