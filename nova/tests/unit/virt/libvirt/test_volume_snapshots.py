"""The pure parts of assisted volume snapshots: the disk chain read from domain XML, the
snapshot XML written."""

from lxml import etree

from nova.virt.libvirt import driver_volume_snapshots as dvs

LIVE = """<domain type='kvm'><devices>
  <disk type='file' device='disk'>
    <driver name='qemu' type='qcow2'/><source file='/vols/instance-disk'/>
    <target dev='vda' bus='virtio'/>
  </disk>
  <disk type='file' device='disk'>
    <driver name='qemu' type='qcow2'/><source file='/vols/snap-2'/>
    <backingStore type='file' index='2'><format type='qcow2'/>
      <source file='/vols/snap-1'/>
      <backingStore type='file' index='3'><format type='raw'/>
        <source file='/vols/volume-v1'/><backingStore/>
      </backingStore>
    </backingStore>
    <target dev='vdb' bus='virtio'/><serial>v1</serial>
  </disk>
  <disk type='block' device='disk'>
    <source dev='/dev/sdz'/><target dev='vdc' bus='virtio'/><serial>v2</serial>
  </disk>
</devices></domain>"""


def test_volume_disk_follows_the_backing_chain():
    assert dvs.volume_disk(LIVE, 'v1') == (
        'vdb', ['/vols/snap-2', '/vols/snap-1', '/vols/volume-v1'], 'qcow2')


def test_volume_disk_is_none_for_other_kinds_or_unknown_volumes():
    assert dvs.volume_disk(LIVE, 'v2') is None      # a block device
    assert dvs.volume_disk(LIVE, 'v3') is None


def test_snapshot_xml_takes_one_disk_external_and_no_other():
    xml = etree.fromstring(dvs.snapshot_xml('vdb', '/vols/snap-3', ['vda', 'vdc']))
    assert etree.tostring(xml, encoding='unicode') == (
        '<domainsnapshot><disks>'
        '<disk name="vdb" snapshot="external" type="file"><driver type="qcow2"/>'
        '<source file="/vols/snap-3"/></disk>'
        '<disk name="vda" snapshot="no"/><disk name="vdc" snapshot="no"/>'
        '</disks></domainsnapshot>')
