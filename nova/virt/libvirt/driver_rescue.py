"""LibvirtDriver rescue family: validation, rescue XML (stable and legacy), unrescue."""

import copy
import logging
import os

from lxml import etree

from nova import exception
from nova.objects import image_meta as image_meta_obj
from nova.virt.libvirt import blockinfo, imagebackend
from nova.virt.libvirt import config as vconfig

LOG = logging.getLogger(__name__)

# Virt types whose guests can keep every disk and boot an extra one first.
STABLE_RESCUE_VIRT_TYPES = ('qemu', 'kvm')
RESCUE_BUSES = ('virtio', 'ide', 'sata', 'scsi', 'usb', 'fdc')
RESCUE_DEVICES = ('disk', 'cdrom', 'floppy')

UNRESCUE_XML = 'unrescue.xml'
RESCUE_DISK = 'disk.rescue'
CONFIG_DRIVE = 'disk.config'


# The refusals live in nova.exception so they cross RPC as themselves.
UnsupportedRescue = exception.UnsupportedRescue
UnsupportedRescueBus = exception.UnsupportedRescueBus
UnsupportedRescueDevice = exception.UnsupportedRescueDevice
UnsupportedRescueImage = exception.UnsupportedRescueImage


# ------------------------------------------------ decisions (pure functions)

def parse_domain_disk_caps(domcaps):
    """{'bus': (...), 'diskDevice': (...)} from <domainCapabilities> (an
    lxml element or XML text); None when unknown."""
    if domcaps is None:
        return None
    if isinstance(domcaps, (str, bytes)):
        domcaps = etree.fromstring(domcaps.encode()
                                   if isinstance(domcaps, str) else domcaps)
    disk = domcaps.find('devices/disk')
    if disk is None:
        return None
    caps = {}
    for enum in disk.findall('enum'):
        caps[enum.get('name')] = tuple(v.text for v in enum.findall('value'))
    return caps


def is_stable_rescue(rescue_props):
    return bool(rescue_props.get('hw_rescue_bus') or
                rescue_props.get('hw_rescue_device'))


def get_rescue_device(virt_type, instance_props, rescue_props,
                      machine_type=None, arch=None):
    """(bus, device) of the rescue media, or None for legacy rescue.

    Unset device: floppy on fdc, else disk.  Unset bus: the instance's
    hw_disk_bus (driver default if unset) for a disk; for a cdrom the
    machine type decides (q35: sata, else ide); fdc for a floppy.
    """
    bus = rescue_props.get('hw_rescue_bus')
    device = rescue_props.get('hw_rescue_device')
    if not bus and not device:
        return None
    if not device:
        device = 'floppy' if bus == 'fdc' else 'disk'
    if not bus:
        if device == 'disk':
            bus = (instance_props.get('hw_disk_bus') or
                   blockinfo.default_disk_bus(virt_type, 'disk',
                                              machine_type, arch))
        else:
            bus = blockinfo.default_disk_bus(virt_type, device,
                                             machine_type, arch)
    return bus, device


def validate_rescue(virt_type, instance_image_props, rescue_image_props,
                    domain_caps=None, machine_type=None,
                    rescue_disk_format=None, volume_backed=False, arch=None):
    """Check a rescue request before anything changes.

    Returns (bus, device) for stable-device rescue, None for legacy.
    ``domain_caps`` is parse_domain_disk_caps() output (or None to skip
    the host check); ``rescue_disk_format`` is the rescue image's
    disk_format.  Raises UnsupportedRescue* (all exception.Invalid).
    """
    raw_bus = rescue_image_props.get('hw_rescue_bus')
    raw_device = rescue_image_props.get('hw_rescue_device')
    if not raw_bus and not raw_device:
        if volume_backed:
            raise UnsupportedRescue(
                reason='a volume-backed instance can only be rescued with a '
                       'rescue image that sets hw_rescue_bus and/or '
                       'hw_rescue_device (stable device rescue)')
        return None
    if virt_type not in STABLE_RESCUE_VIRT_TYPES:
        raise UnsupportedRescue(
            reason='stable device rescue (hw_rescue_bus/hw_rescue_device) '
                   'is not supported on virt type %r, only on %s'
                   % (virt_type, ' and '.join(STABLE_RESCUE_VIRT_TYPES)))
    if raw_device and raw_device not in RESCUE_DEVICES:
        raise UnsupportedRescueDevice(
            device=raw_device, reason='hw_rescue_device must be one of %s'
                                      % ', '.join(RESCUE_DEVICES))
    if raw_bus and raw_bus not in RESCUE_BUSES:
        raise UnsupportedRescueBus(
            bus=raw_bus, reason='hw_rescue_bus must be one of %s'
                                % ', '.join(RESCUE_BUSES))
    bus, device = get_rescue_device(virt_type, instance_image_props,
                                    rescue_image_props, machine_type, arch)
    if device == 'floppy' and bus != 'fdc':
        raise UnsupportedRescueDevice(
            device=device, reason='a floppy needs hw_rescue_bus=fdc, not %r'
                                  % bus)
    if bus == 'fdc' and device != 'floppy':
        raise UnsupportedRescueBus(
            bus=bus, reason='the fdc bus only carries hw_rescue_device='
                            'floppy, not %r' % device)
    if device not in blockinfo.VALID_DEVICE_TYPES.get(bus, ()):
        raise UnsupportedRescueDevice(
            device=device, reason='the %r bus cannot carry a %s (it takes: '
                                  '%s)' % (bus, device, ', '.join(
                                      blockinfo.VALID_DEVICE_TYPES.get(
                                          bus, ()))))
    if bus == 'usb' and device == 'cdrom':
        # libvirt and QEMU accept it, but SeaBIOS does not boot El Torito
        # from a USB CD-ROM: the guest silently boots its root disk.
        raise UnsupportedRescueDevice(
            device=device, reason='the firmware does not boot a cdrom on the '
                                  'usb bus; use hw_rescue_bus=usb with '
                                  'hw_rescue_device=disk (a hybrid ISO boots '
                                  'as a USB stick), or a cdrom on ide, sata '
                                  'or scsi')
    if bus == 'ide' and blockinfo.is_q35(machine_type):
        raise UnsupportedRescueBus(
            bus=bus, reason='machine type %r has no IDE bus; use sata (cdrom)'
                            ' or usb' % machine_type)
    if domain_caps:
        buses = domain_caps.get('bus') or ()
        if buses and bus not in buses:
            raise UnsupportedRescueBus(
                bus=bus, reason="this host's QEMU offers no %r disk bus for "
                                'machine type %s (it offers: %s)'
                                % (bus, machine_type or 'default',
                                   ', '.join(buses)))
        devices = domain_caps.get('diskDevice') or ()
        if devices and device not in devices:
            raise UnsupportedRescueDevice(
                device=device, reason="this host's QEMU offers no %s disk "
                                      'device (it offers: %s)'
                                      % (device, ', '.join(devices)))
    if device == 'cdrom' and not rescue_disk_format:
        # Without a format there is nothing to put in the drive.
        raise UnsupportedRescueImage(
            reason='a cdrom rescue device needs an image with a '
                   'disk_format, this one has disk_format=None')
    # Any other image goes in the drive as upstream puts it there; the
    # firmware boots a CD-ROM only from El Torito media (an ISO), so a
    # plain disk image in a cdrom is readable media, not a boot device.
    return bus, device


def _devices(root):
    devices = root.find('devices')
    if devices is None:
        devices = etree.SubElement(root, 'devices')
    return devices


def domain_disks(root):
    """[(element, disk info)] for every <disk>, in XML order."""
    result = []
    for elem in root.iterfind('devices/disk'):
        target = elem.find('target')
        boot = elem.find('boot')
        result.append((elem, blockinfo.disk_info(
            target.get('bus'), target.get('dev'),
            elem.get('device', 'disk'),
            int(boot.get('order')) if boot is not None else None)))
    return result


def disk_source(elem):
    source = elem.find('source')
    if source is None:
        return None
    return source.get('file') or source.get('dev')


def domain_machine_type(root):
    type_ = root.find('os/type')
    return type_.get('machine') if type_ is not None else None


def root_disk(disks):
    """The (element, info) that boots: boot order 1, else the first disk."""
    for elem, info in disks:
        if info['boot_index'] == 1:
            return elem, info
    return disks[0] if disks else (None, None)


def rescue_disk_info(root, bus, device):
    """The rescue media's disk info: first free name on ``bus`` among the
    domain's disks, boot order 1."""
    taken = {str(i): info for i, (_, info) in enumerate(domain_disks(root))}
    return blockinfo.disk_info(bus, blockinfo.find_free_dev(taken, bus),
                               device, boot_index=1)


def _scsi_controller(root):
    for ctrl in root.iterfind('devices/controller'):
        if ctrl.get('type') == 'scsi' and ctrl.get('index', '0') == '0':
            return ctrl
    return None


def _insert_after_disks(devices, elem):
    disks = devices.findall('disk')
    if disks:
        disks[-1].addnext(elem)
    else:
        devices.insert(0, elem)


def stable_rescue_xml(domain_xml, rescue_disk, scsi_model='virtio-scsi'):
    """The saved domain XML plus the rescue disk, everything else kept.

    Every device keeps its element, target and address; the rescue disk
    (a config.GuestDisk with boot_order 1) goes after the last disk; every
    other per-device boot order moves down by one (root: 2); any <os><boot
    dev> goes (libvirt refuses it beside per-device orders).  A SCSI
    rescue disk gets a virtio-scsi controller when the guest has none.
    """
    root = etree.fromstring(domain_xml.encode())
    os_elem = root.find('os')
    if os_elem is not None:
        for boot in os_elem.findall('boot'):
            os_elem.remove(boot)
    devices = _devices(root)
    orders = devices.findall('*/boot')
    if orders:
        for boot in orders:
            boot.set('order', str(int(boot.get('order')) + 1))
    else:
        first = devices.find('disk')
        if first is not None:
            etree.SubElement(first, 'boot', order='2')
    if rescue_disk.target_bus == 'scsi':
        ctrl = _scsi_controller(root)
        if ctrl is None:
            ctrl = vconfig.GuestController(type='scsi', index=0,
                                           model=scsi_model).format_dom()
            _insert_after_disks(devices, ctrl)
        if ctrl.get('model') == 'virtio-scsi':
            rescue_disk.address = vconfig.GuestDeviceAddressDrive(
                controller=0, bus=0, target=0,
                unit=blockinfo.get_drive_unit('scsi',
                                              rescue_disk.target_dev))
    _insert_after_disks(devices, rescue_disk.format_dom())
    return etree.tostring(root, encoding='unicode')


def legacy_rescue_xml(domain_xml, rescue_disk, config_drive_path=None):
    """Upstream's legacy layout from the saved domain XML: the rescue disk
    at the root's target (and address), the original root at the next
    free name of its bus, the config drive; no ephemerals, swap or
    volumes.  Everything outside the disks stays as it was."""
    root = etree.fromstring(domain_xml.encode())
    devices = _devices(root)
    disks = domain_disks(root)
    root_elem, root_info = root_disk(disks)
    config = None
    for elem, info in disks:
        if config_drive_path and disk_source(elem) == config_drive_path:
            config = (elem, info)
    mapping = blockinfo.get_legacy_rescue_mapping(
        root_info, config[1] if config else None)
    position = list(devices).index(disks[0][0]) if disks else 0
    for elem, _info in disks:
        devices.remove(elem)
    rescue_elem = rescue_disk.format_dom()
    address = root_elem.find('address')
    if address is not None:
        rescue_elem.append(copy.deepcopy(address))
    moved = copy.deepcopy(root_elem)
    for tag in ('boot', 'address'):
        for child in moved.findall(tag):
            moved.remove(child)
    moved.find('target').set('dev', mapping['disk']['dev'])
    new = [rescue_elem, moved]
    if config is not None:
        new.append(config[0])
    for offset, elem in enumerate(new):
        devices.insert(position + offset, elem)
    os_elem = root.find('os')
    if os_elem is not None:
        for boot in os_elem.findall('boot'):
            os_elem.remove(boot)
    return etree.tostring(root, encoding='unicode')


# ----------------------------------------------------------------- the mixin

class RescueMixin:
    """rescue/unrescue for LibvirtDriver (uses its host, settings,
    image_cache, get_instance_dir, _guest and _connect_volumes)."""

    def _unrescue_xml_path(self, instance):
        return os.path.join(self.get_instance_dir(instance), UNRESCUE_XML)

    def _instance_image_props(self, instance):
        if getattr(instance, 'system_metadata', None):
            return image_meta_obj.ImageMeta.from_instance(instance).properties
        return getattr(instance, 'image_props', None) or {}

    def _host_disk_caps(self, machine_type):
        if self.host.is_test:
            return None
        return parse_domain_disk_caps(self.host.get_domain_capabilities(
            self.settings.domain_type, self.settings.arch, machine_type))

    def _validate_rescue(self, instance, image_meta, domain_root):
        props = image_meta.properties
        machine = domain_machine_type(domain_root)
        root_elem, _info = root_disk(domain_disks(domain_root))
        volume_backed = root_elem is None or disk_source(root_elem) != \
            os.path.join(self.get_instance_dir(instance), 'disk')
        caps = None
        if is_stable_rescue(props):
            caps = self._host_disk_caps(machine)
        device = validate_rescue(
            self.virt_type, self._instance_image_props(instance), props,
            caps, machine,
            _image_attr(image_meta, 'disk_format'),
            volume_backed, self.settings.arch)
        if device is not None:
            # A bus with no free name must be refused before the API answers,
            # not found out by the rescue itself after the 200.
            rescue_disk_info(domain_root, device[0], device[1])
        return device

    def validate_rescue_request(self, instance, image_meta):
        """The API's pre-check (through compute RPC): raises Invalid for a
        rescue this host cannot do; changes nothing."""
        guest = self._guest(instance)
        root = etree.fromstring(guest.get_xml_desc(inactive=True).encode())
        return self._validate_rescue(instance, image_meta, root)

    def rescue(self, context, instance, network_info, image_meta,
               rescue_password, block_device_info=None):
        """Boot the rescue image; every failure puts the guest back.

        Stable-device rescue (hw_rescue_bus/hw_rescue_device on the rescue
        image) keeps the persistent domain exactly, adds the rescue disk
        last with boot order 1.  Otherwise upstream's legacy layout.
        ``block_device_info`` (the complete mapping) gets its volumes
        connected; the persistent domain already attaches them at their
        normal targets.  ``rescue_password`` is not used: the rescue image
        brings its own credentials (no rescue config drive is built).
        """
        guest = self._guest(instance)
        saved_path = self._unrescue_xml_path(instance)
        if os.path.exists(saved_path):
            raise exception.Conflict(
                reason='instance %s is already rescued' % instance.uuid)
        saved = guest.get_xml_desc(inactive=True, secure=True)
        was_running = guest.is_active()
        _write_file(saved_path, saved)
        touched = False
        try:
            root = etree.fromstring(saved.encode())
            device = self._validate_rescue(instance, image_meta, root)
            if device is not None:
                self._connect_volumes(instance, block_device_info)
            disk_path = os.path.join(self.get_instance_dir(instance),
                                     RESCUE_DISK)
            if device is None:
                root_info = root_disk(domain_disks(root))[1]
                disk = self._make_rescue_disk(
                    context, image_meta, disk_path, blockinfo.disk_info(
                        root_info['bus'], root_info['dev'], 'disk', 1))
                xml = legacy_rescue_xml(saved, disk, os.path.join(
                    self.get_instance_dir(instance), CONFIG_DRIVE))
            else:
                disk = self._make_rescue_disk(
                    context, image_meta, disk_path,
                    rescue_disk_info(root, device[0], device[1]))
                xml = stable_rescue_xml(
                    saved, disk, image_meta.properties.get('hw_scsi_model')
                    or 'virtio-scsi')
            touched = True
            guest.poweroff()
            guest = self.host.define_guest(xml)
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
        image_id = _image_attr(image_meta, 'id')
        disk_format = _image_attr(image_meta, 'disk_format')
        try:
            if info['type'] == 'cdrom' and disk_format == 'iso':
                base = self.image_cache.get(context, image_id, disk_format)
                imagebackend.link_or_copy(base.path, path)
                fmt = 'raw'
            else:
                imagebackend.create_root_disk(context, self.image_cache,
                                              image_id, path, 0, disk_format)
                fmt = 'qcow2'
        except imagebackend.ProcessError as exc:
            raise exception.InstanceDeployFailure(
                reason=exc.format_message())
        return vconfig.GuestDisk(
            source_type='file', source_device=info['type'],
            driver_name='qemu', driver_format=fmt,
            driver_cache=self.settings.disk_cachemode, source_path=path,
            target_dev=info['dev'], target_bus=info['bus'],
            boot_order=info['boot_index'], readonly=info['type'] == 'cdrom')

    def _restore_domain(self, guest, saved, was_running):
        try:
            guest.poweroff()
            guest = self.host.define_guest(saved)
            if was_running:
                guest.launch()
        except exception.NovaException:
            LOG.exception('Could not restore the pre-rescue domain of %s',
                          guest.uuid)

    def _remove_rescue_files(self, instance):
        inst_dir = self.get_instance_dir(instance)
        for name in (RESCUE_DISK, UNRESCUE_XML):
            try:
                os.unlink(os.path.join(inst_dir, name))
            except FileNotFoundError:
                pass

    def has_rescue_state(self, instance):
        """True while the pre-rescue definition is saved (a rescue began, no unrescue ended)."""
        return os.path.exists(self._unrescue_xml_path(instance))

    def unrescue(self, context, instance, network_info=None):
        """Back to the exact pre-rescue definition, started."""
        saved_path = self._unrescue_xml_path(instance)
        try:
            with open(saved_path) as f:
                saved = f.read()
        except FileNotFoundError:
            raise exception.Conflict(
                reason='instance %s is not rescued' % instance.uuid)
        guest = self._guest(instance)
        guest.poweroff()
        guest = self.host.define_guest(saved)
        guest.launch()
        self._remove_rescue_files(instance)
        LOG.info('Unrescued %s', instance.uuid)


def _image_attr(image_meta, name):
    """An ImageMeta field or None (unset o.vo fields raise on access)."""
    is_set = getattr(image_meta, 'obj_attr_is_set', None)
    if is_set is not None and not is_set(name):
        return None
    return getattr(image_meta, name, None)


def _write_file(path, text):
    part = path + '.part'
    with open(part, 'w') as f:
        f.write(text)
    os.replace(part, path)
