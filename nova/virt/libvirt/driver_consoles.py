"""libvirt driver: where a guest's VNC, SPICE and serial consoles listen (live XML)."""

import logging

from nova import exception
from nova.virt.libvirt import consoles

LOG = logging.getLogger(__name__)


class ConsolesMixin:
    """Mixed into LibvirtDriver; needs ``self.host``, ``self.conf``, ``self.settings``."""

    def _used_serial_ports(self):
        used = set()
        for guest in self.host.list_guests(False):
            try:
                xml = guest.get_xml_desc(inactive=True)
            except exception.NotFound:
                continue
            used.update(port for _host, port in consoles.serial_tcp_endpoints(xml))
        return used

    def serial_port_for(self, instance):
        """The TCP port of the instance's serial console: the one its domain
        already has (a rebuilt or re-spawned guest keeps it), else a free one."""
        settings = self.settings.consoles
        if settings is None or not settings.serial_enabled:
            return None
        try:
            xml = self._guest(instance).get_xml_desc(inactive=True)
        except exception.NotFound:
            xml = None
        if xml is not None:
            for _host, port in consoles.serial_tcp_endpoints(xml):
                return port
        return consoles.pick_serial_port(settings, self._used_serial_ports())

    def _live_xml(self, instance, console_type):
        guest = self._guest(instance)
        if not guest.is_active():
            raise exception.InstanceNotReady(instance_id=instance.uuid)
        return guest.get_xml_desc()

    def get_vnc_console(self, context, instance):
        """{'host', 'port', 'internal_access_path'} of the guest's VNC server."""
        if not self.conf.vnc.enabled:
            raise exception.ConsoleTypeUnavailable(console_type='novnc')
        port = consoles.vnc_port(self._live_xml(instance, 'novnc'))
        if port is None:
            # A guest defined while VNC was off has no graphics device.
            raise exception.ConsoleTypeUnavailable(console_type='novnc')
        return {'host': self.conf.vnc.server_proxyclient_address, 'port': port,
                'internal_access_path': None}

    def get_spice_console(self, context, instance):
        """{'host', 'port', 'tls_port', 'internal_access_path'} of the guest's
        SPICE server; tls_port is None without SPICE TLS (libvirt's qemu.conf)."""
        if not self.conf.spice.enabled:
            raise exception.ConsoleTypeUnavailable(console_type='spice-html5')
        port, tls_port = consoles.spice_ports(self._live_xml(instance, 'spice'))
        if port is None:
            # A guest defined while SPICE was off has no SPICE device.
            raise exception.ConsoleTypeUnavailable(console_type='spice-html5')
        return {'host': self.conf.spice.server_proxyclient_address, 'port': port,
                'tls_port': tls_port, 'internal_access_path': None}

    def get_serial_console(self, context, instance):
        """{'host', 'port', 'internal_access_path'} of the guest's serial port 0."""
        if not self.conf.serial_console.enabled:
            raise exception.ConsoleTypeUnavailable(console_type='serial')
        endpoints = consoles.serial_tcp_endpoints(self._live_xml(instance, 'serial'))
        if not endpoints:
            raise exception.ConsoleTypeUnavailable(console_type='serial')
        host, port = endpoints[0]
        return {'host': host or self.conf.serial_console.proxyclient_address,
                'port': port, 'internal_access_path': None}
