"""The one table of disk buses and device kinds: what each bus carries, boots and needs."""

import dataclasses

from nova.objects.fields import BlockDeviceType as Kind
from nova.objects.fields import DiskBus

QEMU_VIRT_TYPES = ('qemu', 'kvm')
# Machines of these architectures have neither IDE nor SATA.
NO_IDE_SATA_ARCHES = ('aarch64', 'armv7l', 'ppc64', 'ppc64le', 's390x')


@dataclasses.dataclass(frozen=True)
class BusRule:
    """What one disk bus allows.

    ``prefix``: guest target names on it (scsi, sata and usb share 'sd', so
    names are allocated across buses).  ``max_devs``: libvirt derives
    IDE/SATA/fdc addresses from the name: an IDE controller pair has 4
    slots, one AHCI controller 6 ports, the fdc 2 drives; staying inside
    one controller keeps libvirt from adding more; the rest take the 26
    single-letter names.  ``owns_prefix``: the bus a requested name with
    that prefix implies when the request names no bus.  ``boots``: the
    device kinds the firmware boots from this bus (``boot_hint`` says what
    to do instead).  ``machines_without``: machine type families (a part of
    the machine type's name) that have no such bus; ``arches_without``:
    architectures whose machines have none (a default never picks it
    there).  ``controller``: the <controller type> the driver adds when the
    guest has none, of ``controller_model`` unless the image property
    ``model_property`` names one; a controller without a model is
    libvirt's ``implicit_model``.  ``address``: the <address type> a disk
    gets on it; ``unit_is_name_index``: the driver writes that address
    itself, unit = the index of the target name, so one controller of
    ``controller_model`` takes every disk and libvirt never adds more.
    """

    name: str
    prefix: str
    device_types: tuple
    boots: tuple = None         # None: every device type it carries
    boot_hint: str = None
    virt_types: tuple = QEMU_VIRT_TYPES
    machines_without: tuple = ()
    arches_without: tuple = ()
    max_devs: int = 26
    hotplug: bool = False       # QEMU can add a disk while the guest runs
    rescue: bool = True         # may carry stable-device rescue media
    owns_prefix: bool = False
    controller: str = None
    controller_model: str = None
    model_property: str = None
    implicit_model: str = None
    address: str = None         # pci | drive | usb
    unit_is_name_index: bool = False

    def __post_init__(self):
        if self.boots is None:
            object.__setattr__(self, 'boots', self.device_types)

    def exists_on(self, machine_type):
        """False when machine type ``machine_type`` has no such bus."""
        if not machine_type or not self.machines_without:
            return True
        return not any(family in machine_type for family in self.machines_without)


@dataclasses.dataclass(frozen=True)
class DeviceKind:
    """One kind of disk device (the <disk device=...> value).

    ``image_property``: the image property naming its bus; ``default_buses``:
    the buses it gets when none is named, in order of preference (the first
    the virt type, machine type and architecture have); ``rescue``: may be
    stable-device rescue media; ``rescue_on_instance_bus``: as rescue media
    with no hw_rescue_bus it goes on the server's own bus for that kind;
    ``needs_disk_format``: as rescue media the image needs a disk_format
    (something to put in the drive); ``readonly``: the guest cannot write it.
    """

    name: str
    image_property: str = None
    default_buses: tuple = ()
    rescue: bool = True
    rescue_on_instance_bus: bool = False
    needs_disk_format: bool = False
    readonly: bool = False


BUSES = (
    BusRule(DiskBus.VIRTIO, 'vd', (Kind.DISK,), hotplug=True, owns_prefix=True,
            address='pci'),
    BusRule(DiskBus.IDE, 'hd', (Kind.DISK, Kind.CDROM), max_devs=4,
            owns_prefix=True, machines_without=('q35',),
            arches_without=NO_IDE_SATA_ARCHES, address='drive'),
    BusRule(DiskBus.SATA, 'sd', (Kind.DISK, Kind.CDROM), max_devs=6,
            arches_without=NO_IDE_SATA_ARCHES, address='drive'),
    BusRule(DiskBus.SCSI, 'sd', (Kind.DISK, Kind.CDROM, Kind.LUN),
            hotplug=True, owns_prefix=True, controller='scsi',
            controller_model='virtio-scsi', model_property='hw_scsi_model',
            implicit_model='lsilogic', address='drive',
            unit_is_name_index=True),
    # libvirt and QEMU accept a USB CD-ROM, but SeaBIOS does not boot El
    # Torito from one: the guest silently boots its root disk.
    BusRule(DiskBus.USB, 'sd', (Kind.DISK, Kind.CDROM), boots=(Kind.DISK,),
            boot_hint='a hybrid ISO boots as a USB stick', hotplug=True,
            address='usb'),
    BusRule(DiskBus.FDC, 'fd', (Kind.FLOPPY,), max_devs=2, owns_prefix=True,
            address='drive'),
    BusRule(DiskBus.LXC, 'lxc', (Kind.DISK,), virt_types=('lxc',),
            rescue=False),
)

KINDS = (
    DeviceKind(Kind.DISK, 'hw_disk_bus', (DiskBus.VIRTIO,),
               rescue_on_instance_bus=True),
    # q35 has an AHCI controller and no IDE; i440fx ('pc') has IDE; other
    # architectures boot CDs from SCSI.
    DeviceKind(Kind.CDROM, 'hw_cdrom_bus',
               (DiskBus.IDE, DiskBus.SATA, DiskBus.SCSI),
               needs_disk_format=True, readonly=True),
    DeviceKind(Kind.FLOPPY, 'hw_floppy_bus', (DiskBus.FDC,)),
    # LUN passthrough is SCSI only, and no rescue media.
    DeviceKind(Kind.LUN, None, (DiskBus.SCSI,), rescue=False),
)

# ----------------------------------------------------------- derived views

def derive(buses, kinds):
    """The lookups the rules read, derived from the rows (a test can derive
    them for a table with one more row)."""
    virt_types = tuple(dict.fromkeys(vt for r in buses for vt in r.virt_types))
    return {
        'RULES': {r.name: r for r in buses},
        'KIND_RULES': {k.name: k for k in kinds},
        'VIRT_TYPES': virt_types,
        # Buses each virt type can attach disks to.
        'VALID_BUSES': {vt: tuple(r.name for r in buses if vt in r.virt_types)
                        for vt in virt_types},
        'DEV_PREFIX': {r.name: r.prefix for r in buses},
        'PREFIX_BUS': {r.prefix: r.name for r in buses if r.owns_prefix},
        'MAX_DEVS': {r.name: r.max_devs for r in buses},
        'HOTPLUG_BUSES': tuple(r.name for r in buses if r.hotplug),
        'RESCUE_BUSES': tuple(r.name for r in buses if r.rescue),
        'RESCUE_DEVICES': tuple(k.name for k in kinds if k.rescue),
        # Virt types whose guests can keep every disk and boot an extra one first.
        'STABLE_RESCUE_VIRT_TYPES': tuple(
            vt for vt in virt_types if any(vt in r.virt_types for r in buses if r.rescue)),
    }


_VIEWS = derive(BUSES, KINDS)
RULES = _VIEWS['RULES']
KIND_RULES = _VIEWS['KIND_RULES']
VIRT_TYPES = _VIEWS['VIRT_TYPES']
VALID_BUSES = _VIEWS['VALID_BUSES']
DEV_PREFIX = _VIEWS['DEV_PREFIX']
PREFIX_BUS = _VIEWS['PREFIX_BUS']
MAX_DEVS = _VIEWS['MAX_DEVS']
HOTPLUG_BUSES = _VIEWS['HOTPLUG_BUSES']
RESCUE_BUSES = _VIEWS['RESCUE_BUSES']
RESCUE_DEVICES = _VIEWS['RESCUE_DEVICES']
STABLE_RESCUE_VIRT_TYPES = _VIEWS['STABLE_RESCUE_VIRT_TYPES']


def buses_carrying(device_type, virt_type=None, machine_type=None, booting=False):
    """Names of the buses that carry (or with ``booting``, boot) a device
    type, for a virt type and machine type when given, in table order."""
    return tuple(r.name for r in RULES.values()
                 if device_type in (r.boots if booting else r.device_types)
                 and (virt_type is None or virt_type in r.virt_types)
                 and r.exists_on(machine_type))
