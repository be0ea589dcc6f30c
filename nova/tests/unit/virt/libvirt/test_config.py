"""XML classes against literal libvirt XML."""

from xml.etree import ElementTree

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
    guest = config.Guest(
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
