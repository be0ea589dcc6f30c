"""The one table of disk buses, driver-neutral: names, prefixes, limits, hot-plug, rescue."""

import dataclasses

from nova.objects.fields import DiskBus

QEMU_VIRT_TYPES = ('qemu', 'kvm')


@dataclasses.dataclass(frozen=True)
class BusRule:
    """What one disk bus allows.

    ``prefix``: guest target names on it (scsi, sata and usb share 'sd', so
    names are allocated across buses).  ``max_devs``: libvirt derives
    IDE/SATA/fdc addresses from the name: an IDE controller pair has 4
    slots, one AHCI controller 6 ports, the fdc 2 drives; staying inside
    one controller keeps libvirt from adding more; the rest take the 26
    single-letter names.  ``owns_prefix``: the bus a requested name with
    that prefix implies when the request names no bus.
    """

    name: str
    prefix: str
    device_types: tuple
    virt_types: tuple = QEMU_VIRT_TYPES
    max_devs: int = 26
    hotplug: bool = False       # QEMU can add a disk while the guest runs
    rescue: bool = True         # may carry stable-device rescue media
    owns_prefix: bool = False


BUSES = (
    BusRule(DiskBus.VIRTIO, 'vd', ('disk',), hotplug=True, owns_prefix=True),
    BusRule(DiskBus.IDE, 'hd', ('disk', 'cdrom'), max_devs=4,
            owns_prefix=True),
    BusRule(DiskBus.SATA, 'sd', ('disk', 'cdrom'), max_devs=6),
    BusRule(DiskBus.SCSI, 'sd', ('disk', 'cdrom', 'lun'), hotplug=True,
            owns_prefix=True),
    BusRule(DiskBus.USB, 'sd', ('disk', 'cdrom'), hotplug=True),
    BusRule(DiskBus.FDC, 'fd', ('floppy',), max_devs=2, owns_prefix=True),
    BusRule(DiskBus.LXC, 'lxc', ('disk',), virt_types=('lxc',),
            rescue=False),
)

RULES = {rule.name: rule for rule in BUSES}

# ----------------------------------------------------------- derived views

# Buses each virt type can attach disks to.
VALID_BUSES = {vt: tuple(r.name for r in BUSES if vt in r.virt_types)
               for vt in QEMU_VIRT_TYPES + ('lxc',)}
# Device types a bus can carry: QEMU has no virtio-blk CD-ROM, fdc is
# floppy-only, and LUN passthrough needs SCSI.
VALID_DEVICE_TYPES = {r.name: r.device_types for r in BUSES}
DEV_PREFIX = {r.name: r.prefix for r in BUSES}
PREFIX_BUS = {r.prefix: r.name for r in BUSES if r.owns_prefix}
MAX_DEVS = {r.name: r.max_devs for r in BUSES}
HOTPLUG_BUSES = tuple(r.name for r in BUSES if r.hotplug)
RESCUE_BUSES = tuple(r.name for r in BUSES if r.rescue)
# The device types rescue media may be (every type a rescue bus carries,
# except LUN passthrough).
RESCUE_DEVICES = ('disk', 'cdrom', 'floppy')
