"""Device-role tagging: the metadata "devices" list read from a guest's live domain XML."""

from nova.network import model
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt.config_devices import (
    GuestDeviceAddressDrive,
    GuestDeviceAddressPCI,
    GuestDisk,
)
from nova.virt.libvirt.config_interfaces import GuestInterface

# Disk buses upstream names for a drive address; a disk on another bus (sata,
# virtio without a PCI address) is listed with bus and address 'none'.
_DRIVE_BUSES = ('scsi', 'ide', 'usb')


def _hex(value):
    return int(str(value), 16) if value is not None else 0


def device_bus(dev):
    """(bus, address) of a parsed device as upstream's metadata spells them.

    A PCI address is ``dddd:bb:ss.f``; a SCSI, IDE or USB disk's drive
    address ``controller:bus:target:unit``; anything else ``('none', 'none')``.
    """
    addr = dev.address
    if isinstance(addr, GuestDeviceAddressPCI):
        return 'pci', '%04x:%02x:%02x.%x' % (
            _hex(addr.domain), _hex(addr.bus), _hex(addr.slot), _hex(addr.function))
    bus = getattr(dev, 'target_bus', None)
    if isinstance(addr, GuestDeviceAddressDrive) and bus in _DRIVE_BUSES:
        return bus, '%s:%s:%s:%s' % tuple(
            0 if v is None else v for v in (addr.controller, addr.bus, addr.target, addr.unit))
    return 'none', 'none'


def _exposed_vifs(network_info):
    """{MAC: (tag, vlan, trusted)} of the ports a guest is told about: tagged or on a VLAN."""
    exposed = {}
    for vif in network_info or ():
        tag = model.tag(vif)
        vlan = (vif.get('details') or {}).get('vlan')
        trusted = str((vif.get('profile') or {}).get('trusted', '')).lower() in (
            'true', '1', 'yes', 'on')
        if tag or vlan:
            exposed[(vif.get('address') or '').lower()] = (tag, vlan, trusted)
    return exposed


def _disk_name(bdm, root_device_name):
    """The target dev of a mapping's disk: its name, or the instance's root name for a
    local root disk (whose mapping keeps none)."""
    name = bdm.get('device_name') or (root_device_name if bdm.get('boot_index') == 0 else None)
    return (name or '').rpartition('/')[2]


def tagged_vifs(network_info):
    """Whether any port of ``network_info`` would be listed (a tag or a VLAN)."""
    return bool(_exposed_vifs(network_info))


def build(domain, network_info, bdms, root_device_name=None):
    """The "devices" list of ``domain`` (a parsed GuestDomain), in the order of its devices.

    ``network_info``: the instance's VIFs (a NIC is listed when its port has
    a device tag or a VLAN, as upstream); ``bdms``: its block device mapping
    rows (a disk is listed when its mapping has a tag; ``serial`` is the
    mapping's volume id). Each entry keeps ``vlan`` and ``vf_trusted``; the
    metadata service drops them for the versions that predate them.
    """
    vifs = _exposed_vifs(network_info)
    tagged = {_disk_name(b, root_device_name): b for b in bdms or () if b.get('tag')}
    devices = []
    for dev in domain.devices:
        if isinstance(dev, GuestInterface):
            found = vifs.get((dev.mac_addr or '').lower())
            if found is None:
                continue
            tag, vlan, trusted = found
            bus, address = device_bus(dev)
            entry = {'type': 'nic', 'bus': bus, 'address': address, 'mac': dev.mac_addr,
                     'tags': [tag] if tag else [], 'vf_trusted': trusted}
            if vlan:
                entry['vlan'] = int(vlan)
            devices.append(entry)
        elif isinstance(dev, GuestDisk):
            bdm = tagged.get(dev.target_dev or '')
            if bdm is None:
                continue
            bus, address = device_bus(dev)
            devices.append({'type': 'disk', 'bus': bus, 'address': address,
                            'serial': bdm.get('volume_id'), 'tags': [bdm['tag']]})
    return devices


def of_domain_xml(domain_xml, network_info, bdms, root_device_name=None):
    """``build`` over the text of a domain's XML."""
    return build(vconfig.GuestDomain.from_xml(domain_xml), network_info, bdms,
                 root_device_name)
