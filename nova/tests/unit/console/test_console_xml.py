"""Console devices in the domain XML, and reading them back from a live domain."""

import socket

import pytest
from lxml import etree

from nova import exception
from nova.virt.libvirt import consoles


def _xml(devices):
    return ''.join(d.to_xml(pretty_print=False) for d in devices)


def test_log_file_only_when_serial_consoles_are_off():
    settings = consoles.ConsoleSettings(vnc_enabled=False)
    assert _xml(consoles.console_devices(settings, '/i/console.log', None)) == (
        "<serial type=\"file\"><source path=\"/i/console.log\" append=\"on\"/>"
        "<target port=\"0\"/></serial>")
    assert _xml(consoles.console_devices(None, '/i/console.log')).startswith(
        '<serial type="file">')


def test_tcp_serial_keeps_the_log_and_vnc_listens_locally():
    settings = consoles.ConsoleSettings(vnc_enabled=True, serial_enabled=True,
                                        serial_host='192.0.2.1')
    assert _xml(consoles.console_devices(settings, '/i/console.log', 10005)) == (
        '<serial type="tcp"><source mode="bind" host="192.0.2.1" service="10005"/>'
        '<protocol type="raw"/><target port="0"/>'
        '<log file="/i/console.log" append="on"/></serial>'
        '<graphics type="vnc" autoport="yes"><listen type="address" address="127.0.0.1"/>'
        '</graphics>')


def test_agent_channel_only_when_the_image_asks():
    assert consoles.agent_devices({'hw_qemu_guest_agent': 'no'}) == []
    assert consoles.agent_devices(None) == []
    (channel,) = consoles.agent_devices({'hw_qemu_guest_agent': 'yes'})
    assert channel.to_xml(pretty_print=False) == (
        '<channel type="unix"><target type="virtio" name="org.qemu.guest_agent.0"/>'
        '</channel>')


LIVE = """<domain><devices>
<serial type='tcp'><source mode='bind' host='127.0.0.1' service='10007'/></serial>
<serial type='file'><source path='/x'/></serial>
<graphics type='vnc' port='5901' autoport='yes'/>
</devices></domain>"""


def test_live_ports():
    assert consoles.vnc_port(LIVE) == 5901
    assert consoles.serial_tcp_endpoints(LIVE) == [('127.0.0.1', 10007)]
    assert consoles.vnc_port("<domain><devices><graphics type='vnc' port='-1'/>"
                             "</devices></domain>") is None
    etree.fromstring(LIVE.encode())


def test_port_picker_skips_used_and_bound_ports():
    with socket.socket() as busy:
        busy.bind(('127.0.0.1', 0))
        busy.listen()
        port = busy.getsockname()[1]
        settings = consoles.ConsoleSettings(serial_port_range=(port, port + 2))
        picked = consoles.pick_serial_port(settings, {port + 1})
        assert picked == port + 2
        with pytest.raises(exception.SocketPortRangeExhausted):
            consoles.pick_serial_port(consoles.ConsoleSettings(
                serial_port_range=(port, port)), set())


def test_port_range_is_checked():
    assert consoles.parse_port_range('10000:20000') == (10000, 20000)
    for bad in ('0:10', '20:10', '1:70000'):
        with pytest.raises(ValueError):
            consoles.parse_port_range(bad)


def test_spice_beside_vnc_with_qxl_and_the_agent_channel():
    settings = consoles.ConsoleSettings(vnc_enabled=True, spice_enabled=True,
                                        spice_listen='192.0.2.7')
    xml = _xml(consoles.console_devices(settings, '/i/console.log', None))
    assert xml.endswith(
        '<graphics type="vnc" autoport="yes"><listen type="address" address="127.0.0.1"/>'
        '</graphics>'
        '<graphics type="spice" autoport="yes">'
        '<listen type="address" address="192.0.2.7"/></graphics>'
        '<video><model type="qxl"/></video>'
        '<channel type="spicevmc"><target type="virtio" name="com.redhat.spice.0"/>'
        '</channel>'), xml


def test_spice_alone_and_without_the_agent():
    settings = consoles.ConsoleSettings(vnc_enabled=False, spice_enabled=True,
                                        spice_agent=False)
    xml = _xml(consoles.console_devices(settings, '/i/console.log', None))
    assert 'type="vnc"' not in xml and 'spicevmc' not in xml
    assert xml.endswith('<graphics type="spice" autoport="yes">'
                        '<listen type="address" address="127.0.0.1"/></graphics>'
                        '<video><model type="qxl"/></video>'), xml
    # No SPICE unless enabled.
    off = _xml(consoles.console_devices(consoles.ConsoleSettings(), '/i/console.log'))
    assert 'spice' not in off and '<video>' not in off


def test_spice_settings_from_conf(tmp_path):
    from nova.tests.fixtures import libvirt as fx
    conf = fx.make_conf(tmp_path)
    assert not consoles.ConsoleSettings.from_conf(conf).spice_enabled
    conf.set_override('enabled', True, group='spice')
    conf.set_override('server_listen', '192.0.2.9', group='spice')
    conf.set_override('agent_enabled', False, group='spice')
    settings = consoles.ConsoleSettings.from_conf(conf)
    assert (settings.spice_enabled, settings.spice_listen, settings.spice_agent) == \
        (True, '192.0.2.9', False)


LIVE_SPICE = """<domain><devices>
<graphics type='vnc' port='5900' autoport='yes'/>
<graphics type='spice' port='5901' tlsPort='5902' autoport='yes' listen='127.0.0.1'>
  <listen type='address' address='127.0.0.1'/>
</graphics>
</devices></domain>"""


def test_live_spice_ports():
    assert consoles.spice_ports(LIVE_SPICE) == (5901, 5902)
    assert consoles.vnc_port(LIVE_SPICE) == 5900
    # No TLS (libvirt's default): no tlsPort; not started: port -1; no SPICE at all.
    assert consoles.spice_ports(LIVE_SPICE.replace(" tlsPort='5902'", '')) == (5901, None)
    assert consoles.spice_ports("<domain><devices><graphics type='spice' port='-1' "
                                "autoport='yes'/></devices></domain>") == (None, None)
    assert consoles.spice_ports(LIVE) == (None, None)
