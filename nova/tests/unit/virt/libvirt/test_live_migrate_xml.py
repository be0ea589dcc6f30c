"""Live migration's domain XML for the destination, and the disks QEMU copies, on literal XML."""

from lxml import etree

from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import driver_live_migrate as lm

# Migratable XML of a running guest on the source: instance directory /s/u,
# image cache /s/_base, a file volume, a TCP serial console, a kernel boot.
SOURCE = """<domain type='qemu'>
  <name>instance-1</name>
  <os><type arch='x86_64' machine='pc'>hvm</type><kernel>/s/u/kernel</kernel>
    <initrd>/s/u/ramdisk</initrd></os>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/><source file='/s/u/disk'/>
      %s
      <target dev='vda' bus='virtio'/><boot order='1'/>
    </disk>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw'/><source file='/vols/v1'/><backingStore/>
      <target dev='vdb' bus='virtio'/><serial>v1</serial>
    </disk>
    <disk type='file' device='cdrom'>
      <driver name='qemu' type='raw'/><source file='/s/u/disk.config'/>
      <target dev='hdd' bus='ide'/><readonly/>
    </disk>
    <serial type='tcp'>
      <source mode='bind' host='127.0.0.1' service='10000' tls='no'/>
      <protocol type='raw'/><log file='/s/u/console.log' append='on'/>
      <target type='isa-serial' port='0'/>
    </serial>
    <console type='tcp'>
      <source mode='bind' host='127.0.0.1' service='10000' tls='no'/>
      <protocol type='raw'/><target type='serial' port='0'/>
    </console>
    <channel type='unix'><source mode='bind' path='/var/lib/q/ga.0'/>
      <target type='virtio' name='org.qemu.guest_agent.0'/></channel>
  </devices>
</domain>"""
# What the source reads of the root's backing chain (the destination has its own).
CHAIN = ("<backingStore type='file'><format type='raw'/>"
         "<source file='/s/_base/abc'/><backingStore/></backingStore>")
SOURCE_WITH_CHAIN = SOURCE % CHAIN

TARGET = {'instance_dir': '/d/u', 'base_dir': '/d/_base',
          'serial': {'host': '127.0.0.2', 'port': 19999},
          'volume_paths': {'/vols/v1': '/mnt/dest/v1'}}
SWAPS = (('/s/u', '/d/u'), ('/s/_base', '/d/_base'))


def canon(xml):
    return etree.tostring(etree.fromstring(
        xml.encode(), etree.XMLParser(remove_blank_text=True)), method='c14n')


def test_destination_xml_names_the_destinations_paths_ports_and_volumes():
    domain = lm.destination_domain(vconfig.GuestDomain.from_xml(SOURCE_WITH_CHAIN), SWAPS,
                                   TARGET['serial'], TARGET['volume_paths'])
    expected = (SOURCE
                .replace('/s/u/', '/d/u/')
                .replace("host='127.0.0.1' service='10000'",
                         "host='127.0.0.2' service='19999'")
                .replace('/vols/v1', '/mnt/dest/v1')
                .replace('%s', '')
                .replace('<backingStore/>', ''))
    assert canon(domain.to_xml(pretty_print=False)) == canon(expected)


def test_destination_xml_without_serial_or_volumes_only_moves_paths():
    xml = lm.destination_domain(vconfig.GuestDomain.from_xml(SOURCE_WITH_CHAIN), SWAPS).to_xml()
    root = etree.fromstring(xml.encode())
    assert root.xpath('//serial/source/@service') == ['10000']
    assert root.xpath('//disk/source/@file') == ['/d/u/disk', '/vols/v1',
                                                 '/d/u/disk.config']
    assert root.findtext('os/kernel') == '/d/u/kernel'
    # A path merely starting like the directory is another directory.
    other = SOURCE_WITH_CHAIN.replace('/s/u/disk.config', '/s/u2/disk.config')
    xml = lm.destination_domain(vconfig.GuestDomain.from_xml(other), SWAPS).to_xml()
    assert '/s/u2/disk.config' in xml


def test_writable_local_disks_are_the_instance_directorys_writable_files():
    domain = vconfig.GuestDomain.from_xml(SOURCE_WITH_CHAIN)
    assert lm.writable_local_disks(domain, '/s/u') == [('vda', '/s/u/disk')]
    assert lm.writable_local_disks(domain, '/s/u/') == [('vda', '/s/u/disk')]
    assert lm.writable_local_disks(domain, '/s') == [('vda', '/s/u/disk')]
    assert lm.writable_local_disks(domain, '/elsewhere') == []
