"""LibvirtDriver: lifecycle events, domains recreated from instance data, our own domains."""

import logging
import os
import re

import libvirt

from nova import exception
from nova.objects import image_meta as image_meta_obj
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import events

LOG = logging.getLogger(__name__)

_PRINTF = re.compile(r'%%|%(\((?P<key>\w+)\))?[-#0 +]*\d*(?P<conv>[sdixX])')
_UUID_RE = r'[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'


def name_pattern(template):
    """A compiled regex matching every name ``instance_name_template`` makes."""
    parts, pos = [], 0
    for match in _PRINTF.finditer(template):
        parts.append(re.escape(template[pos:match.start()]))
        pos = match.end()
        if match.group(0) == '%%':
            parts.append('%')
        elif match.group('key') == 'uuid':
            parts.append(_UUID_RE)
        elif match.group('conv') in 'xX':
            parts.append('[0-9a-fA-F]+')
        elif match.group('conv') in 'di':
            parts.append('[0-9]+')
        else:
            parts.append('.+')
    parts.append(re.escape(template[pos:]))
    return re.compile('^%s$' % ''.join(parts))


def file_paths(domain_xml):
    """Every host file a domain definition points at (file disks, serial and
    console sources, direct-boot kernel and initrd), read through config.Guest."""
    guest = vconfig.Guest.from_xml(domain_xml)
    paths = [guest.os.kernel, guest.os.initrd] if guest.os is not None else []
    for dev in guest.devices:
        if isinstance(dev, vconfig.GuestDisk) and dev.source_type == 'file':
            paths.append(dev.source_path)
        elif isinstance(dev, vconfig.GuestCharDevice):
            paths.append(dev.source_path)
    return [path for path in paths if path]


def owns_files(domain_xml, instances_path, uuid):
    """True when the domain keeps its files in our instance directory for ``uuid``."""
    inst_dir = os.path.join(os.path.realpath(instances_path), uuid) + os.sep
    return any(os.path.realpath(p).startswith(inst_dir) or p.startswith(inst_dir)
               for p in file_paths(domain_xml))


class LifecycleMixin:
    """Mixed into LibvirtDriver (uses host, settings and the spawn helpers)."""

    _lifecycle_listener = None

    # ------------------------------------------------------------ events
    def start_lifecycle_events(self, callback, on_reconnect=None):
        """Call ``callback(uuid, power_state)`` for each guest lifecycle event."""
        self.stop_lifecycle_events()
        self._lifecycle_listener = events.LifecycleListener(
            self.host.uri, callback, on_reconnect).start()
        return self._lifecycle_listener

    def stop_lifecycle_events(self):
        listener, self._lifecycle_listener = self._lifecycle_listener, None
        if listener is not None:
            listener.stop()

    # ------------------------------------------------------------ recreate
    def _guest_or_recreate(self, context, instance, block_device_info=None):
        """The instance's domain; when it is gone, define it again from the
        instance's data (flavor, image metadata with overrides, block device
        mappings, config drive) as upstream's hard reboot does."""
        try:
            return self._guest(instance)
        except exception.InstanceNotFound:
            pass
        LOG.warning('Domain of %s is missing; recreating it from the instance data',
                    instance.uuid)
        return self._recreate_guest(context, instance, block_device_info)

    def _recreate_guest(self, context, instance, block_device_info):
        image_meta = image_meta_obj.ImageMeta.from_instance(instance)
        disk_mapping = self.get_disk_mapping(instance, image_meta, block_device_info)
        inst_dir = self.get_instance_dir(instance)
        os.makedirs(inst_dir, exist_ok=True)
        # Disks still on the host are reused as they are (their data is the
        # guest's); only missing files are made again.
        missing = {name: info for name, info in disk_mapping.items()
                   if not os.path.exists(os.path.join(inst_dir, name))}
        if 'disk' in missing:
            self._create_root_disk(context, instance, image_meta)
        self._create_local_disks(instance, {n: i for n, i in missing.items()
                                            if n not in ('disk', 'disk.config')},
                                 block_device_info)
        if 'disk.config' in missing:
            self._create_config_drive(instance, [], None)
        self._connect_volumes(instance, block_device_info)
        boot_files = self._fetch_boot_files(context, instance, image_meta, disk_mapping)
        with self._placement_lock:
            xml = self.get_guest_xml(instance, image_meta, disk_mapping, boot_files,
                                     block_device_info, host_info=self.host_info())
            return self.host.define_guest(xml)

    # ------------------------------------------------------------ our domains
    def list_own_domains(self, name_template):
        """[(uuid, name, files_ours)] of domains named as ``name_template``
        makes names; ``files_ours`` tells whether the domain keeps its files
        in our instance directory.  Anything else on the host is not ours."""
        pattern = name_pattern(name_template)
        found = []
        for guest in self.host.list_guests():
            try:
                name, uuid = guest.name, guest.uuid
                if not pattern.match(name):
                    continue
                xml = guest.get_xml_desc(inactive=True)
            except (exception.NotFound, libvirt.libvirtError):
                continue   # gone while we looked
            found.append((uuid, name, owns_files(xml, self.instances_path, uuid)))
        return found
