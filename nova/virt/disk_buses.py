"""Static disk bus rules per virt type and machine type, shared by the API and drivers."""

from nova import exception

# Views of the bus table (plain data, no driver import).
from nova.virt.bus_table import (  # noqa: F401 - re-exported
    VALID_BUSES,
    VALID_DEVICE_TYPES,
)

# Architectures whose machines have no IDE/SATA and boot CDs from SCSI.
_SCSI_CDROM_ARCHES = ('aarch64', 'armv7l', 'ppc64', 'ppc64le', 's390x')

# Image property that names the bus of each device type.
BUS_PROPERTY = {'disk': 'hw_disk_bus', 'cdrom': 'hw_cdrom_bus', 'floppy': 'hw_floppy_bus'}


def is_q35(machine_type):
    """True for 'q35' and versioned names such as 'pc-q35-7.2'."""
    return bool(machine_type) and 'q35' in machine_type


def validate_disk_bus(virt_type, bus, device_type='disk', machine_type=None):
    """Raise Invalid unless ``bus`` can carry ``device_type`` here."""
    valid = VALID_BUSES.get(virt_type)
    if valid is None:
        raise exception.Invalid(
            reason='virt type %r has no disk buses' % virt_type)
    if bus not in valid:
        raise exception.Invalid(
            reason='disk bus %r is not supported by virt type %r; '
                   'valid buses: %s' % (bus, virt_type, ', '.join(valid)))
    if device_type not in VALID_DEVICE_TYPES[bus]:
        raise exception.Invalid(
            reason='a %s device cannot be attached to the %r bus; that bus '
                   'takes: %s' % (device_type, bus,
                                  ', '.join(VALID_DEVICE_TYPES[bus])))
    if bus == 'ide' and is_q35(machine_type):
        raise exception.Invalid(
            reason='the IDE bus does not exist on machine type %r; use '
                   'sata or scsi' % machine_type)


def check_image_buses(virt_type, image_props, machine_type=None):
    """Raise Invalid if a bus the image properties ask for cannot work here.

    ``machine_type`` is the host's default, used when the image names none.
    """
    machine = image_props.get('hw_machine_type') or machine_type
    for device_type, prop in sorted(BUS_PROPERTY.items()):
        bus = image_props.get(prop)
        if bus:
            validate_disk_bus(virt_type, bus, device_type, machine)


def default_disk_bus(virt_type, device_type='disk', machine_type=None,
                     arch=None):
    """The bus a device type gets when the image does not ask for one."""
    if virt_type == 'lxc':
        return 'lxc'
    if device_type == 'cdrom':
        if arch in _SCSI_CDROM_ARCHES:
            return 'scsi'
        # q35 has an AHCI controller and no IDE; i440fx ('pc') has IDE.
        return 'sata' if is_q35(machine_type) else 'ide'
    if device_type == 'floppy':
        return 'fdc'
    if device_type == 'lun':
        return 'scsi'
    return 'virtio'
