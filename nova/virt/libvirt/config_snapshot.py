"""libvirt snapshot XML: <domainsnapshot> and the <disk> entries it lists."""

from xml.etree import ElementTree as etree

from nova.virt.libvirt.config_base import ConfigObject, _sub


class GuestSnapshotDisk(ConfigObject):
    """<disk name snapshot type> of a <domainsnapshot>: what happens to one
    guest disk; an external one names its new overlay (driver type, file)."""

    root_name = 'disk'
    name = None                 # the guest disk's target dev
    snapshot = None             # external | internal | manual | no
    type = None                 # file | block (external snapshots)
    driver_type = None          # the overlay's format, e.g. qcow2
    source_path = None          # the overlay file

    def format_dom(self):
        disk = etree.Element('disk', {k: v for k, v in (
            ('name', self.name), ('snapshot', self.snapshot),
            ('type', self.type)) if v is not None})
        if self.driver_type is not None:
            _sub(disk, 'driver', type=self.driver_type)
        if self.source_path is not None:
            _sub(disk, 'source', file=self.source_path)
        return disk


class GuestSnapshot(ConfigObject):
    """<domainsnapshot>: the disks a snapshot takes (and leaves alone)."""

    root_name = 'domainsnapshot'
    disks = ()                  # GuestSnapshotDisk

    def format_dom(self):
        root = etree.Element('domainsnapshot')
        disks = _sub(root, 'disks')
        for disk in self.disks:
            disks.append(disk.format_dom())
        return root
