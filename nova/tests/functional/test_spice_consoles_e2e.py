"""SPICE consoles end to end: a real QEMU guest's SPICE server, spice-html5 and spice-direct."""

import socket
import struct
import time
import urllib.parse
import urllib.request

import pytest
from lxml import etree

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures
from nova.tests.functional.consoles_client import WebSocketClient, remote_console

pytestmark = fx.requires_libvirtd()
ADMIN = 'admin:admin'

# The main channel's SpiceLinkMess, as tempest's spice-direct test sends it:
# magic, version 2.2, 26 bytes follow, connection 0, channel main (1) id 0,
# one common and one channel capability word at offset 18.
LINK_MESS = struct.pack('<4sIIIIBBIIIII', b'REDQ', 2, 2, 42 - 16, 0, 1, 0, 1, 1, 18, 11, 9)


def check_link_reply(reply):
    """SpiceLinkReply: magic, version 2.2, error 0 (SPICE_LINK_ERR_OK)."""
    assert len(reply) >= 20, reply
    magic, major, minor, _size, error = struct.unpack_from('<4sIIII', reply)
    assert (magic, major, minor, error) == (b'REDQ', 2, 2, 0), reply[:20]


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('spice')
    c = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI, extra={
        ('vnc', 'enabled'): True, ('spice', 'enabled'): True})
    c.image = c.upload_image(bootimg.write_boot_image(str(tmp / 'guest.img'),
                                                      'SPICE-GUEST\r\n'))
    yield c
    c.stop()


def _boot(cloud, name):
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': name, 'flavorRef': '1', 'imageRef': cloud.image, 'networks': 'none'}},
        version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    return sid


@pytest.fixture(scope='module')
def server(cloud):
    sid = _boot(cloud, 'spice')
    # The guest runs with its QXL card under TCG: it prints on its serial port.
    deadline = time.monotonic() + 30
    output = ''
    while 'SPICE-GUEST' not in output:
        assert time.monotonic() < deadline, output
        time.sleep(0.2)
        output = cloud.request('POST', '/servers/%s/action' % sid,
                               {'os-getConsoleOutput': {}})[2]['output']
    return sid


def _live_spice_port(sid):
    (graphics,) = etree.fromstring(fx.live_xml(sid).encode()).findall(
        "./devices/graphics[@type='spice']")
    return int(graphics.get('port'))


def _token(url):
    (token,) = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)['token']
    return token


def spice_link_through_proxy(url):
    ws = WebSocketClient(url)
    try:
        assert ws.status == 101, ws.status_line
        ws.send(LINK_MESS)
        reply = b''
        while len(reply) < 20:
            reply += ws.recv_data()
        return reply
    finally:
        ws.close()


def test_domain_has_spice_vnc_qxl_and_the_agent_channel(server):
    root = etree.fromstring(fx.live_xml(server).encode())
    graphics = {g.get('type'): g for g in root.findall('./devices/graphics')}
    assert set(graphics) == {'vnc', 'spice'}
    spice = graphics['spice']
    assert spice.get('autoport') == 'yes' and int(spice.get('port')) >= 5900
    assert spice.find('listen').get('address') == '127.0.0.1'
    assert [m.get('type') for m in root.findall('./devices/video/model')] == ['qxl']
    (channel,) = root.findall("./devices/channel[@type='spicevmc']")
    assert channel.find('target').get('name') == 'com.redhat.spice.0'


def test_spice_html5_console_links_through_the_proxy(cloud, server):
    url = remote_console(cloud, server, 'spice', 'spice-html5')
    assert url.startswith(cloud.conf.spice.html5proxy_base_url + '?token=')
    check_link_reply(spice_link_through_proxy(url))
    with urllib.request.urlopen(url, timeout=10) as resp:
        page = resp.read().decode()
    assert resp.status == 200 and 'SPICE' in page and '<script' in page


def test_legacy_get_spice_console_before_2_6(cloud, server):
    path = '/servers/%s/action' % server
    body = {'os-getSPICEConsole': {'type': 'spice-html5'}}
    status, _h, resp = cloud.request('POST', path, body, version='2.5')
    assert status == 200, resp
    assert resp['console']['type'] == 'spice-html5'
    check_link_reply(spice_link_through_proxy(resp['console']['url']))
    assert cloud.request('POST', path, body, version='2.6')[0] == 404
    assert cloud.request('POST', path, {'os-getSPICEConsole': {'type': 'novnc'}},
                         version='2.5')[0] == 400


def test_spice_direct_token_names_the_guests_spice_port(cloud, server):
    url = remote_console(cloud, server, 'spice', 'spice-direct', version='2.99')
    assert url.startswith(cloud.conf.spice.spice_direct_proxy_base_url + '?token=')
    token = _token(url)
    status, _h, body = cloud.request('GET', '/os-console-auth-tokens/' + token,
                                     version='2.99', token=ADMIN)
    assert status == 200, body
    console = body['console']
    assert console == {'instance_uuid': server, 'host': '127.0.0.1',
                       'port': _live_spice_port(server), 'tls_port': None,
                       'internal_access_path': None}
    # What tempest's spice-direct test then does: a SPICE link straight to it.
    with socket.create_connection((console['host'], console['port']), timeout=10) as sock:
        sock.sendall(LINK_MESS)
        reply = b''
        while len(reply) < 20:
            chunk = sock.recv(4096)
            assert chunk, 'SPICE server closed the connection'
            reply += chunk
    check_link_reply(reply)
    # Before 2.99 the same token shows no tls_port; spice-direct is a 2.99 type.
    status, _h, body = cloud.request('GET', '/os-console-auth-tokens/' + token,
                                     version='2.98', token=ADMIN)
    assert status == 200 and 'tls_port' not in body['console'], body
    status, _h, body = cloud.request('POST', '/servers/%s/remote-consoles' % server, {
        'remote_console': {'protocol': 'spice', 'type': 'spice-direct'}}, version='2.98')
    assert status == 400, body
    # A spice-direct token opens nothing on the spice-html5 proxy.
    ws = WebSocketClient(cloud.conf.spice.html5proxy_base_url + '?token=' + token)
    assert ws.status == 403
    ws.close()


def test_spice_html5_token_details_have_no_tls_port(cloud, server):
    token = _token(remote_console(cloud, server, 'spice', 'spice-html5'))
    status, _h, body = cloud.request('GET', '/os-console-auth-tokens/' + token,
                                     version='2.99', token=ADMIN)
    assert status == 200, body
    assert body['console']['port'] == _live_spice_port(server)
    assert 'tls_port' not in body['console']


def test_vnc_still_served_beside_spice(cloud, server):
    url = remote_console(cloud, server, 'vnc', 'novnc')
    ws = WebSocketClient(url)
    try:
        assert ws.status == 101
        assert ws.recv_data().startswith(b'RFB 003.')
    finally:
        ws.close()


def test_errors(cloud, server):
    path = '/servers/%s/remote-consoles' % server
    # protocol and type must match.
    status, _h, body = cloud.request('POST', path, {'remote_console': {
        'protocol': 'vnc', 'type': 'spice-html5'}}, version='2.6')
    assert status == 400, body
    missing = '0' * 8 + '-0000-0000-0000-' + '0' * 12
    status, _h, body = cloud.request('POST', '/servers/%s/remote-consoles' % missing, {
        'remote_console': {'protocol': 'spice', 'type': 'spice-html5'}}, version='2.6')
    assert status == 404, body
    # A stopped server has no SPICE server to reach: 409.
    sid = _boot(cloud, 'stopped')
    assert cloud.request('POST', '/servers/%s/action' % sid, {'os-stop': None})[0] == 202
    cloud.wait_for_status(sid, ['SHUTOFF'])
    for type_, version in (('spice-html5', '2.6'), ('spice-direct', '2.99')):
        status, _h, body = cloud.request('POST', '/servers/%s/remote-consoles' % sid, {
            'remote_console': {'protocol': 'spice', 'type': type_}}, version=version)
        assert status == 409, body
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204


def test_responses_match_tempest_schemas(cloud, server):
    jsonschema = pytest.importorskip('jsonschema')
    from tempest.lib.api_schema.response.compute.v2_1 import servers as v2_1
    from tempest.lib.api_schema.response.compute.v2_6 import servers as v2_6
    from tempest.lib.api_schema.response.compute.v2_99 import servers as v2_99

    def check(schema, status, body):
        assert status in schema['status_code']
        jsonschema.validate(body, schema['response_body'])
    path = '/servers/%s/remote-consoles' % server
    status, _h, body = cloud.request('POST', path, {'remote_console': {
        'protocol': 'spice', 'type': 'spice-html5'}}, version='2.6')
    check(v2_6.get_remote_consoles, status, body)
    status, _h, body = cloud.request('POST', path, {'remote_console': {
        'protocol': 'spice', 'type': 'spice-direct'}}, version='2.99')
    check(v2_99.get_remote_consoles, status, body)
    status, _h, body = cloud.request('GET', '/os-console-auth-tokens/'
                                     + _token(body['remote_console']['url']),
                                     version='2.99', token=ADMIN)
    check(v2_99.console_auth_tokens, status, body)
    status, _h, body = cloud.request('POST', '/servers/%s/action' % server, {
        'os-getSPICEConsole': {'type': 'spice-html5'}})
    check(v2_1.get_vnc_console, status, body)       # tempest has no spice one: same shape
