"""Guest consoles in the domain XML: VNC and SPICE graphics and the serial port (file or TCP)."""

import dataclasses
import errno
import socket

from nova import exception
from nova.virt.libvirt import config as vconfig


@dataclasses.dataclass(frozen=True)
class ConsoleSettings:
    """[vnc], [spice] and [serial_console] as the XML builder needs them."""

    vnc_enabled: bool = False
    vnc_listen: str = '127.0.0.1'
    spice_enabled: bool = False
    spice_listen: str = '127.0.0.1'
    spice_agent: bool = True
    serial_enabled: bool = False
    serial_host: str = '127.0.0.1'
    serial_port_range: tuple = (10000, 20000)

    @classmethod
    def from_conf(cls, conf):
        low, high = parse_port_range(conf.serial_console.port_range)
        return cls(vnc_enabled=conf.vnc.enabled, vnc_listen=conf.vnc.server_listen,
                   spice_enabled=conf.spice.enabled, spice_listen=conf.spice.server_listen,
                   spice_agent=conf.spice.agent_enabled,
                   serial_enabled=conf.serial_console.enabled,
                   serial_host=conf.serial_console.proxyclient_address,
                   serial_port_range=(low, high))


def parse_port_range(text):
    low, high = (int(part) for part in text.split(':'))
    if not 0 < low <= high < 65536:
        raise ValueError('invalid [serial_console] port_range %r' % text)
    return low, high


AGENT_CHANNEL = 'org.qemu.guest_agent.0'
# The virtio-serial port spice-vdagent in the guest opens (upstream's name).
SPICE_AGENT_CHANNEL = 'com.redhat.spice.0'
# Upstream's video model for SPICE guests on x86 (QXL: SPICE's own display
# device); an image's hw_video_model still wins.
SPICE_VIDEO_MODEL = 'qxl'


def agent_devices(image_props):
    """The QEMU guest agent's channel when the image sets hw_qemu_guest_agent."""
    if agent_enabled(image_props):
        return [vconfig.GuestChannel(target_name=AGENT_CHANNEL)]
    return []


def agent_enabled(image_props):
    if image_props is None:
        return False
    getter = getattr(image_props, 'get', None)
    value = getter('hw_qemu_guest_agent', False) if getter else False
    if isinstance(value, str):
        return value.strip().lower() in ('1', 'yes', 'true', 'on', 'y')
    return bool(value)


def console_devices(consoles, log_path, serial_port=None):
    """The serial port (+ its log) and the graphics devices of the enabled
    types: VNC, SPICE (with its QXL card and, when the agent is on, its
    spicevmc channel).

    Without a serial console the port writes straight to the log file. With
    one, it listens on ``serial_port`` and QEMU still copies everything the
    guest prints into the same log, so the console output API keeps working.
    """
    if consoles is not None and consoles.serial_enabled and serial_port is not None:
        serial = vconfig.GuestSerial(
            type='tcp', source_mode='bind', source_host=consoles.serial_host,
            source_service=serial_port, protocol_type='raw', target_port=0,
            log_file=log_path, log_append=True)
    else:
        # QEMU truncates the file on every start unless told to append; keep
        # the history across power cycles, as a console log should.
        serial = vconfig.GuestSerial(type='file', target_port=0, source_append=True,
                                     source_path=log_path)
    devices = [serial]
    if consoles is not None and consoles.vnc_enabled:
        devices.append(vconfig.GuestGraphics(type='vnc', autoport=True,
                                             listen=consoles.vnc_listen))
    if consoles is not None and consoles.spice_enabled:
        devices.append(vconfig.GuestGraphics(type='spice', autoport=True,
                                             listen=consoles.spice_listen))
        devices.append(vconfig.GuestVideo(model=SPICE_VIDEO_MODEL))
        if consoles.spice_agent:
            devices.append(vconfig.GuestChannel(type='spicevmc',
                                                target_name=SPICE_AGENT_CHANNEL))
    return devices


# ------------------------------------------------------------ live domain XML

def _domain(domain_xml):
    return vconfig.GuestDomain.from_xml(domain_xml)


def vnc_port(domain_xml):
    """The VNC port libvirt gave a running guest, or None."""
    for graphics in _domain(domain_xml).get_devices(vconfig.GuestGraphics):
        if graphics.type == 'vnc' and graphics.port and graphics.port > 0:
            return graphics.port
    return None


def spice_ports(domain_xml):
    """(port, tls_port) libvirt gave a running guest's SPICE server; None
    for one it has not (no SPICE device, or no TLS)."""
    for graphics in _domain(domain_xml).get_devices(vconfig.GuestGraphics):
        if graphics.type == 'spice':
            port, tls_port = graphics.port, graphics.tls_port
            return (port if port and port > 0 else None,
                    tls_port if tls_port and tls_port > 0 else None)
    return None, None


def serial_tcp_endpoints(domain_xml):
    """(host, port) of every TCP serial port the guest listens on."""
    return [(serial.source_host, int(serial.source_service))
            for serial in _domain(domain_xml).get_devices(vconfig.GuestSerial)
            if serial.type == 'tcp' and serial.source_mode == 'bind'
            and serial.source_service]


def _port_free(host, port):
    family = socket.AF_INET6 if ':' in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


def pick_serial_port(consoles, used_ports, from_top=False):
    """The first port of the range that no guest holds and nothing listens on.

    ``from_top``: the last such port instead (a guest arriving by live
    migration, so that it does not race the new guests of hosts that share
    this machine's ports, which take the lowest).
    """
    low, high = consoles.serial_port_range
    ports = range(high, low - 1, -1) if from_top else range(low, high + 1)
    for port in ports:
        if port not in used_ports and _port_free(consoles.serial_host, port):
            return port
    raise exception.SocketPortRangeExhausted(host=consoles.serial_host)
