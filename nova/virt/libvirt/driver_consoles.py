"""libvirt driver: where a guest's VNC, SPICE and serial consoles listen, and its console log."""

import os

from nova import exception
from nova.virt.libvirt import consoles


def read_tail(path, max_bytes):
    """Last ``max_bytes`` of a file; b'' if it does not exist yet."""
    try:
        with open(path, 'rb') as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            return f.read()
    except FileNotFoundError:
        return b''


class LibvirtConsoles:
    """Remote consoles (live XML), the serial console port a guest gets,
    and the console log."""

    def __init__(self, core):
        self._core = core

    def used_serial_ports(self):
        """TCP ports the serial consoles of this host's guests hold."""
        used = set()
        for guest in self._core.host.list_guests(False):
            try:
                xml = guest.get_xml_desc(inactive=True)
            except exception.NotFound:
                continue
            used.update(port for _host, port in consoles.serial_tcp_endpoints(xml))
        return used

    def serial_port_for(self, instance):
        """The TCP port of the instance's serial console: the one its domain
        already has (a rebuilt or re-spawned guest keeps it), else a free one."""
        settings = self._core.settings.consoles
        if settings is None or not settings.serial_enabled:
            return None
        try:
            xml = self._core.guest(instance).get_xml_desc(inactive=True)
        except exception.NotFound:
            xml = None
        if xml is not None:
            for _host, port in consoles.serial_tcp_endpoints(xml):
                return port
        return consoles.pick_serial_port(settings, self.used_serial_ports())

    def _live_xml(self, instance, console_type):
        guest = self._core.guest(instance)
        if not guest.is_active():
            raise exception.InstanceNotReady(instance_id=instance.uuid)
        return guest.get_xml_desc()

    def get_vnc_console(self, context, instance):
        """{'host', 'port', 'internal_access_path'} of the guest's VNC server."""
        if not self._core.conf.vnc.enabled:
            raise exception.ConsoleTypeUnavailable(console_type='novnc')
        port = consoles.vnc_port(self._live_xml(instance, 'novnc'))
        if port is None:
            # A guest defined while VNC was off has no graphics device.
            raise exception.ConsoleTypeUnavailable(console_type='novnc')
        return {'host': self._core.conf.vnc.server_proxyclient_address, 'port': port,
                'internal_access_path': None}

    def get_spice_console(self, context, instance):
        """{'host', 'port', 'tls_port', 'internal_access_path'} of the guest's
        SPICE server; tls_port is None without SPICE TLS (libvirt's qemu.conf)."""
        if not self._core.conf.spice.enabled:
            raise exception.ConsoleTypeUnavailable(console_type='spice-html5')
        port, tls_port = consoles.spice_ports(self._live_xml(instance, 'spice'))
        if port is None:
            # A guest defined while SPICE was off has no SPICE device.
            raise exception.ConsoleTypeUnavailable(console_type='spice-html5')
        return {'host': self._core.conf.spice.server_proxyclient_address, 'port': port,
                'tls_port': tls_port, 'internal_access_path': None}

    def get_serial_console(self, context, instance):
        """{'host', 'port', 'internal_access_path'} of the guest's serial port 0."""
        if not self._core.conf.serial_console.enabled:
            raise exception.ConsoleTypeUnavailable(console_type='serial')
        endpoints = consoles.serial_tcp_endpoints(self._live_xml(instance, 'serial'))
        if not endpoints:
            raise exception.ConsoleTypeUnavailable(console_type='serial')
        host, port = endpoints[0]
        return {'host': host or self._core.conf.serial_console.proxyclient_address,
                'port': port, 'internal_access_path': None}

    def get_console_output(self, context, instance):
        # Raise InstanceNotFound for unknown guests, like upstream.
        self._core.guest(instance)
        return read_tail(self._core.console_log_path(instance),
                         self._core.conf.libvirt.console_log_max_bytes)
