"""The driver-neutral bus rules the API applies before accepting a boot."""

import pytest

from nova import exception
from nova.virt import disk_buses


@pytest.mark.parametrize('virt_type,props,machine', [
    ('kvm', {'hw_disk_bus': 'xen'}, None),
    ('qemu', {'hw_disk_bus': 'ide'}, 'q35'),
    ('qemu', {'hw_disk_bus': 'ide', 'hw_machine_type': 'pc-q35-8.2'}, 'pc'),
    ('kvm', {'hw_cdrom_bus': 'virtio'}, None),
    ('kvm', {'hw_floppy_bus': 'ide'}, None),
    ('lxc', {'hw_disk_bus': 'virtio'}, None),
])
def test_impossible_buses_are_invalid(virt_type, props, machine):
    with pytest.raises(exception.Invalid):
        disk_buses.check_image_buses(virt_type, props, machine)


@pytest.mark.parametrize('virt_type,props,machine', [
    ('kvm', {}, 'q35'),
    ('kvm', {'hw_disk_bus': 'ide'}, 'pc'),
    ('qemu', {'hw_disk_bus': 'ide', 'hw_machine_type': 'pc'}, 'q35'),
    ('qemu', {'hw_disk_bus': 'scsi', 'hw_cdrom_bus': 'sata'}, 'q35'),
    ('kvm', {'hw_floppy_bus': 'fdc'}, None),
])
def test_possible_buses_pass(virt_type, props, machine):
    disk_buses.check_image_buses(virt_type, props, machine)
