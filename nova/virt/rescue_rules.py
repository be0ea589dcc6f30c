"""Stable-device rescue request rules, shared by the API (node record) and drivers."""

from nova import exception
from nova.virt import bus_table, disk_buses


def is_stable_rescue(rescue_props):
    return bool(rescue_props.get('hw_rescue_bus') or
                rescue_props.get('hw_rescue_device'))


def get_rescue_device(virt_type, instance_props, rescue_props,
                      machine_type=None, arch=None):
    """(bus, device) of the rescue media, or None for legacy rescue.

    Unset device: the first kind the bus boots (floppy on fdc, else disk).
    Unset bus: for a kind that goes on the server's own bus (a disk), the
    instance's bus property for it (the driver default if unset); for any
    other the kind's default (a cdrom: sata on q35, else ide; fdc for a
    floppy).
    """
    bus = rescue_props.get('hw_rescue_bus')
    device = rescue_props.get('hw_rescue_device')
    if not bus and not device:
        return None
    if not device:
        rule = bus_table.RULES.get(bus)
        device = rule.boots[0] if rule is not None and rule.boots else 'disk'
    if not bus:
        kind = bus_table.KIND_RULES.get(device)
        if kind is not None and kind.rescue_on_instance_bus:
            bus = instance_props.get(kind.image_property)
        bus = bus or disk_buses.default_disk_bus(virt_type, device,
                                                 machine_type, arch)
    return bus, device


def validate_rescue(virt_type, instance_image_props, rescue_image_props,
                    domain_caps=None, machine_type=None,
                    rescue_disk_format=None, volume_backed=False, arch=None):
    """Check a rescue request before anything changes.

    Returns (bus, device) for stable-device rescue, None for legacy.
    ``domain_caps`` is the libvirt driver's parse_domain_disk_caps() or
    node_disk_caps() output (or None to skip the host check);
    ``rescue_disk_format`` is the rescue image's disk_format.  Raises
    UnsupportedRescue* (all exception.Invalid).
    """
    raw_bus = rescue_image_props.get('hw_rescue_bus')
    raw_device = rescue_image_props.get('hw_rescue_device')
    if not raw_bus and not raw_device:
        if volume_backed:
            raise exception.UnsupportedRescue(
                reason='a volume-backed instance can only be rescued with a '
                       'rescue image that sets hw_rescue_bus and/or '
                       'hw_rescue_device (stable device rescue)')
        return None
    _check_requested(virt_type, raw_bus, raw_device)
    bus, device = get_rescue_device(virt_type, instance_image_props,
                                    rescue_image_props, machine_type, arch)
    _check_pair(bus, device, machine_type)
    if domain_caps:
        _check_host_offers(domain_caps, bus, device, machine_type)
    if bus_table.KIND_RULES[device].needs_disk_format and not rescue_disk_format:
        # Without a format there is nothing to put in the drive.
        raise exception.UnsupportedRescueImage(
            reason='a %s rescue device needs an image with a '
                   'disk_format, this one has disk_format=None' % device)
    # Any other image goes in the drive as upstream puts it there; the
    # firmware boots a CD-ROM only from El Torito media (an ISO), so a
    # plain disk image in a cdrom is readable media, not a boot device.
    return bus, device


def _check_requested(virt_type, raw_bus, raw_device):
    """The virt type allows stable rescue and the named bus/device exist."""
    virt_types = bus_table.STABLE_RESCUE_VIRT_TYPES
    if virt_type not in virt_types:
        raise exception.UnsupportedRescue(
            reason='stable device rescue (hw_rescue_bus/hw_rescue_device) '
                   'is not supported on virt type %r, only on %s'
                   % (virt_type, ' and '.join(virt_types)))
    if raw_device and raw_device not in bus_table.RESCUE_DEVICES:
        raise exception.UnsupportedRescueDevice(
            device=raw_device, reason='hw_rescue_device must be one of %s'
                                      % ', '.join(bus_table.RESCUE_DEVICES))
    if raw_bus and raw_bus not in bus_table.RESCUE_BUSES:
        raise exception.UnsupportedRescueBus(
            bus=raw_bus, reason='hw_rescue_bus must be one of %s'
                                % ', '.join(bus_table.RESCUE_BUSES))


def _check_pair(bus, device, machine_type):
    """The bus can carry the device, the firmware boots it, the machine has the bus."""
    rule = bus_table.RULES[bus]
    if device not in rule.device_types:
        only = bus_table.buses_carrying(device)
        if len(only) == 1:
            raise exception.UnsupportedRescueDevice(
                device=device, reason='a %s needs hw_rescue_bus=%s, not %r'
                                      % (device, only[0], bus))
        if all(bus_table.buses_carrying(kind) == (bus,) for kind in rule.device_types):
            raise exception.UnsupportedRescueBus(
                bus=bus, reason='the %s bus only carries hw_rescue_device=%s, not %r'
                                % (bus, disk_buses.either(rule.device_types), device))
        raise exception.UnsupportedRescueDevice(
            device=device, reason='the %r bus cannot carry a %s (it takes: '
                                  '%s)' % (bus, device, ', '.join(rule.device_types)))
    if device not in rule.boots:
        others = [name for name in bus_table.buses_carrying(device, booting=True)
                  if name != bus]
        raise exception.UnsupportedRescueDevice(
            device=device, reason='the firmware does not boot a %s on the %s bus; use '
                                  'hw_rescue_bus=%s with hw_rescue_device=%s%s, or a %s '
                                  'on %s' % (device, bus, bus, disk_buses.either(rule.boots),
                                             ' (%s)' % rule.boot_hint if rule.boot_hint
                                             else '', device, disk_buses.either(others)))
    if not rule.exists_on(machine_type):
        raise exception.UnsupportedRescueBus(
            bus=bus, reason='machine type %r has no %s bus; for a %s use %s'
                            % (machine_type, bus.upper(), device, disk_buses.either(
                                name for name in bus_table.buses_carrying(
                                    device, machine_type=machine_type, booting=True)
                                if bus_table.RULES[name].rescue)))


def _check_host_offers(domain_caps, bus, device, machine_type):
    """The host's QEMU offers the bus and the device (domain capabilities)."""
    buses = domain_caps.get('bus') or ()
    if buses and bus not in buses:
        raise exception.UnsupportedRescueBus(
            bus=bus, reason="this host's QEMU offers no %r disk bus for "
                            'machine type %s (it offers: %s)'
                            % (bus, machine_type or 'default',
                               ', '.join(buses)))
    devices = domain_caps.get('diskDevice') or ()
    if devices and device not in devices:
        raise exception.UnsupportedRescueDevice(
            device=device, reason="this host's QEMU offers no %s disk "
                                  'device (it offers: %s)'
                                  % (device, ', '.join(devices)))


def node_disk_caps(node_caps, instance_machine_type=None):
    """{'bus': (...), 'diskDevice': (...)} a node record reports for its
    default machine type; None when it reports none or the instance asks
    for another machine type (the host then checks at rescue time)."""
    buses = node_caps.get('rescue_disk_buses')
    if not buses or (instance_machine_type and
                     instance_machine_type != node_caps.get('machine_type')):
        return None
    devices = node_caps.get('rescue_disk_devices') or ''
    return {'bus': tuple(buses.split(',')),
            'diskDevice': tuple(devices.split(',')) if devices else ()}

def disk_count_bound(bdms, ephemeral_gb=0, swap_mb=0):
    """At most how many disks the guest has: the root, each mapping, the
    flavor's ephemeral and swap disks and a config drive."""
    return 2 + len(bdms or ()) + (1 if ephemeral_gb else 0) + (1 if swap_mb else 0)


def names_may_run_out(bus, disk_bound):
    """False when a guest with at most ``disk_bound`` disks surely has a
    free name on ``bus`` (names are counted across every bus, as buses
    sharing a prefix share names)."""
    rule = bus_table.RULES.get(bus)
    return disk_bound >= (rule.max_devs if rule is not None else 26)
