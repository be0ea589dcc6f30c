"""XML classes against literal libvirt XML."""

from xml.etree import ElementTree

import pytest
from lxml import etree

from nova.virt.libvirt import config


def canon(xml):
    """C14N of whitespace-free XML: attribute order no longer matters."""
    if not isinstance(xml, (str, bytes)):
        xml = ElementTree.tostring(xml)     # the config classes' elements
    if not isinstance(xml, etree._Element):
        parser = etree.XMLParser(remove_blank_text=True)
        xml = etree.fromstring(xml, parser)
    return etree.tostring(xml, method='c14n')


def assert_xml(obj, expected):
    assert canon(obj.format_dom()) == canon(expected), obj.to_xml()


def test_disk_file_with_boot_order_and_drive_address():
    disk = config.GuestDisk(
        source_type='file', source_device='disk', driver_format='qcow2',
        driver_cache='none', source_path='/i/disk', target_dev='vda',
        target_bus='virtio', boot_order=2, serial='vol-1',
        address=config.GuestDeviceAddressDrive(controller=0, bus=0, unit=1))
    assert_xml(disk, """
        <disk type="file" device="disk">
          <driver name="qemu" type="qcow2" cache="none"/>
          <source file="/i/disk"/>
          <target dev="vda" bus="virtio"/>
          <boot order="2"/>
          <serial>vol-1</serial>
          <address type="drive" controller="0" bus="0" unit="1"/>
        </disk>""")


def test_disk_cdrom_readonly_and_block_source():
    cdrom = config.GuestDisk(source_device='cdrom', driver_format='raw',
                             source_path='/i/disk.config', target_dev='hdd',
                             target_bus='ide', readonly=True)
    assert_xml(cdrom, """
        <disk type="file" device="cdrom">
          <driver name="qemu" type="raw"/>
          <source file="/i/disk.config"/>
          <target dev="hdd" bus="ide"/>
          <readonly/>
        </disk>""")
    block = config.GuestDisk(source_type='block', source_device='floppy',
                             driver_format='raw', source_path='/dev/sdz',
                             target_dev='fda', target_bus='fdc',
                             shareable=True)
    assert_xml(block, """
        <disk type="block" device="floppy">
          <driver name="qemu" type="raw"/>
          <source dev="/dev/sdz"/>
          <target dev="fda" bus="fdc"/>
          <shareable/>
        </disk>""")


def test_disk_network_source_and_pci_address():
    disk = config.GuestDisk(
        source_type='network', source_protocol='rbd', source_name='p/v',
        source_hosts=[('mon1', 6789)], driver_format='raw',
        target_dev='vdb', target_bus='virtio',
        address=config.GuestDeviceAddressPCI(domain='0x0000', bus='0x00',
                                             slot='0x05', function='0x0'))
    assert_xml(disk, """
        <disk type="network" device="disk">
          <driver name="qemu" type="raw"/>
          <source protocol="rbd" name="p/v"><host name="mon1" port="6789"/>
          </source>
          <target dev="vdb" bus="virtio"/>
          <address type="pci" domain="0x0000" bus="0x00" slot="0x05"
                   function="0x0"/>
        </disk>""")


def test_serial_file_and_console():
    assert_xml(config.GuestSerial(type='file', source_path='/i/console.log',
                                  target_port=0), """
        <serial type="file">
          <source path="/i/console.log"/>
          <target port="0"/>
        </serial>""")
    assert_xml(config.GuestSerial(type='file', source_path='/i/console.log',
                                  source_append=True, target_port=0), """
        <serial type="file">
          <source path="/i/console.log" append="on"/>
          <target port="0"/>
        </serial>""")
    assert_xml(config.GuestConsole(type='pty', target_type='serial',
                                   target_port=0, log_file='/i/c.log',
                                   log_append=False), """
        <console type="pty">
          <target type="serial" port="0"/>
          <log file="/i/c.log" append="off"/>
        </console>""")


def test_os_firmware_boot_devs_and_bootmenu():
    os_ = config.GuestOS(arch='x86_64', machine='q35', boot_devs=['hd'],
                         bootmenu=True)
    assert_xml(os_, """
        <os>
          <type arch="x86_64" machine="q35">hvm</type>
          <boot dev="hd"/>
          <bootmenu enable="yes"/>
        </os>""")
    uefi = config.GuestOS(arch='x86_64', firmware='efi')
    assert_xml(uefi, """
        <os firmware="efi"><type arch="x86_64">hvm</type></os>""")


def test_os_loader_nvram_and_kernel():
    os_ = config.GuestOS(
        loader_path='/usr/share/OVMF/OVMF_CODE.fd', loader_type='pflash',
        loader_readonly=True, loader_secure=False,
        nvram_path='/var/nvram/x_VARS.fd',
        nvram_template='/usr/share/OVMF/OVMF_VARS.fd',
        kernel='/i/kernel', initrd='/i/ramdisk',
        cmdline='root=/dev/vda console=ttyS0')
    assert_xml(os_, """
        <os>
          <type>hvm</type>
          <loader type="pflash" readonly="yes" secure="no"
            >/usr/share/OVMF/OVMF_CODE.fd</loader>
          <nvram template="/usr/share/OVMF/OVMF_VARS.fd"
            >/var/nvram/x_VARS.fd</nvram>
          <kernel>/i/kernel</kernel>
          <initrd>/i/ramdisk</initrd>
          <cmdline>root=/dev/vda console=ttyS0</cmdline>
        </os>""")


def test_cpu_with_topology_features_and_numa_cells():
    cpu = config.GuestCPU(
        mode='host-model', sockets=1, cores=2, threads=1,
        features=[config.GuestCPUFeature(name='vmx', policy='disable')],
        numa_cells=[
            config.GuestNUMACell(id=0, cpus={0}, memory_kib=262144),
            config.GuestNUMACell(id=1, cpus='1', memory_kib=262144,
                                 mem_access='shared')])
    assert_xml(cpu, """
        <cpu mode="host-model">
          <topology sockets="1" cores="2" threads="1"/>
          <feature policy="disable" name="vmx"/>
          <numa>
            <cell id="0" cpus="0" memory="262144" unit="KiB"/>
            <cell id="1" cpus="1" memory="262144" unit="KiB"
                  memAccess="shared"/>
          </numa>
        </cpu>""")


def test_cputune_numatune_and_memory_backing():
    tune = config.GuestCPUTune(
        shares=2048,
        vcpupins=[config.GuestVCPUPin(vcpu=0, cpuset={2, 3}),
                  config.GuestVCPUPin(vcpu=1, cpuset={5})],
        emulatorpin_cpuset={2, 3, 5})
    assert_xml(tune, """
        <cputune>
          <shares>2048</shares>
          <vcpupin vcpu="0" cpuset="2-3"/>
          <vcpupin vcpu="1" cpuset="5"/>
          <emulatorpin cpuset="2-3,5"/>
        </cputune>""")
    numatune = config.GuestNUMATune(
        memory_mode='strict', memory_nodeset={0, 1},
        memnodes=[config.GuestNUMATuneMemNode(cellid=0, nodeset={1})])
    assert_xml(numatune, """
        <numatune>
          <memory mode="strict" nodeset="0-1"/>
          <memnode cellid="0" mode="strict" nodeset="1"/>
        </numatune>""")
    backing = config.GuestMemoryBacking(
        hugepages=[config.GuestHugepage(size_kib=2048, nodeset={0})],
        locked=True)
    assert_xml(backing, """
        <memoryBacking>
          <hugepages><page size="2048" unit="KiB" nodeset="0"/></hugepages>
          <locked/>
        </memoryBacking>""")


def test_small_devices():
    assert_xml(config.GuestVideo(model='virtio'),
               '<video><model type="virtio"/></video>')
    assert_xml(config.GuestController(type='scsi', index=0,
                                      model='virtio-scsi'),
               '<controller type="scsi" index="0" model="virtio-scsi"/>')
    assert_xml(config.GuestController(type='usb', index=0,
                                      model='qemu-xhci'),
               '<controller type="usb" index="0" model="qemu-xhci"/>')
    assert_xml(config.GuestInput(type='tablet', bus='usb'),
               '<input type="tablet" bus="usb"/>')
    assert_xml(config.GuestMemBalloon(period=10),
               '<memballoon model="virtio"><stats period="10"/>'
               '</memballoon>')
    assert_xml(config.GuestRng(),
               '<rng model="virtio"><backend model="random">/dev/urandom'
               '</backend></rng>')
    assert_xml(config.GuestGraphics(listen='127.0.0.1'),
               '<graphics type="vnc" autoport="yes">'
               '<listen type="address" address="127.0.0.1"/></graphics>')
    assert_xml(config.GuestInterface(type='bridge', mac_addr='fa:16:3e:0:0:1',
                                     source_bridge='br0', mtu=1450),
               '<interface type="bridge"><mac address="fa:16:3e:0:0:1"/>'
               '<source bridge="br0"/><model type="virtio"/>'
               '<mtu size="1450"/></interface>')
    assert_xml(config.GuestClock(timers=[config.GuestTimer(
        name='hpet', present=False)]),
        '<clock offset="utc"><timer name="hpet" present="no"/></clock>')


def test_whole_guest():
    guest = config.GuestDomain(
        virt_type='qemu', name='instance-00000001',
        uuid='11111111-2222-3333-4444-555555555555', memory_kib=65536,
        vcpus=2, os=config.GuestOS(arch='x86_64'),
        features=[config.GuestFeatureACPI(), config.GuestFeatureAPIC()],
        clock=config.GuestClock(),
        devices=[config.GuestDisk(source_path='/i/disk',
                                  driver_format='qcow2', target_dev='vda',
                                  target_bus='virtio', boot_order=1),
                 config.GuestSerial(type='file', source_path='/i/c.log',
                                    target_port=0)])
    assert_xml(guest, """
        <domain type="qemu">
          <name>instance-00000001</name>
          <uuid>11111111-2222-3333-4444-555555555555</uuid>
          <memory unit="KiB">65536</memory>
          <vcpu>2</vcpu>
          <os><type arch="x86_64">hvm</type></os>
          <features><acpi/><apic/></features>
          <clock offset="utc"/>
          <on_poweroff>destroy</on_poweroff>
          <on_reboot>restart</on_reboot>
          <on_crash>destroy</on_crash>
          <devices>
            <disk type="file" device="disk">
              <driver name="qemu" type="qcow2"/>
              <source file="/i/disk"/>
              <target dev="vda" bus="virtio"/>
              <boot order="1"/>
            </disk>
            <serial type="file">
              <source path="/i/c.log"/>
              <target port="0"/>
            </serial>
          </devices>
        </domain>""")
    assert guest.to_xml(pretty_print=False).startswith('<domain type="qemu">')


def test_unknown_attribute_is_a_type_error():
    try:
        config.GuestDisk(target_device='vda')
    except TypeError as exc:
        assert 'target_device' in str(exc)
    else:
        raise AssertionError('typo in an attribute name was accepted')


# ------------------------------------------- what every device carries

def test_every_device_formats_boot_order_alias_and_address():
    pci = config.GuestDeviceAddressPCI(domain='0x0000', bus='0x00',
                                       slot='0x03', function='0x0')
    assert_xml(config.GuestInterface(type='network', source_network='default',
                                     mac_addr='52:54:00:00:00:01', boot_order=2,
                                     alias='ua-net0', address=pci), """
        <interface type="network">
          <mac address="52:54:00:00:00:01"/>
          <source network="default"/>
          <model type="virtio"/>
          <boot order="2"/>
          <alias name="ua-net0"/>
          <address type="pci" domain="0x0000" bus="0x00" slot="0x03"
                   function="0x0"/>
        </interface>""")
    assert_xml(config.GuestController(type='scsi', index=0, model='virtio-scsi',
                                      alias='scsi0', address=pci), """
        <controller type="scsi" index="0" model="virtio-scsi">
          <alias name="scsi0"/>
          <address type="pci" domain="0x0000" bus="0x00" slot="0x03"
                   function="0x0"/>
        </controller>""")
    assert_xml(config.GuestHostdev(boot_order=3), """
        <hostdev><boot order="3"/></hostdev>""")


@pytest.mark.parametrize('xml,cls', [
    ("<interface type='bridge'><mac address='52:54:00:00:00:02'/>"
     "<source bridge='br0'/><model type='virtio'/><boot order='2'/>"
     "<alias name='net0'/><address type='pci' domain='0x0000' bus='0x00' "
     "slot='0x03' function='0x0'/></interface>", config.GuestInterface),
    ("<hostdev mode='subsystem' type='pci' managed='yes'><source>"
     "<address domain='0x0000' bus='0x06' slot='0x02' function='0x0'/>"
     "</source><boot order='2'/><alias name='hostdev0'/><address type='pci' "
     "domain='0x0000' bus='0x00' slot='0x07' function='0x0'/></hostdev>",
     config.GuestHostdev),
    ("<redirdev bus='usb' type='spicevmc'><boot order='2'/>"
     "<alias name='redir0'/><address type='usb' bus='0' port='2'/>"
     "</redirdev>", config.GuestRedirdev),
    ("<filesystem type='mount' accessmode='passthrough'><driver "
     "type='virtiofs'/><source dir='/srv/share'/><target dir='share'/>"
     "<boot order='2'/><alias name='fs0'/></filesystem>",
     config.GuestFilesystem),
])
def test_bootable_devices_parse_their_boot_order_and_round_trip(xml, cls):
    domain = config.GuestDomain.from_xml(
        "<domain type='qemu'><name>d</name><devices>%s</devices></domain>" % xml)
    (dev,) = domain.devices
    assert type(dev) is cls and isinstance(dev, config.GuestDevice)
    assert dev.boot_order == 2 and dev.alias
    assert dev.address is not None or cls is config.GuestFilesystem
    assert canon(dev.format_dom()) == canon(xml)
    dev.boot_order = 3
    assert b'<boot order="3"></boot>' in canon(dev.format_dom())


def test_a_boot_loadparm_survives_a_new_boot_order():
    disk = config.GuestDisk.from_xml(
        "<disk type='file' device='disk'><source file='/d'/><target "
        "dev='vda' bus='virtio'/><boot order='1' loadparm='X'/></disk>")
    disk.boot_order = 2
    assert b'<boot loadparm="X" order="2"></boot>' in canon(disk.format_dom())


def test_channel_parses_its_target_and_state():
    xml = ("<channel type='unix'><source mode='bind' path='/run/q/ga.0'/>"
           "<target type='virtio' name='org.qemu.guest_agent.0' "
           "state='connected'/><alias name='channel0'/><address "
           "type='virtio-serial' controller='0' bus='0' port='1'/></channel>")
    channel = config.GuestChannel.from_xml(xml)
    assert (channel.type, channel.target_type, channel.target_name,
            channel.target_state, channel.alias) == (
        'unix', 'virtio', 'org.qemu.guest_agent.0', 'connected', 'channel0')
    assert channel.address.type == 'virtio-serial'
    assert canon(channel.format_dom()) == canon(xml)
    assert_xml(config.GuestChannel(target_name='org.qemu.guest_agent.0'),
               '<channel type="unix"><target type="virtio" '
               'name="org.qemu.guest_agent.0"/></channel>')


LIVE_CHAIN = """<disk type='file' device='disk'>
  <driver name='qemu' type='qcow2'/><source file='/v/snap-2' index='3'/>
  <backingStore type='file' index='2'><format type='qcow2'/>
    <source file='/v/snap-1'/>
    <backingStore type='file' index='1'><format type='raw'/>
      <source file='/v/vol'/><backingStore/>
    </backingStore>
  </backingStore>
  <target dev='vdb' bus='virtio'/><serial>v1</serial>
</disk>"""


def test_disk_backing_chain_is_modelled():
    disk = config.GuestDisk.from_xml(LIVE_CHAIN)
    assert disk.backing_chain() == ['/v/snap-1', '/v/vol']
    store = disk.backing_store
    assert (store.type, store.index, store.format) == ('file', 2, 'qcow2')
    assert canon(disk.format_dom()) == canon(LIVE_CHAIN)
    disk.backing_store = None
    assert b'backingStore' not in canon(disk.format_dom())


def test_rewrite_paths_reaches_modelled_and_kept_paths():
    xml = """<domain type='qemu'><name>d</name>
      <os><type>hvm</type><kernel>/i/u/kernel</kernel></os>
      <devices>%s
        <serial type='file'><source path='/i/u/console.log'/></serial>
        <disk type='file' device='disk'><source file='/i/u/disk'>
          <seclabel model='dac' relabel='no'/></source>
          <target dev='vda' bus='virtio'/></disk>
        <rng model='virtio'><backend model='random'>/dev/urandom</backend>
        </rng>
        <input type='passthrough' bus='virtio'><source evdev='/i/u/ev'/>
        </input>
      </devices></domain>""" % LIVE_CHAIN
    domain = config.GuestDomain.from_xml(xml)
    domain.rewrite_paths(lambda p: p.replace('/i/u', '/j/u').replace('/v/', '/w/'))
    text = domain.to_xml()
    for path in ('/j/u/kernel', '/j/u/console.log', "file=\"/j/u/disk\"",
                 '/w/snap-2', '/w/snap-1', '/w/vol'):
        assert path in text, path
    assert '/i/u' not in text.replace('/i/u/ev', '') and '/v/' not in text


def test_snapshot_xml():
    snap = config.GuestSnapshot(disks=[
        config.GuestSnapshotDisk(name='vdb', snapshot='external', type='file',
                                 driver_type='qcow2', source_path='/v/snap-3'),
        config.GuestSnapshotDisk(name='vda', snapshot='no')])
    assert_xml(snap, """
        <domainsnapshot><disks>
          <disk name="vdb" snapshot="external" type="file">
            <driver type="qcow2"/><source file="/v/snap-3"/></disk>
          <disk name="vda" snapshot="no"/>
        </disks></domainsnapshot>""")


def test_only_the_config_modules_read_or_write_xml():
    """Every read and edit of a domain goes through the config classes."""
    import ast
    import pathlib
    virt = pathlib.Path(config.__file__).resolve().parents[1]
    found = []
    for path in sorted(virt.rglob('*.py')):
        if path.parent.name == 'libvirt' and path.name.startswith('config'):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or '']
            found += ['%s imports %s' % (path.name, name) for name in names
                      if name.split('.')[0] in ('xml', 'lxml')]
    assert found == []
