"""Tagged devices read from literal domain XML, as upstream's metadata lists them."""

from nova.metadata import content, versions
from nova.virt.libvirt import device_metadata

XML = """<domain type='qemu'><name>i</name><devices>
<disk type='file' device='disk'><source file='/x'/>
 <target dev='vda' bus='virtio'/>
 <address type='pci' domain='0x0000' bus='0x00' slot='0x04' function='0x0'/></disk>
<disk type='block' device='disk'><source dev='/dev/sdz'/>
 <target dev='vdb' bus='virtio'/><serial>vol-1</serial>
 <address type='pci' domain='0x0000' bus='0x00' slot='0x0a' function='0x0'/></disk>
<disk type='block' device='disk'><source dev='/dev/sdy'/>
 <target dev='sda' bus='scsi'/><serial>vol-2</serial>
 <address type='drive' controller='0' bus='0' target='0' unit='1'/></disk>
<disk type='block' device='disk'><source dev='/dev/sdx'/>
 <target dev='sdb' bus='sata'/>
 <address type='drive' controller='0' bus='0' target='0' unit='2'/></disk>
<interface type='ethernet'><mac address='fa:16:3e:00:00:01'/>
 <target dev='tap1'/><model type='virtio'/>
 <address type='pci' domain='0x0000' bus='0x00' slot='0x03' function='0x0'/>
</interface>
<interface type='ethernet'><mac address='fa:16:3e:00:00:02'/>
 <target dev='tap2'/><model type='virtio'/></interface>
<interface type='ethernet'><mac address='fa:16:3e:00:00:03'/>
 <target dev='tap3'/><model type='virtio'/></interface>
</devices></domain>"""

VIFS = [{'id': 'p1', 'address': 'FA:16:3E:00:00:01', 'meta': {'tag': 'nic1'}},
        {'id': 'p2', 'address': 'fa:16:3e:00:00:02', 'meta': {},
         'details': {'vlan': '100'}, 'profile': {'trusted': 'true'}},
        {'id': 'p3', 'address': 'fa:16:3e:00:00:03', 'meta': {}}]
# The local root disk's mapping keeps no name: the instance's root_device_name is its.
BDMS = [{'device_name': None, 'boot_index': 0, 'tag': 'root', 'volume_id': None},
        {'device_name': '/dev/vdb', 'tag': 'db', 'volume_id': 'vol-1'},
        {'device_name': '/dev/sda', 'tag': 'logs', 'volume_id': 'vol-2'},
        {'device_name': '/dev/sdb', 'tag': 'sata', 'volume_id': 'vol-3'}]


def test_tagged_devices_with_the_addresses_libvirt_gave_them():
    assert device_metadata.of_domain_xml(XML, VIFS, BDMS, '/dev/vda') == [
        {'type': 'disk', 'bus': 'pci', 'address': '0000:00:04.0', 'serial': None,
         'tags': ['root']},
        {'type': 'disk', 'bus': 'pci', 'address': '0000:00:0a.0', 'serial': 'vol-1',
         'tags': ['db']},
        {'type': 'disk', 'bus': 'scsi', 'address': '0:0:0:1', 'serial': 'vol-2',
         'tags': ['logs']},
        # Upstream names no bus for a SATA disk.
        {'type': 'disk', 'bus': 'none', 'address': 'none', 'serial': 'vol-3',
         'tags': ['sata']},
        {'type': 'nic', 'bus': 'pci', 'address': '0000:00:03.0',
         'mac': 'fa:16:3e:00:00:01', 'tags': ['nic1'], 'vf_trusted': False},
        # Untagged, but on a VLAN: listed, as upstream does.
        {'type': 'nic', 'bus': 'none', 'address': 'none', 'mac': 'fa:16:3e:00:00:02',
         'tags': [], 'vf_trusted': True, 'vlan': 100},
    ]


def test_untagged_devices_are_not_listed():
    vifs = [{'address': 'fa:16:3e:00:00:01', 'meta': {}}]
    bdms = [{'device_name': '/dev/vdb', 'tag': None, 'volume_id': 'vol-1'}]
    assert device_metadata.of_domain_xml(XML, vifs, bdms) == []


def test_the_metadata_versions_add_vlan_then_vf_trusted():
    recorded = device_metadata.of_domain_xml(XML, VIFS, BDMS, '/dev/vda')
    vlan_nic = recorded[-1]
    newton = content.devices(recorded, versions.NEWTON_ONE)
    assert newton[-1] == {'type': 'nic', 'bus': 'none', 'address': 'none',
                          'mac': vlan_nic['mac'], 'tags': []}
    assert newton[1] == {'type': 'disk', 'bus': 'pci', 'address': '0000:00:0a.0',
                         'serial': 'vol-1', 'tags': ['db']}
    assert content.devices(recorded, versions.OCATA)[-1]['vlan'] == 100
    assert 'vf_trusted' not in content.devices(recorded, versions.OCATA)[-1]
    rocky = content.devices(recorded, versions.ROCKY)
    assert rocky[-1]['vf_trusted'] is True and rocky[-2]['vf_trusted'] is False
    assert 'vlan' not in rocky[-2]
