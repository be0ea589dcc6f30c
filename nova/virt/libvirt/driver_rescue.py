"""LibvirtDriver rescue family: validation, rescue XML (stable and legacy), unrescue."""

import copy
import logging
import os

from nova import exception
from nova.virt import bus_table, rescue_rules
from nova.virt.libvirt import blockinfo, config_caps, imagebackend
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt.guest_config import image_attr, instance_image_props

LOG = logging.getLogger(__name__)

UNRESCUE_XML = 'unrescue.xml'
RESCUE_DISK = 'disk.rescue'
CONFIG_DRIVE = 'disk.config'


# ------------------------------------------------ decisions (pure functions)

def parse_domain_disk_caps(domcaps):
    """{'bus': (...), 'diskDevice': (...)} from <domainCapabilities> (a
    config_caps.DomainCapabilities or XML text); None when unknown."""
    if domcaps is None:
        return None
    if not isinstance(domcaps, config_caps.DomainCapabilities):
        domcaps = config_caps.DomainCapabilities.from_xml(domcaps)
    return domcaps.disk


def read_domain(xml):
    """A domain definition (XML text) as a config.GuestDomain."""
    return vconfig.GuestDomain.from_xml(xml)


def domain_disk_infos(guest):
    """Disk info of every <disk> of a config.GuestDomain, in XML order."""
    return [blockinfo.disk_info_from_config(d) for d in guest.get_disks()]


def root_disk(guest):
    """The config.GuestDisk that boots (boot order 1, else the first)."""
    disks = guest.get_disks()
    info = blockinfo.get_boot_disk(domain_disk_infos(guest))
    return disks[[d.target_dev for d in disks].index(info['dev'])] \
        if info else None


def domain_machine_type(guest):
    return guest.os.machine if guest.os is not None else None


def rescue_disk_info(guest, bus, device):
    """The rescue media's disk info in stable-device rescue: first free
    name on ``bus`` among the domain's disks, boot order 1."""
    return blockinfo.get_stable_rescue_mapping(
        domain_disk_infos(guest), bus, device)['disk.rescue']


def _insert_after_disks(guest, device):
    devices = list(guest.devices)
    last = max((i for i, d in enumerate(devices)
                if isinstance(d, vconfig.GuestDisk)), default=-1)
    devices.insert(last + 1, device)
    guest.devices = devices


def _other_bootable_devices(guest):
    """Devices other than disks that carry a boot order (NICs, host
    devices...): rescue moves them down with the disks."""
    return [dev for dev in guest.devices
            if isinstance(dev, vconfig.GuestDevice) and
            not isinstance(dev, vconfig.GuestDisk) and
            dev.boot_order is not None]


def _shift_boot_orders(devices):
    """Each device's boot order moves down by one, freeing order 1."""
    for dev in devices:
        dev.boot_order += 1


def apply_stable_rescue(guest, rescue_disk, controller_model=None):
    """Stable-device rescue on a parsed domain: every device keeps its
    target and address; the rescue disk (a config.GuestDisk at the
    mapping's 'disk.rescue') goes after the last disk with boot order 1;
    every other boot order, of disks and other devices (NICs) alike, moves
    down by one (root: 2); any <os><boot dev> goes (libvirt refuses it
    beside per-device orders).  A rescue disk on a bus that needs a
    controller (SCSI) gets one when the guest has none, of
    ``controller_model`` (None: the table's, virtio-scsi)."""
    others = _other_bootable_devices(guest)
    mapping = blockinfo.get_stable_rescue_mapping(
        domain_disk_infos(guest), rescue_disk.target_bus,
        rescue_disk.source_device, other_boot_orders=bool(others))
    for disk in guest.get_disks():
        disk.boot_order = mapping[disk.target_dev]['boot_index']
    _shift_boot_orders(others)
    if guest.os is not None:
        guest.os.boot_devs = []
    rule = bus_table.RULES[rescue_disk.target_bus]
    if rule.controller:
        ctrl = guest.get_controller(rule.controller, 0)
        if ctrl is None:
            ctrl = vconfig.GuestController(
                type=rule.controller, index=0,
                model=controller_model or rule.controller_model)
            _insert_after_disks(guest, ctrl)
        rescue_disk.address = blockinfo.drive_address(
            blockinfo.disk_info_from_config(rescue_disk),
            ctrl.model or rule.implicit_model)
    _insert_after_disks(guest, rescue_disk)
    return guest


def apply_legacy_rescue(guest, rescue_disk, config_drive_path=None):
    """Upstream's legacy layout on a parsed domain: the rescue disk at the
    root's target (and address), the original root at the next free name
    of its bus, the config drive; no ephemerals, swap or volumes.  The
    rescue disk boots first: the boot orders of other devices (NICs) move
    down by one.  Everything else outside the disks stays as it was."""
    disks = guest.get_disks()
    root = root_disk(guest)
    config = None
    for disk in disks:
        if config_drive_path and disk.source_path == config_drive_path:
            config = disk
    mapping = blockinfo.get_rescue_mapping(
        domain_disk_infos(guest), None,
        config.target_dev if config is not None else None)
    rescue_disk.address = copy.deepcopy(root.address)
    moved = copy.deepcopy(root)
    moved.target_dev = mapping['disk']['dev']
    moved.boot_order = moved.address = None
    new = [rescue_disk, moved] + ([config] if config is not None else [])
    devices = list(guest.devices)
    position = devices.index(disks[0]) if disks else 0
    devices = [d for d in devices if not isinstance(d, vconfig.GuestDisk)]
    devices[position:position] = new
    guest.devices = devices
    _shift_boot_orders(_other_bootable_devices(guest))
    if guest.os is not None:
        guest.os.boot_devs = []
    return guest


def stable_rescue_xml(domain_xml, rescue_disk, controller_model=None):
    """apply_stable_rescue on domain XML text; returns the XML."""
    return apply_stable_rescue(read_domain(domain_xml), rescue_disk,
                               controller_model).to_xml()


def legacy_rescue_xml(domain_xml, rescue_disk, config_drive_path=None):
    """apply_legacy_rescue on domain XML text; returns the XML."""
    return apply_legacy_rescue(read_domain(domain_xml), rescue_disk,
                               config_drive_path).to_xml()


# ----------------------------------------------------------------- the mixin

class LibvirtRescue:
    """rescue/unrescue and the host-side rescue check.

    ``disks`` (LibvirtDisks) connects the volumes of a volume-backed guest.
    """

    def __init__(self, core, disks):
        self._core = core
        self._disks = disks

    def _unrescue_xml_path(self, instance):
        return os.path.join(self._core.instance_dir(instance), UNRESCUE_XML)

    def host_disk_caps(self, machine_type):
        """The disk buses and devices this host's QEMU offers for a machine
        type (parse_domain_disk_caps), None when unknown."""
        host, settings = self._core.host, self._core.settings
        if host.is_test:
            return None
        return parse_domain_disk_caps(host.get_domain_capabilities(
            settings.domain_type, settings.arch, machine_type))

    def _validate_rescue(self, instance, image_meta, domain, volume_backed):
        """``volume_backed`` is the compute manager's decision (from the
        block device mappings), never re-derived from the domain."""
        props = image_meta.properties
        machine = domain_machine_type(domain)
        caps = None
        if rescue_rules.is_stable_rescue(props):
            caps = self.host_disk_caps(machine)
        device = rescue_rules.validate_rescue(
            self._core.virt_type, instance_image_props(instance), props,
            caps, machine,
            image_attr(image_meta, 'disk_format'),
            volume_backed, self._core.settings.arch)
        if device is not None:
            # A bus with no free name must be refused before the API answers,
            # not found out by the rescue itself after the 200.
            rescue_disk_info(domain, device[0], device[1])
        return device

    def validate_rescue_request(self, instance, image_meta, volume_backed=False):
        """The API's pre-check (through compute RPC) when the guest's disks
        may fill the rescue bus: raises Invalid for a rescue this host
        cannot do; changes nothing."""
        guest = self._core.guest(instance)
        domain = read_domain(guest.get_xml_desc(inactive=True))
        return self._validate_rescue(instance, image_meta, domain, volume_backed)

    def rescue(self, context, instance, network_info, image_meta,
               rescue_password, block_device_info=None):
        """Boot the rescue image; every failure puts the guest back.

        Stable-device rescue (hw_rescue_bus/hw_rescue_device on the rescue
        image) keeps the persistent domain exactly, adds the rescue disk
        last with boot order 1.  Otherwise upstream's legacy layout.
        ``block_device_info`` (the complete mapping) gets its volumes
        connected; the persistent domain already attaches them at their
        normal targets; its ``volume_backed`` is the manager's decision.
        ``rescue_password`` is not used: the rescue image brings its own
        credentials (no rescue config drive is built).
        """
        guest = self._core.guest(instance)
        saved_path = self._unrescue_xml_path(instance)
        if os.path.exists(saved_path):
            raise exception.Conflict(
                reason='instance %s is already rescued' % instance.uuid)
        saved = guest.get_xml_desc(inactive=True, secure=True)
        was_running = guest.is_active()
        _write_file(saved_path, saved)
        touched = False
        try:
            domain = read_domain(saved)
            device = self._validate_rescue(
                instance, image_meta, domain,
                bool((block_device_info or {}).get('volume_backed')))
            if device is not None:
                self._disks.connect_volumes(instance, block_device_info)
            inst_dir = self._core.instance_dir(instance)
            config_drive = os.path.join(inst_dir, CONFIG_DRIVE)
            config = [d.target_dev for d in domain.get_disks()
                      if d.source_path == config_drive]
            mapping = blockinfo.get_rescue_mapping(
                domain_disk_infos(domain), device,
                config[0] if config else None)
            disk = self._make_rescue_disk(
                context, image_meta, os.path.join(inst_dir, RESCUE_DISK),
                mapping['disk.rescue'])
            if device is None:
                apply_legacy_rescue(domain, disk, config_drive)
            else:
                apply_stable_rescue(domain, disk, blockinfo.controller_models(
                    image_meta.properties).get(disk.target_bus))
            xml = domain.to_xml()
            touched = True
            guest.poweroff()
            # libvirt's own saved definition plus disks our config objects
            # format (their XML is schema-checked by the rescue tests): the
            # schema check here would add about 12 ms to every rescue.
            guest = self._core.host.define_guest(xml, validate=False)
            guest.launch()
        except Exception:
            if touched:
                self._restore_domain(guest, saved, was_running)
            self._remove_rescue_files(instance)
            raise
        LOG.info('Rescued %s (%s mode)', instance.uuid,
                 'legacy' if device is None else '%s/%s' % device)

    def _make_rescue_disk(self, context, image_meta, path, info):
        """Create the rescue media file and its config.GuestDisk at disk
        info ``info``: a qcow2 overlay of the image (read-only in a cdrom),
        or for a cdrom and an ISO the ISO itself (raw, read-only)."""
        image_id = image_attr(image_meta, 'id')
        disk_format = image_attr(image_meta, 'disk_format')
        # The compute API read the rescue image's record as the requester for
        # this rescue (RescueAPI._rescue_image), or it is the server's own
        # base image, whose bytes already back its root disk: the cached file
        # needs no second look-up.
        try:
            if info['type'] == 'cdrom' and disk_format == 'iso':
                base = self._core.image_cache.get(context, image_id, disk_format,
                                                  authorized=True)
                imagebackend.link_or_copy(base.path, path)
                fmt = 'raw'
            else:
                imagebackend.create_root_disk(context, self._core.image_cache,
                                              image_id, path, 0, disk_format,
                                              authorized=True)
                fmt = 'qcow2'
        except imagebackend.ProcessError as exc:
            raise exception.InstanceDeployFailure(
                reason=exc.format_message())
        return vconfig.GuestDisk(
            source_type='file', source_device=info['type'],
            driver_name='qemu', driver_format=fmt,
            driver_cache=self._core.settings.disk_cachemode, source_path=path,
            target_dev=info['dev'], target_bus=info['bus'],
            boot_order=info['boot_index'],
            readonly=bus_table.KIND_RULES[info['type']].readonly)

    def _restore_domain(self, guest, saved, was_running):
        try:
            guest.poweroff()
            guest = self._core.host.define_guest(saved, validate=False)
            if was_running:
                guest.launch()
        except exception.NovaException:
            LOG.exception('Could not restore the pre-rescue domain of %s',
                          guest.uuid)

    def _remove_rescue_files(self, instance):
        inst_dir = self._core.instance_dir(instance)
        for name in (RESCUE_DISK, UNRESCUE_XML):
            try:
                os.unlink(os.path.join(inst_dir, name))
            except FileNotFoundError:
                pass

    def has_rescue_state(self, instance):
        """True while the pre-rescue definition is saved (a rescue began, no unrescue ended)."""
        return os.path.exists(self._unrescue_xml_path(instance))

    def is_rescued(self, instance):
        """True when the rescue finished: its domain, with the rescue disk, runs.

        A rescue a crash interrupted has the saved definition but not this.
        """
        if not self.has_rescue_state(instance):
            return False
        try:
            guest = self._core.guest(instance)
            if not guest.is_active():
                return False
            domain = read_domain(guest.get_xml_desc())
        except exception.NotFound:
            return False
        rescue_disk = os.path.join(self._core.instance_dir(instance), RESCUE_DISK)
        return any(d.source_path == rescue_disk for d in domain.get_disks())

    def unrescue(self, context, instance, network_info=None):
        """Back to the exact pre-rescue definition, started."""
        saved_path = self._unrescue_xml_path(instance)
        try:
            with open(saved_path) as f:
                saved = f.read()
        except FileNotFoundError:
            raise exception.Conflict(
                reason='instance %s is not rescued' % instance.uuid)
        guest = self._core.guest(instance)
        guest.poweroff()
        guest = self._core.host.define_guest(saved, validate=False)
        guest.launch()
        self._remove_rescue_files(instance)
        LOG.info('Unrescued %s', instance.uuid)


def _write_file(path, text):
    part = path + '.part'
    with open(part, 'w') as f:
        f.write(text)
    os.replace(part, path)
