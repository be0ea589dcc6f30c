"""Static disk bus rules per virt type and machine type, shared by the API and drivers."""

from nova import exception
from nova.objects.fields import DiskBus
from nova.virt import bus_table

# Image property that names the bus of each device type (the API reads it).
BUS_PROPERTY = {k.name: k.image_property for k in bus_table.KINDS if k.image_property}


def either(names):
    """'a, b or c' of a list of names."""
    names = list(names)
    return ' or '.join([', '.join(names[:-1])] + names[-1:]) if len(names) > 1 else \
        ''.join(names)


def validate_disk_bus(virt_type, bus, device_type='disk', machine_type=None):
    """Raise Invalid unless ``bus`` can carry ``device_type`` here."""
    valid = bus_table.VALID_BUSES.get(virt_type)
    if valid is None:
        raise exception.Invalid(
            reason='virt type %r has no disk buses' % virt_type)
    if bus not in valid:
        raise exception.Invalid(
            reason='disk bus %r is not supported by virt type %r; '
                   'valid buses: %s' % (bus, virt_type, ', '.join(valid)))
    rule = bus_table.RULES[bus]
    if device_type not in rule.device_types:
        raise exception.Invalid(
            reason='a %s device cannot be attached to the %r bus; that bus '
                   'takes: %s' % (device_type, bus, ', '.join(rule.device_types)))
    if not rule.exists_on(machine_type):
        raise exception.Invalid(
            reason='the %s bus does not exist on machine type %r; use %s'
                   % (bus.upper(), machine_type, either(bus_table.buses_carrying(
                       device_type, virt_type, machine_type))))


def check_image_buses(virt_type, image_props, machine_type=None):
    """Raise Invalid if a bus the image properties ask for cannot work here.

    ``machine_type`` is the host's default, used when the image names none.
    """
    machine = image_props.get('hw_machine_type') or machine_type
    for kind in sorted(bus_table.KIND_RULES.values(), key=lambda k: k.name):
        bus = image_props.get(kind.image_property) if kind.image_property else None
        if bus:
            validate_disk_bus(virt_type, bus, kind.name, machine)


def default_disk_bus(virt_type, device_type='disk', machine_type=None,
                     arch=None):
    """The bus a device type gets when the image does not ask for one: the
    first of its default buses that the virt type, machine type and
    architecture have, else the virt type's own first bus (lxc)."""
    kind = bus_table.KIND_RULES.get(device_type)
    for name in kind.default_buses if kind is not None else ():
        rule = bus_table.RULES[name]
        if (virt_type in rule.virt_types and rule.exists_on(machine_type) and
                arch not in rule.arches_without):
            return name
    return bus_table.VALID_BUSES.get(virt_type, (DiskBus.VIRTIO,))[0]
