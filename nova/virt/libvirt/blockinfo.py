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

Volume entries also carry ``'volume_id'`` so callers can store the chosen
device name back into the block device mapping.

A *disk mapping* is a dict from a disk name to a disk info.  Names:

    'disk'          root disk built from the image (type cdrom for ISOs);
                    absent for a volume-backed guest
    'disk.local'    the flavor's ephemeral disk (when no ephemeral BDMs)
    'disk.eph<N>'   ephemeral block device mapping number N
    'disk.swap'     swap disk (swap BDM, else flavor swap)
    'disk.config'   config drive; takes the LAST free name of its bus
    'disk.rescue'   rescue media (stable-device rescue adds it after every
                    other disk, with boot_index 1)
    '<dev>'         volumes, keyed by their device name, e.g. 'vdb'
    'root'          the same dict object as whichever entry boots the guest

Names are inserted in the order the disks appear in the domain XML: root,
ephemerals, swap, volumes (by boot index, then device name), config drive.

Device names
------------
Names that the block device mappings request are reserved first; every
other disk then takes the first free name of its bus.  Names are unique
across buses sharing a prefix (scsi, sata and usb all use ``sd``).  Names
are stable: the same inputs always give the same mapping, and a name only
ever moves when the caller asks for it.
"""

import re

from nova import exception
from nova.virt import bus_table, disk_buses
from nova.virt.libvirt import config_devices

DEFAULT_MAX_DEVS = 26

_DEV_RE = [None, None]          # (the PREFIX_BUS it was built from, pattern)


def _dev_re():
    """The device name pattern of the table's prefixes (rebuilt only when
    the table's view is another object, as in a test with more rows)."""
    prefixes = bus_table.PREFIX_BUS
    if _DEV_RE[0] is not prefixes:
        _DEV_RE[:] = [prefixes, re.compile(r'^(%s)([a-z]+)$' % '|'.join(sorted(prefixes)))]
    return _DEV_RE[1]


def get_dev_name(prefix, index):
    """Linux-style name for the index-th device: vda..vdz, vdaa, vdab..."""
    if index < 26:
        return prefix + chr(97 + index)
    suffix = ''
    index += 1
    while index > 0:
        index, rem = divmod(index - 1, 26)
        suffix = chr(97 + rem) + suffix
    return prefix + suffix


def parse_dev(dev):
    """'vdc' -> ('vd', 2); raise Invalid for names we cannot place."""
    match = _dev_re().match(dev or '')
    if not match:
        raise exception.Invalid(
            reason='device name %r is not of the form /dev/(%s)<letters>'
                   % (dev, '|'.join(bus_table.PREFIX_BUS)))
    index = 0
    for char in match.group(2):
        index = index * 26 + (ord(char) - 96)
    return match.group(1), index - 1


def max_devs_for_bus(bus):
    return bus_table.MAX_DEVS.get(bus, DEFAULT_MAX_DEVS)


def get_disk_bus_for_device_type(virt_type, image_props, device_type='disk',
                                 machine_type=None, arch=None):
    """Bus from the image property for this device type, else the default.

    ``image_props`` is anything with ``.get(name)`` (ImageMetaProps or a
    plain dict).  The result is validated for the virt and machine type.
    """
    kind = bus_table.KIND_RULES.get(device_type)
    prop = kind.image_property if kind is not None else None
    bus = image_props.get(prop) if prop else None
    if not bus:
        bus = disk_buses.default_disk_bus(virt_type, device_type, machine_type, arch)
    disk_buses.validate_disk_bus(virt_type, bus, device_type, machine_type)
    return bus


def used_devs(mapping):
    return {info['dev'] for name, info in mapping.items() if name != 'root'}


def find_free_dev(mapping, bus, last=False, reserved=()):
    """First (or with ``last``, the final) unused name on ``bus``.

    ``reserved`` holds names that block device mappings asked for and
    that are not placed yet.  ``last`` keeps config drives out of the way
    of later volume attaches, as upstream does (IDE config drive -> hdd).
    """
    prefix = bus_table.DEV_PREFIX[bus]
    taken = used_devs(mapping)
    indexes = range(max_devs_for_bus(bus))
    if last:
        indexes = reversed(indexes)
    for index in indexes:
        dev = get_dev_name(prefix, index)
        if dev not in taken and dev not in reserved:
            return dev
    raise exception.Invalid(
        reason='no free device name left on the %r bus (it has %d)'
               % (bus, max_devs_for_bus(bus)))


def disk_info(bus, dev, device_type='disk', boot_index=None):
    return {'bus': bus, 'dev': dev, 'type': device_type,
            'boot_index': boot_index}


def strip_dev(device_name):
    """'/dev/vda' -> 'vda' (API callers pass either form)."""
    if device_name and device_name.startswith('/dev/'):
        return device_name[5:]
    return device_name


def prepend_dev(device_name):
    """'vda' -> '/dev/vda'; None stays None."""
    if device_name and not device_name.startswith('/dev/'):
        return '/dev/' + device_name
    return device_name


def check_dev_on_bus(dev, bus, what='device'):
    """Raise Invalid unless ``dev`` is a name ``bus`` can hold."""
    prefix, index = parse_dev(dev)
    if prefix != bus_table.DEV_PREFIX[bus]:
        raise exception.Invalid(
            reason='%s name /dev/%s does not match the %r bus (names on it '
                   'start with %r)' % (what, dev, bus, bus_table.DEV_PREFIX[bus]))
    if index >= max_devs_for_bus(bus):
        raise exception.Invalid(
            reason='%s name /dev/%s is beyond the %d devices of the %r bus'
                   % (what, dev, max_devs_for_bus(bus), bus))


def get_root_info(virt_type, image_props, disk_format=None,
                  machine_type=None, arch=None, root_device_name=None):
    """Disk info for the image-backed root disk (boot index 1)."""
    device_type = 'cdrom' if disk_format == 'iso' else 'disk'
    bus = get_disk_bus_for_device_type(virt_type, image_props, device_type,
                                       machine_type, arch)
    dev = strip_dev(root_device_name)
    if dev:
        check_dev_on_bus(dev, bus, 'root device')
    else:
        dev = get_dev_name(bus_table.DEV_PREFIX[bus], 0)
    return disk_info(bus, dev, device_type, boot_index=1)


def get_volume_bus(virt_type, image_props, dev=None, bus=None,
                   device_type='disk', machine_type=None, arch=None,
                   what='volume device'):
    """Bus for a block device mapping entry or a hot-plugged volume: given,
    implied by its requested name, or the image's bus for its device type
    (for the guest's architecture).  Raises Invalid when they disagree."""
    default = get_disk_bus_for_device_type(virt_type, image_props,
                                           device_type, machine_type, arch)
    if not bus:
        bus = default
        if dev:
            prefix = parse_dev(dev)[0]
            if prefix != bus_table.DEV_PREFIX[default]:
                bus = bus_table.PREFIX_BUS[prefix]
    disk_buses.validate_disk_bus(virt_type, bus, device_type, machine_type)
    if dev:
        check_dev_on_bus(dev, bus, what)
    return bus


def _bdm_bus(virt_type, image_props, machine_type, arch, bus, dev,
             device_type, what):
    return get_volume_bus(virt_type, image_props, dev, bus, device_type,
                          machine_type, arch, what)


def _reserve(reserved, dev, what):
    if not dev:
        return
    other = reserved.get(dev)
    if other is not None:
        raise exception.Invalid(
            reason='device name /dev/%s is requested by both %s and %s'
                   % (dev, other, what))
    reserved[dev] = what


def _volume_what(bdm):
    return 'volume %s' % (bdm.get('volume_id') or (
        bdm.get('connection_info') or {}).get('serial'))


def _boot_order(bdm_boot_index):
    """BDM boot_index (0-based, negative = not bootable) -> <boot order>."""
    if bdm_boot_index is None or bdm_boot_index < 0:
        return None
    return bdm_boot_index + 1


def _volume_sort_key(info):
    boot = info['boot_index']
    prefix, index = parse_dev(info['dev'])
    return (boot is None, boot or 0, prefix, index)


def get_disk_mapping(virt_type, image_props, disk_format=None,
                     machine_type=None, arch=None, root_device_name=None,
                     ephemeral_gb=0, swap_mb=0, config_drive_type=None,
                     block_device_info=None):
    """The full mapping for a guest.

    ``block_device_info`` is the compute manager's dict (root_device_name,
    ephemerals, swap, block_device_mapping); a volume with boot_index 0 is
    the root and then no image disk exists.  Flavor ephemeral/swap
    (``ephemeral_gb``, ``swap_mb``) apply only when no ephemeral/swap
    mapping replaces them.  ``config_drive_type`` is None (no config
    drive), 'cdrom' (iso9660) or 'disk' (vfat).  Requested device names
    win; conflicts raise Invalid.
    """
    bdi = block_device_info or {}
    root_device_name = strip_dev(bdi.get('root_device_name') or
                                 root_device_name)
    volumes = bdi.get('block_device_mapping') or ()
    ephemerals = bdi.get('ephemerals') or ()
    swap = bdi.get('swap')
    if swap is not None and not swap.get('swap_size'):
        swap = None
    root_bdm = next((b for b in volumes if b.get('boot_index') == 0), None)
    guest = (virt_type, image_props, machine_type, arch)
    others = [bdm for bdm in volumes if bdm is not root_bdm]

    # The root first: its name is fixed (requested or the bus's first);
    # then every requested name is reserved before any automatic choice.
    mapping = {}
    if root_bdm is not None:
        info = _root_volume_info(guest, root_bdm, root_device_name)
        mapping[info['dev']] = info
    else:
        info = get_root_info(virt_type, image_props, disk_format,
                             machine_type, arch, root_device_name)
        mapping['disk'] = info
    mapping['root'] = info
    reserved = _requested_names(info['dev'], ephemerals, swap, others)
    _add_local_disks(mapping, reserved, guest, ephemerals, ephemeral_gb,
                     swap, swap_mb)
    _add_volumes(mapping, reserved, guest, others)
    if config_drive_type:
        bus = get_disk_bus_for_device_type(
            virt_type, image_props, config_drive_type, machine_type, arch)
        mapping['disk.config'] = disk_info(
            bus, find_free_dev(mapping, bus, last=True), config_drive_type)
    return mapping


def _root_volume_info(guest, root_bdm, root_device_name):
    """Disk info of a boot volume (boot index 0): the requested name, else
    the first of its bus."""
    root_dev = strip_dev(root_bdm.get('mount_device')) or root_device_name
    dtype = root_bdm.get('device_type') or 'disk'
    bus = _bdm_bus(*guest, root_bdm.get('disk_bus'), root_dev, dtype,
                   'root device')
    info = disk_info(bus, root_dev or get_dev_name(bus_table.DEV_PREFIX[bus], 0),
                     dtype, boot_index=1)
    info['volume_id'] = _volume_id(root_bdm)
    return info


def _requested_names(root_dev, ephemerals, swap, volumes):
    """{dev: what} of every name a mapping asks for (conflicts raise
    Invalid); the root's own name is not kept."""
    reserved = {root_dev: 'the root disk'}
    for eph in ephemerals:
        _reserve(reserved, strip_dev(eph.get('device_name')),
                 'ephemeral disk %s' % eph.get('num', 0))
    if swap is not None:
        _reserve(reserved, strip_dev(swap.get('device_name')),
                 'the swap disk')
    for bdm in volumes:
        _reserve(reserved, strip_dev(bdm.get('mount_device')),
                 _volume_what(bdm))
    reserved.pop(root_dev)
    return reserved


def _add_local_disks(mapping, reserved, guest, ephemerals, ephemeral_gb,
                     swap, swap_mb):
    """Ephemeral and swap disks: from their mappings, else the flavor's."""
    virt_type, image_props, machine_type, arch = guest
    disk_bus = None
    if ephemerals:
        for eph in sorted(ephemerals, key=lambda e: e.get('num', 0)):
            _add_bdm_disk(mapping, reserved, 'disk.eph%d' % eph.get('num', 0),
                          *guest, eph.get('disk_bus'), eph.get('device_name'),
                          eph.get('device_type') or 'disk',
                          'ephemeral disk %s' % eph.get('num', 0))
    elif ephemeral_gb:
        disk_bus = get_disk_bus_for_device_type(
            virt_type, image_props, 'disk', machine_type, arch)
        mapping['disk.local'] = disk_info(
            disk_bus, find_free_dev(mapping, disk_bus, reserved=reserved))
    if swap is not None:
        _add_bdm_disk(mapping, reserved, 'disk.swap', *guest,
                      swap.get('disk_bus'), swap.get('device_name'), 'disk',
                      'the swap disk')
    elif swap_mb:
        if disk_bus is None:
            disk_bus = get_disk_bus_for_device_type(
                virt_type, image_props, 'disk', machine_type, arch)
        mapping['disk.swap'] = disk_info(
            disk_bus, find_free_dev(mapping, disk_bus, reserved=reserved))


def _add_volumes(mapping, reserved, guest, volumes):
    """Every volume but the root, in XML order (boot index, then name)."""
    vol_infos = []
    for bdm in volumes:
        dev = strip_dev(bdm.get('mount_device'))
        dtype = bdm.get('device_type') or 'disk'
        bus = _bdm_bus(*guest, bdm.get('disk_bus'), dev, dtype,
                       _volume_what(bdm))
        if dev:
            reserved.pop(dev, None)
        else:
            dev = find_free_dev(mapping, bus, reserved=reserved)
        info = disk_info(bus, dev, dtype, _boot_order(bdm.get('boot_index')))
        info['volume_id'] = _volume_id(bdm)
        # Placed now so the next automatic name skips it; re-inserted in
        # XML order below.
        mapping[dev] = info
        vol_infos.append(info)
    if len(vol_infos) > 1:
        for info in vol_infos:
            del mapping[info['dev']]
        for info in sorted(vol_infos, key=_volume_sort_key):
            mapping[info['dev']] = info


def _volume_id(bdm):
    return bdm.get('volume_id') or (bdm.get('connection_info') or {}).get(
        'serial')


def _add_bdm_disk(mapping, reserved, name, virt_type, image_props,
                  machine_type, arch, bus, device_name, device_type, what):
    dev = strip_dev(device_name)
    bus = _bdm_bus(virt_type, image_props, machine_type, arch, bus, dev,
                   device_type, what)
    if dev:
        reserved.pop(dev, None)
    else:
        dev = find_free_dev(mapping, bus, reserved=reserved)
    mapping[name] = disk_info(bus, dev, device_type)


def get_device_names(mapping):
    """The names to store back into the block device mappings.

    Returns ``{'root_device_name': '/dev/vda', 'ephemerals': {num:
    '/dev/vdb'}, 'swap': '/dev/vdc' or None, 'volumes': {volume_id:
    '/dev/vdd'}}``.
    """
    result = {'root_device_name': prepend_dev(mapping['root']['dev']),
              'ephemerals': {}, 'swap': None, 'volumes': {}}
    for name, info in mapping.items():
        if name.startswith('disk.eph'):
            result['ephemerals'][int(name[8:])] = prepend_dev(info['dev'])
        elif name == 'disk.local':
            result['ephemerals'].setdefault(0, prepend_dev(info['dev']))
        elif name == 'disk.swap':
            result['swap'] = prepend_dev(info['dev'])
        elif 'volume_id' in info and name != 'root':
            result['volumes'][info['volume_id']] = prepend_dev(info['dev'])
    return result


def get_drive_unit(bus, dev):
    """The drive unit of a disk on a bus whose addresses the driver writes
    (unit_is_name_index: SCSI on virtio-scsi): its name index, else None.

    libvirt otherwise derives 7 units per controller from the name and
    adds (lsilogic) controllers for sdh and beyond; virtio-scsi takes
    16384 units on one controller, so the name maps 1:1 to a unit.
    """
    rule = bus_table.RULES.get(bus)
    if rule is None or not rule.unit_is_name_index:
        return None
    return parse_dev(dev)[1]


def controller_models(image_props):
    """{bus: model} of the controllers a guest's buses get (e.g. the SCSI
    controller: hw_scsi_model, else virtio-scsi)."""
    return {rule.name: (rule.model_property and image_props.get(rule.model_property)) or
            rule.controller_model for rule in bus_table.BUSES if rule.controller}


def drive_address(info, controller_model=None):
    """Explicit <address type='drive'> for a disk on a bus whose addresses
    the driver writes (unit = name index), on the controller model the
    table names for it, so libvirt never adds controllers; None for every
    other bus or controller model (``controller_model``: the guest's, None
    for the table's)."""
    unit = get_drive_unit(info['bus'], info['dev'])
    rule = bus_table.RULES.get(info['bus'])
    if unit is None or rule.address != 'drive' or (
            controller_model or rule.controller_model) != rule.controller_model:
        return None
    return config_devices.GuestDeviceAddressDrive(controller=0, bus=0,
                                                  target=0, unit=unit)


def get_next_device_name(used, bus):
    """First free name on ``bus`` given the names ``used`` in the guest
    (hot-plug: the persistent domain XML is the source of ``used``)."""
    used = set(used)
    prefix = bus_table.DEV_PREFIX[bus]
    for index in range(max_devs_for_bus(bus)):
        dev = get_dev_name(prefix, index)
        if dev not in used:
            return dev
    raise exception.Invalid(
        reason='no free device name left on the %r bus (it has %d)'
               % (bus, max_devs_for_bus(bus)))


def get_legacy_rescue_mapping(root, config=None):
    """Legacy rescue: the rescue disk takes the root's name and bus and
    boots; the original root moves to the next free name of that bus; the
    config drive keeps its name; nothing else is attached (upstream's
    layout, for rescue images without hw_rescue_bus/hw_rescue_device)."""
    rescue = disk_info(root['bus'], root['dev'], 'disk', boot_index=1)
    taken = {'disk.rescue': rescue}
    if config is not None:
        taken['disk.config'] = config
    mapping = {'disk.rescue': rescue, 'root': rescue,
               'disk': disk_info(root['bus'],
                                 find_free_dev(taken, root['bus']),
                                 root['type'])}
    if config is not None:
        mapping['disk.config'] = dict(config)
    return mapping


# ------------------------------------------------------------------ rescue
# The domain being rescued is the source of truth for its disks: the
# caller reads the saved definition into config objects and passes each
# <disk> as a disk info (disk_info_from_config), in XML order.

def disk_info_from_config(disk):
    """Disk info of a parsed config.GuestDisk."""
    return disk_info(disk.target_bus, disk.target_dev, disk.source_device,
                     disk.boot_order)


def get_boot_disk(disks):
    """The disk info that boots: boot order 1, else the first; or None."""
    for info in disks:
        if info['boot_index'] == 1:
            return info
    return disks[0] if disks else None


def get_stable_rescue_mapping(disks, bus, device, other_boot_orders=False):
    """Stable-device rescue: every disk keeps its name and bus (keyed by
    its name); per-device boot orders move down by one (with none at all,
    the first disk gets 2); the rescue media ('disk.rescue', also 'root')
    takes the first free name of ``bus`` and boot order 1, and goes last.
    ``other_boot_orders``: a non-disk device (a NIC) has a boot order, so
    the guest already boots by per-device order.
    """
    mapping = {}
    ordered = other_boot_orders or any(info['boot_index'] is not None
                                       for info in disks)
    for position, info in enumerate(disks):
        new = dict(info)
        if ordered and info['boot_index'] is not None:
            new['boot_index'] = info['boot_index'] + 1
        elif not ordered and position == 0:
            new['boot_index'] = 2
        mapping[info['dev']] = new
    rescue = disk_info(bus, find_free_dev(mapping, bus), device,
                       boot_index=1)
    mapping['disk.rescue'] = rescue
    mapping['root'] = rescue
    return mapping


def get_rescue_mapping(disks, rescue_device=None, config_dev=None):
    """The rescue layout of a guest whose disks are ``disks``.

    ``rescue_device`` is (bus, device) for stable-device rescue, None for
    the legacy layout (where ``config_dev``, the config drive's name, is
    the one other disk kept).  As upstream's get_disk_mapping(rescue=True).
    """
    if rescue_device is not None:
        return get_stable_rescue_mapping(disks, *rescue_device)
    config = None
    for info in disks:
        if config_dev and info['dev'] == config_dev:
            config = info
    return get_legacy_rescue_mapping(get_boot_disk(disks), config)


def check_device_count(count, maximum):
    """TooManyDiskDevices when a guest would have ``count`` disk devices and
    the host allows ``maximum`` ([compute] max_disk_devices_to_attach; -1: no
    limit)."""
    if 0 <= maximum < count:
        raise exception.TooManyDiskDevices(maximum=maximum)
