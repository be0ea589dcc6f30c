"""Libvirt driver: lifecycle events of the host's guests, and which domains are ours."""

import os
import re

import libvirt

from nova import exception
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import events

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
    console sources, direct-boot kernel and initrd), read through config.GuestDomain."""
    guest = vconfig.GuestDomain.from_xml(domain_xml)
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


class LibvirtLifecycle:
    """Lifecycle events of this host's guests, and which domains are ours."""

    def __init__(self, core):
        self._core = core
        self._listener = None

    @property
    def listener(self):
        """The running events.LifecycleListener, or None."""
        return self._listener

    # ------------------------------------------------------------ events
    def start_lifecycle_events(self, callback, on_reconnect=None):
        """Call ``callback(uuid, power_state)`` for each guest lifecycle event."""
        self.stop_lifecycle_events()
        self._listener = events.LifecycleListener(
            self._core.host.uri, callback, on_reconnect).start()
        return self._listener

    def stop_lifecycle_events(self):
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.stop()

    # ------------------------------------------------------------ our domains
    def list_own_domains(self, name_template):
        """[(uuid, name, files_ours)] of domains named as ``name_template``
        makes names; ``files_ours`` tells whether the domain keeps its files
        in our instance directory.  Anything else on the host is not ours."""
        pattern = name_pattern(name_template)
        found = []
        for guest in self._core.host.list_guests():
            try:
                name, uuid = guest.name, guest.uuid
                if not pattern.match(name):
                    continue
                xml = guest.get_xml_desc(inactive=True)
            except (exception.NotFound, libvirt.libvirtError):
                continue   # gone while we looked
            found.append((uuid, name, owns_files(xml, self._core.instances_path, uuid)))
        return found
