"""Disk mapping: which bus, device name and boot index each guest disk gets.

Everything here is a pure function over plain data; configuration (virt
type, machine type, architecture) is passed in, never read from CONF.

Vocabulary
----------
A *disk info* is a dict::

    {'bus': 'virtio',       # virtio | ide | sata | scsi | usb | fdc | lxc
     'dev': 'vda',          # guest target name, unique across the guest
     'type': 'disk',        # disk | cdrom | floppy | lun
     'boot_index': 1}       # per-device <boot order>, or None

A *disk mapping* is a dict from a disk name to a disk info.  Names:

    'disk'          root disk built from the image (type cdrom for ISOs)
    'disk.local'    first ephemeral disk (flavor ephemeral_gb)
    'disk.swap'     swap disk (flavor swap)
    'disk.config'   config drive; takes the LAST slot of its bus
    'disk.rescue'   rescue media (reserved; stable-device rescue adds it
                    after every other disk, with boot_index 1)
    '<dev>'         volumes, keyed by their device name, e.g. 'vdb'
                    (reserved for block device mappings)
    'root'          the same dict object as whichever entry boots the guest

Names are inserted in the order the disks appear in the domain XML.
"""

from nova import exception

# Buses each virt type can attach disks to (upstream's list, minus Xen/UML).
VALID_BUSES = {
    'qemu': ('virtio', 'ide', 'sata', 'scsi', 'usb', 'fdc'),
    'kvm': ('virtio', 'ide', 'sata', 'scsi', 'usb', 'fdc'),
    'lxc': ('lxc',),
}

# Device types a bus can carry: QEMU has no virtio-blk CD-ROM, fdc is
# floppy-only, and LUN passthrough needs SCSI.
VALID_DEVICE_TYPES = {
    'virtio': ('disk',),
    'ide': ('disk', 'cdrom'),
    'sata': ('disk', 'cdrom'),
    'scsi': ('disk', 'cdrom', 'lun'),
    'usb': ('disk', 'cdrom'),
    'fdc': ('floppy',),
    'lxc': ('disk',),
}

# Target name prefix per bus; scsi/sata/usb share 'sd', so names are
# allocated across all buses, not per bus.
DEV_PREFIX = {
    'virtio': 'vd',
    'ide': 'hd',
    'sata': 'sd',
    'scsi': 'sd',
    'usb': 'sd',
    'fdc': 'fd',
    'lxc': 'lxc',
}

# An IDE controller pair has 4 slots and the fdc 2 drives; the rest get
# the 26 single-letter names.
MAX_DEVS = {'ide': 4, 'fdc': 2}
DEFAULT_MAX_DEVS = 26

# Architectures whose machines have no IDE/SATA and boot CDs from SCSI.
_SCSI_CDROM_ARCHES = ('aarch64', 'armv7l', 'ppc64', 'ppc64le', 's390x')

# Image property that overrides the bus for each device type.
BUS_PROPERTY = {
    'disk': 'hw_disk_bus',
    'cdrom': 'hw_cdrom_bus',
    'floppy': 'hw_floppy_bus',
}


def is_q35(machine_type):
    """True for 'q35' and versioned names such as 'pc-q35-7.2'."""
    return bool(machine_type) and 'q35' in machine_type


def get_dev_name(prefix, index):
    """Linux-style name for the index-th device: vda..vdz, vdaa, vdab..."""
    suffix = ''
    index += 1
    while index > 0:
        index, rem = divmod(index - 1, 26)
        suffix = chr(ord('a') + rem) + suffix
    return prefix + suffix


def max_devs_for_bus(bus):
    return MAX_DEVS.get(bus, DEFAULT_MAX_DEVS)


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


def get_disk_bus_for_device_type(virt_type, image_props, device_type='disk',
                                 machine_type=None, arch=None):
    """Bus from the image property for this device type, else the default.

    ``image_props`` is anything with ``.get(name)`` (ImageMetaProps or a
    plain dict).  The result is validated for the virt and machine type.
    """
    prop = BUS_PROPERTY.get(device_type)
    bus = image_props.get(prop) if prop else None
    if not bus:
        bus = default_disk_bus(virt_type, device_type, machine_type, arch)
    validate_disk_bus(virt_type, bus, device_type, machine_type)
    return bus


def used_devs(mapping):
    return {info['dev'] for name, info in mapping.items() if name != 'root'}


def find_free_dev(mapping, bus, last=False):
    """First (or with ``last``, the final) unused name on ``bus``.

    ``last`` keeps config drives out of the way of later volume attaches,
    as upstream does (IDE config drive -> hdd).
    """
    prefix = DEV_PREFIX[bus]
    taken = used_devs(mapping)
    indexes = range(max_devs_for_bus(bus))
    if last:
        indexes = reversed(indexes)
    for index in indexes:
        dev = get_dev_name(prefix, index)
        if dev not in taken:
            return dev
    raise exception.Invalid(
        reason='no free device name left on the %r bus' % bus)


def disk_info(bus, dev, device_type='disk', boot_index=None):
    return {'bus': bus, 'dev': dev, 'type': device_type,
            'boot_index': boot_index}


def strip_dev(device_name):
    """'/dev/vda' -> 'vda' (API callers pass either form)."""
    if device_name and device_name.startswith('/dev/'):
        return device_name[5:]
    return device_name


def get_root_info(virt_type, image_props, disk_format=None,
                  machine_type=None, arch=None, root_device_name=None):
    """Disk info for the image-backed root disk (boot index 1)."""
    device_type = 'cdrom' if disk_format == 'iso' else 'disk'
    bus = get_disk_bus_for_device_type(virt_type, image_props, device_type,
                                       machine_type, arch)
    dev = strip_dev(root_device_name)
    if dev:
        if not dev.startswith(DEV_PREFIX[bus]):
            raise exception.Invalid(
                reason='root device name %r does not match the %r bus '
                       '(expected a name starting with %r)'
                       % (root_device_name, bus, DEV_PREFIX[bus]))
    else:
        dev = get_dev_name(DEV_PREFIX[bus], 0)
    return disk_info(bus, dev, device_type, boot_index=1)


def get_disk_mapping(virt_type, image_props, disk_format=None,
                     machine_type=None, arch=None, root_device_name=None,
                     ephemeral_gb=0, swap_mb=0, config_drive_type=None):
    """The full mapping for a guest booted from an image.

    ``config_drive_type`` is None (no config drive), 'cdrom' (iso9660) or
    'disk' (vfat).  Ephemeral and swap disks reuse the root disk's bus
    choice (hw_disk_bus), as upstream does.
    """
    mapping = {}
    root = get_root_info(virt_type, image_props, disk_format, machine_type,
                         arch, root_device_name)
    mapping['disk'] = root
    mapping['root'] = root
    if ephemeral_gb or swap_mb:
        bus = get_disk_bus_for_device_type(virt_type, image_props, 'disk',
                                           machine_type, arch)
        if ephemeral_gb:
            mapping['disk.local'] = disk_info(
                bus, find_free_dev(mapping, bus))
        if swap_mb:
            mapping['disk.swap'] = disk_info(bus, find_free_dev(mapping, bus))
    if config_drive_type:
        bus = get_disk_bus_for_device_type(
            virt_type, image_props, config_drive_type, machine_type, arch)
        mapping['disk.config'] = disk_info(
            bus, find_free_dev(mapping, bus, last=True), config_drive_type)
    return mapping
