"""The guest's shape as config objects: settings, disk mapping, disks, <os>, the domain."""

import dataclasses
import os

from nova import exception
from nova.objects import image_meta as image_meta_obj
from nova.virt import bus_table, configdrive
from nova.virt.libvirt import blockinfo, consoles, guest_devices, guestfeatures
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import volume as libvirt_volume

GiB = 1024 ** 3

CONSOLE_LOG = 'console.log'
# Upstream's kernel command line tail when the image gives none.
DEFAULT_CONSOLES = 'console=tty0 console=ttyS0 console=hvc0'

# Disk names in a disk mapping that are files in the instance directory,
# with the format each file is created in ('disk.eph<N>' are qcow2 too).
LOCAL_DISK_FORMATS = {
    'disk': 'qcow2',
    'disk.local': 'qcow2',
    'disk.swap': 'qcow2',
    'disk.config': 'raw',
    'disk.rescue': 'qcow2',
}

# [libvirt]config_drive_format -> the device the drive is attached as.
CONFIG_DRIVE_DEVICE = {'iso9660': 'cdrom', 'vfat': 'disk'}

_X86_ARCHES = ('i686', 'x86_64')


@dataclasses.dataclass(frozen=True)
class GuestSettings:
    """Host-derived inputs to the domain XML, fixed for a driver's life."""

    domain_type: str            # qemu | kvm | lxc | test
    arch: str
    instances_path: str
    disk_cachemode: str = 'none'
    machine_types: tuple = ()   # (('x86_64', 'q35'), ...) from config
    config_drive_format: str = 'iso9660'    # iso9660 | vfat
    force_config_drive: bool = False
    consoles: object = None     # consoles.ConsoleSettings; None: log file only
    # [libvirt] CPU options: cpu_mode (None: libvirt's default CPU), the
    # custom models (first is the default) and extra flags.
    cpu_mode: str = None
    cpu_models: tuple = ()
    cpu_flags: tuple = ()
    rng_dev_path: str = '/dev/urandom'
    swtpm_enabled: bool = False
    swtpm_user: str = 'tss'
    swtpm_group: str = 'tss'
    firmware: tuple = ()        # firmware.Firmware, QEMU's descriptors
    machine_aliases: dict = dataclasses.field(default_factory=dict)  # q35 -> pc-q35-7.2


@dataclasses.dataclass(frozen=True)
class BootFiles:
    """Direct kernel boot inputs (all None for firmware boot)."""

    kernel: str = None
    ramdisk: str = None
    cmdline: str = None


# ------------------------------------------------ decisions (pure functions)

def parse_machine_types(values):
    """['x86_64=q35', ...] -> (('x86_64', 'q35'), ...); bad entries raise."""
    pairs = []
    for value in values or ():
        arch, sep, machine = value.partition('=')
        if not sep or not arch.strip() or not machine.strip():
            raise exception.Invalid(
                reason='[libvirt]hw_machine_type entry %r is not ARCH=MACHINE'
                       % value)
        pairs.append((arch.strip(), machine.strip()))
    return tuple(pairs)


def guest_arch(settings, image_props):
    """The architecture QEMU emulates: hw_emulation_architecture, else the host's."""
    return image_props.get('hw_emulation_architecture') or settings.arch


def machine_type_for(settings, image_props):
    """Image property first, then config for the arch, then upstream's
    default for it; None = libvirt's (test:///)."""
    if settings.domain_type == 'test':
        return None
    machine = image_props.get('hw_machine_type')
    if machine:
        return machine
    arch = guest_arch(settings, image_props)
    return dict(settings.machine_types).get(arch) or guest_devices.DEFAULT_MACHINES.get(arch)


def image_attr(image_meta, name):
    """An ImageMeta field or None: unset o.vo fields raise on access."""
    is_set = getattr(image_meta, 'obj_attr_is_set', None)
    if is_set is not None and not is_set(name):
        return None
    return getattr(image_meta, name, None)


def instance_image_props(instance):
    """The image properties an instance was built with (its system metadata,
    overrides merged), or a plain dict's ``image_props``; {} if none."""
    if getattr(instance, 'system_metadata', None):
        return image_meta_obj.ImageMeta.from_instance(instance).properties
    return getattr(instance, 'image_props', None) or {}


def instance_dir(settings, instance):
    return os.path.join(settings.instances_path, instance.uuid)


def config_drive_type(settings, instance):
    """'cdrom' / 'disk' when the instance gets a config drive, else None."""
    if not configdrive.required_by(instance, settings.force_config_drive):
        return None
    return CONFIG_DRIVE_DEVICE[settings.config_drive_format]


def get_disk_mapping(virt_type, settings, instance, image_meta,
                     block_device_info=None):
    """Disk mapping for a guest: image or volume root, ephemerals, swap,
    volumes and config drive (see blockinfo for the vocabulary)."""
    props = image_meta.properties
    flavor = instance.flavor
    return blockinfo.get_disk_mapping(
        virt_type, props,
        disk_format=image_attr(image_meta, 'disk_format'),
        machine_type=machine_type_for(settings, props),
        arch=guest_arch(settings, props),
        root_device_name=getattr(instance, 'root_device_name', None),
        ephemeral_gb=getattr(flavor, 'ephemeral_gb', 0) or 0,
        swap_mb=getattr(flavor, 'swap', 0) or 0,
        config_drive_type=config_drive_type(settings, instance),
        block_device_info=block_device_info)


def local_disk_format(name):
    """File format of a disk in the instance directory, or None when the
    mapping name is not a local file (volumes, 'root')."""
    fmt = LOCAL_DISK_FORMATS.get(name)
    if fmt is None and name.startswith('disk.eph'):
        return 'qcow2'
    return fmt


def guest_disk(info, path, fmt, cachemode, controller_model=None):
    """A file-backed <disk> for one disk mapping entry (``controller_model``:
    the model of its bus's controller, None for the table's)."""
    return vconfig.GuestDisk(
        source_type='file', source_device=info['type'],
        driver_name='qemu', driver_format=fmt, driver_cache=cachemode,
        source_path=path, target_dev=info['dev'], target_bus=info['bus'],
        boot_order=info['boot_index'],
        readonly=bus_table.KIND_RULES[info['type']].readonly,
        address=blockinfo.drive_address(info, controller_model))


def volume_connection_infos(block_device_info):
    """{volume_id: connection_info} from a block_device_info dict."""
    result = {}
    for bdm in (block_device_info or {}).get('block_device_mapping') or ():
        conn = bdm.get('connection_info') or {}
        vol_id = (bdm.get('volume_id') or conn.get('serial') or
                  (conn.get('data') or {}).get('volume_id'))
        result[vol_id] = conn
    return result


def guest_disks(settings, instance, disk_mapping, block_device_info=None,
                controller_models=None):
    """<disk>s in mapping order (root, ephemerals, swap, volumes, config
    drive); volumes are described by their volume driver.
    ``controller_models``: blockinfo.controller_models() of the image.

    libvirt keeps disks grouped by bus when it stores a definition (a
    scsi volume listed between virtio disks moves after them); targets,
    addresses and boot orders are what stay fixed, not element order.
    """
    inst_dir = instance_dir(settings, instance)
    models = controller_models or {}
    connections = None
    disks = []
    for name, info in disk_mapping.items():
        if name == 'root':
            continue
        fmt = local_disk_format(name)
        if fmt is not None:
            disks.append(guest_disk(info, os.path.join(inst_dir, name), fmt,
                                    settings.disk_cachemode, models.get(info['bus'])))
            continue
        if connections is None:
            connections = volume_connection_infos(block_device_info)
        conn = connections.get(info.get('volume_id'))
        if conn is None:
            raise exception.Invalid(
                reason='no connection_info for volume %s at /dev/%s'
                       % (info.get('volume_id'), info['dev']))
        disk = libvirt_volume.get_volume_driver(conn).get_config(
            conn, info, settings.disk_cachemode)
        disk.address = blockinfo.drive_address(info, models.get(info['bus']))
        disks.append(disk)
    return disks


def disk_controllers(disk_mapping, controller_models=None):
    """The controllers the disks' buses need (one each, index 0): the SCSI
    controller for SCSI disks."""
    models = controller_models or {}
    controllers = {}
    for info in disk_mapping.values():
        rule = bus_table.RULES[info['bus']]
        if rule.controller and rule.controller not in controllers:
            controllers[rule.controller] = vconfig.GuestController(
                type=rule.controller, index=0,
                model=models.get(rule.name) or rule.controller_model)
    return list(controllers.values())


def guest_os(settings, image_props, boot_files):
    """<os>: firmware or kernel boot; boot order lives on the devices so a
    rescue disk can later claim boot order 1 without touching <os>."""
    os_cfg = vconfig.GuestOS(
        type='hvm', arch=guest_arch(settings, image_props),
        machine=machine_type_for(settings, image_props))
    if image_props.get('hw_firmware_type') == 'uefi':
        os_cfg.firmware = 'efi'
    if boot_files is not None and boot_files.kernel:
        os_cfg.kernel = boot_files.kernel
        os_cfg.initrd = boot_files.ramdisk
        os_cfg.cmdline = boot_files.cmdline
    return os_cfg


def kernel_cmdline(image_props, disk_mapping):
    """os_command_line as given, else root=<root dev> plus the consoles."""
    cmdline = image_props.get('os_command_line')
    if cmdline:
        return cmdline
    return 'root=/dev/%s %s' % (disk_mapping['root']['dev'], DEFAULT_CONSOLES)


def get_guest_config(settings, instance, image_meta, disk_mapping,
                     boot_files=None, block_device_info=None, host_info=None,
                     serial_port=None, interfaces=(), ports=()):
    """The whole config.GuestDomain for an instance; no I/O, no libvirt calls.

    ``block_device_info`` supplies the connection_info of the volumes the
    mapping names; ``interfaces`` are the guest's NICs (config.GuestInterface,
    nova/virt/libvirt/vif.py), after the disks in network info order;
    ``ports`` the ``<nova:ports>`` of its metadata (guest_devices.metadata_ports).
    """
    flavor = instance.flavor
    props = image_meta.properties
    emulated = guest_arch(settings, props) != settings.arch
    guest = vconfig.GuestDomain(
        # A foreign architecture runs under TCG whatever this host's type.
        virt_type='qemu' if emulated and settings.domain_type == 'kvm' else settings.domain_type,
        name=instance.name,
        uuid=instance.uuid, memory_kib=flavor.memory_mb * 1024,
        vcpus=flavor.vcpus,
        os=guest_os(settings, props, boot_files),
        clock=vconfig.GuestClock(offset='utc'))
    guest.metadata = guest_devices.nova_metadata(instance, image_attr(image_meta, 'id'), ports)
    if guest_arch(settings, props) in _X86_ARCHES:
        guest.features = [vconfig.GuestFeatureACPI(),
                          vconfig.GuestFeatureAPIC()]
    models = blockinfo.controller_models(props)
    devices = guest_disks(settings, instance, disk_mapping,
                          block_device_info, models)
    devices.extend(disk_controllers(disk_mapping, models))
    devices.extend(interfaces)
    # The serial port's output lands in the console log, which survives the
    # guest and needs no reader attached (libvirt adds the matching
    # <console>); with serial consoles on, the port also listens on TCP.
    log_path = os.path.join(instance_dir(settings, instance), CONSOLE_LOG)
    devices.extend(consoles.console_devices(settings.consoles, log_path, serial_port))
    devices.extend(consoles.agent_devices(props))
    guest.devices = devices
    guestfeatures.apply(guest, settings, instance, image_meta,
                        host_info or getattr(settings, 'host_info', None), log_path)
    return guest
