"""Remote consoles end to end: real QEMU guests, the API, the token DB and both proxies."""

import struct
import time
import urllib.request

import libvirt
import pytest

from nova import exception
from nova.console import tokens
from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures
from nova.tests.functional.consoles_client import WebSocketClient, remote_console

pytestmark = fx.requires_libvirtd()
ADMIN = 'admin:admin'


def write_echo_image(path, message):
    """A guest that prints ``message`` on COM1, then echoes what COM1 receives."""
    return bootimg.write_boot_image(path, message, ack_unplug=True)


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('consoles')
    c = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI, extra={
        ('serial_console', 'enabled'): True, ('vnc', 'enabled'): True,
        ('serial_console', 'port_range'): '24000:24999'})
    c.image = c.upload_image(write_echo_image(str(tmp / 'echo.img'), 'ECHO-GUEST\r\n'))
    c.rescue_image = c.upload_image(write_echo_image(str(tmp / 'rescue.img'),
                                                     'RESCUE-GUEST\r\n'),
                                    name='rescue', hw_rescue_bus='usb')
    yield c
    c.stop()


@pytest.fixture(scope='module')
def server(cloud):
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'console', 'flavorRef': '1', 'imageRef': cloud.image,
        'networks': 'none'}}, version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    wait_output(cloud, sid, 'ECHO-GUEST')
    return sid


def wait_output(cloud, sid, text, timeout=30):
    deadline = time.monotonic() + timeout
    output = ''
    while time.monotonic() < deadline:
        _s, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                     {'os-getConsoleOutput': {}})
        output = body['output']
        if text in output:
            return output
        time.sleep(0.1)
    raise AssertionError('%r not in console output %r' % (text, output))


def serial_echo(url, payload=b'hello-serial'):
    ws = WebSocketClient(url)
    try:
        assert ws.status == 101, ws.status_line
        ws.send(payload)
        got = b''
        while payload not in got:
            got += ws.recv_data()
        return got
    finally:
        ws.close()


def rfb_handshake(url):
    """What tempest checks: RFB version, security type None, ServerInit."""
    ws = WebSocketClient(url)
    try:
        assert ws.status == 101, ws.status_line
        version = ws.recv_data()
        assert version.startswith(b'RFB 003.'), version
        ws.send(b'RFB 003.008\n')
        types = ws.recv_data()
        assert 1 in types[1:1 + types[0]], types
        ws.send(bytes([1]))
        assert ws.recv_data() == b'\0\0\0\0'
        ws.send(bytes([1]))                      # ClientInit: shared
        init = ws.recv_data()
        assert len(init) == 24 + struct.unpack('>L', init[20:24])[0]
        return version
    finally:
        ws.close()


def test_serial_console_relays_both_ways(cloud, server):
    url = remote_console(cloud, server, 'serial', 'serial')
    assert url.startswith(cloud.conf.serial_console.base_url + '?token=')
    assert b'hello-serial' in serial_echo(url)
    # The console log still records what the guest prints (and echoes).
    wait_output(cloud, server, 'hello-serial')


def test_vnc_console_rfb_handshake_and_page(cloud, server):
    url = remote_console(cloud, server, 'vnc', 'novnc')
    assert url.startswith(cloud.conf.vnc.novncproxy_base_url + '?path=%3Ftoken%3D')
    with urllib.request.urlopen(url, timeout=10) as resp:
        page = resp.read().decode()
    assert resp.status == 200 and 'noVNC' in page and '<script' in page
    rfb_handshake(url)


def test_legacy_actions_before_2_6(cloud, server):
    for action, type_ in (('os-getVNCConsole', 'novnc'), ('os-getSerialConsole', 'serial')):
        status, _h, body = cloud.request('POST', '/servers/%s/action' % server,
                                         {action: {'type': type_}}, version='2.5')
        assert status == 200, body
        assert body['console']['type'] == type_
        status, _h, body = cloud.request('POST', '/servers/%s/action' % server,
                                         {action: {'type': type_}}, version='2.6')
        assert status == 404, body
    status, _h, body = cloud.request('POST', '/servers/%s/action' % server,
                                     {'os-getVNCConsole': {'type': 'novnc'}})
    rfb_handshake(body['console']['url'])


def test_bad_requests(cloud, server):
    path = '/servers/%s/remote-consoles' % server
    for version, body in (('2.6', {'remote_console': {'protocol': 'mks', 'type': 'webmks'}}),
                          ('2.8', {'remote_console': {'protocol': 'mks', 'type': 'webmks'}}),
                          # [spice] enabled is off here.
                          ('2.6', {'remote_console': {'protocol': 'spice',
                                                      'type': 'spice-html5'}}),
                          ('2.99', {'remote_console': {'protocol': 'spice',
                                                       'type': 'spice-direct'}}),
                          ('2.6', {'remote_console': {'protocol': 'vnc', 'type': 'serial'}}),
                          ('2.6', {'remote_console': {'protocol': 'vnc'}})):
        status, _h, resp = cloud.request('POST', path, body, version=version)
        assert status == 400, (body, resp)
    status, _h, _b = cloud.request('POST', path, {'remote_console': {
        'protocol': 'vnc', 'type': 'novnc'}}, version='2.5')
    assert status == 404
    status, _h, _b = cloud.request('POST', '/servers/%s/remote-consoles' % (
        '0' * 8 + '-0000-0000-0000-' + '0' * 12), {'remote_console': {
            'protocol': 'vnc', 'type': 'novnc'}}, version='2.6')
    assert status == 404


def _token(url):
    return url.split('token%3D')[-1].split('token=')[-1]


def test_console_auth_tokens(cloud, server):
    url = remote_console(cloud, server, 'serial', 'serial')
    token = _token(url)
    status, _h, body = cloud.request('GET', '/os-console-auth-tokens/' + token,
                                     version='2.31', token=ADMIN)
    assert status == 200, body
    console = body['console']
    assert console['instance_uuid'] == server
    assert console['host'] == '127.0.0.1' and 24000 <= console['port'] <= 24999
    assert console['internal_access_path'] is None
    # tls_port is for spice-direct tokens only (2.99), as upstream.
    assert 'tls_port' not in cloud.request('GET', '/os-console-auth-tokens/' + token,
                                           version='2.99', token=ADMIN)[2]['console']
    # Only rdp-html5 tokens before 2.31; only administrators; unknown -> 404.
    assert cloud.request('GET', '/os-console-auth-tokens/' + token, version='2.30',
                         token=ADMIN)[0] == 401
    assert cloud.request('GET', '/os-console-auth-tokens/' + token, version='2.31')[0] == 403
    assert cloud.request('GET', '/os-console-auth-tokens/bad' + token, version='2.31',
                         token=ADMIN)[0] == 404


def test_bad_wrong_and_expired_tokens_are_refused(cloud, server):
    url = remote_console(cloud, server, 'serial', 'serial')
    token = _token(url)
    ws = WebSocketClient(url.replace('token=', 'token=bad'))
    assert ws.status == 403
    ws.close()
    # A serial token does not open the VNC proxy.
    vnc = cloud.conf.vnc.novncproxy_base_url + '?path=%3Ftoken%3D' + token
    ws = WebSocketClient(vnc)
    assert ws.status == 403
    ws.close()
    # An expired token: the same connection details, a lifetime of 0 seconds.
    row = tokens.validate(cloud.db, token)
    expired, expired_url = tokens.issue(cloud.db, 0, server, 'serial', row,
                                        cloud.conf.serial_console.base_url)
    ws = WebSocketClient(expired_url)
    assert ws.status == 403
    ws.close()
    assert cloud.request('GET', '/os-console-auth-tokens/' + expired, version='2.31',
                         token=ADMIN)[0] == 404
    # The good one still works.
    assert b'still' in serial_echo(url, b'still')


def _serial_port(sid):
    conn = libvirt.open(fx.QEMU_URI)
    try:
        xml = conn.lookupByUUIDString(sid).XMLDesc(0)
    finally:
        conn.close()
    from nova.virt.libvirt import consoles
    return consoles.serial_tcp_endpoints(xml)


def test_consoles_of_a_rescued_guest(cloud, server):
    before = _serial_port(server)
    assert len(before) == 1
    status, _h, body = cloud.request('POST', '/servers/%s/action' % server, {
        'rescue': {'rescue_image_ref': cloud.rescue_image}}, version='2.87')
    assert status == 200, body
    cloud.wait_for_status(server, ['RESCUE'])
    wait_output(cloud, server, 'RESCUE-GUEST')
    assert _serial_port(server) == before
    assert b'rescued' in serial_echo(remote_console(cloud, server, 'serial', 'serial'),
                                     b'rescued')
    rfb_handshake(remote_console(cloud, server, 'vnc', 'novnc'))
    assert cloud.request('POST', '/servers/%s/action' % server, {'unrescue': None})[0] == 202
    cloud.wait_for_status(server, ['ACTIVE'])
    assert _serial_port(server) == before


def test_change_password_needs_the_guest_agent(cloud, server):
    path = '/servers/%s/action' % server
    # No hw_qemu_guest_agent on the image: no agent channel, 409 as upstream.
    assert 'org.qemu.guest_agent.0' not in fx.live_xml(server)
    status, _h, body = cloud.request('POST', path, {'changePassword': {'adminPass': 'x1'}})
    assert status == 409, body
    assert 'agent' in body['conflictingRequest']['message']
    assert cloud.wait_for_status(server, ['ACTIVE'])['OS-EXT-STS:task_state'] is None
    assert cloud.request('POST', path, {'changePassword': {}})[0] == 400
    # The image asks for the agent: the channel is there, but nothing in this
    # guest answers on it -> 501, and the server is usable again.
    image = cloud.upload_image(write_echo_image(str(cloud.conf.state_path + '/agent.img'),
                                                'AGENT-GUEST\r\n'),
                               name='agent', hw_qemu_guest_agent='yes')
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'agent', 'flavorRef': '1', 'imageRef': image, 'networks': 'none'}},
        version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    assert "name='org.qemu.guest_agent.0'" in fx.live_xml(sid)
    # The compute host waits [libvirt] agent_connect_timeout for an agent
    # that may still be booting, then gives upstream's answer.
    cloud.conf.set_override('agent_connect_timeout', 2, group='libvirt')
    try:
        started = time.monotonic()
        status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                         {'changePassword': {'adminPass': 'x1'}})
        waited = time.monotonic() - started
    finally:
        cloud.conf.clear_override('agent_connect_timeout', group='libvirt')
    assert status == 501, body
    assert waited >= 2, waited
    assert cloud.wait_for_status(sid, ['ACTIVE'])['OS-EXT-STS:task_state'] is None
    # Deleting a server revokes its console tokens.
    url = remote_console(cloud, sid, 'serial', 'serial')
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
    ws = WebSocketClient(url)
    assert ws.status == 403
    ws.close()


def test_server_password_show_and_clear(cloud, server):
    path = '/servers/%s/os-server-password' % server
    status, _h, body = cloud.request('GET', path)
    assert status == 200 and body == {'password': ''}, body
    assert cloud.request('DELETE', path)[0] == 204


def test_tempest_websocket_client_against_the_novnc_proxy(cloud, server):
    """tempest's own websocket client and checks (test_novnc), not ours."""
    compute = pytest.importorskip('tempest.common.compute')
    url = remote_console(cloud, server, 'vnc', 'novnc')
    check = compute.NoVNCValidateMixin('validate_novnc_html')
    check.validate_novnc_html(url)
    check.websocket = compute.create_websocket(url)
    try:
        check.validate_websocket_upgrade()
        check.validate_rfb_negotiation()
    finally:
        check.websocket.close()
    bad = compute.create_websocket(url.replace('token%3D', 'token%3Dbad'))
    try:
        data = bad.receive_frame()
        assert data is None or not data
    finally:
        bad.close()


def test_responses_match_tempest_schemas(cloud, server):
    jsonschema = pytest.importorskip('jsonschema')
    from tempest.lib.api_schema.response.compute.v2_1 import servers as v2_1
    from tempest.lib.api_schema.response.compute.v2_6 import servers as v2_6
    from tempest.lib.api_schema.response.compute.v2_99 import servers as v2_99

    def check(schema, status, body):
        assert status in schema['status_code']
        jsonschema.validate(body, schema['response_body'])
    for protocol, type_ in (('vnc', 'novnc'), ('serial', 'serial')):
        status, _h, body = cloud.request('POST', '/servers/%s/remote-consoles' % server, {
            'remote_console': {'protocol': protocol, 'type': type_}}, version='2.6')
        check(v2_6.get_remote_consoles, status, body)
        status, _h, body = cloud.request('POST', '/servers/%s/remote-consoles' % server, {
            'remote_console': {'protocol': protocol, 'type': type_}}, version='2.99')
        check(v2_99.get_remote_consoles, status, body)
    status, _h, body = cloud.request('POST', '/servers/%s/action' % server,
                                     {'os-getVNCConsole': {'type': 'novnc'}})
    check(v2_1.get_vnc_console, status, body)
    token = _token(body['console']['url'])
    status, _h, body = cloud.request('GET', '/os-console-auth-tokens/' + token,
                                     version='2.99', token=ADMIN)
    check(v2_99.console_auth_tokens, status, body)


@pytest.fixture(scope='module')
def public_image(cloud, tmp_path_factory):
    path = tmp_path_factory.mktemp('public') / 'echo.img'
    return cloud.upload_image(write_echo_image(str(path), 'ECHO-GUEST\r\n'), token=ADMIN,
                              visibility='public')


def _boot_as(cloud, token, name, image):
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': name, 'flavorRef': '1', 'imageRef': image, 'networks': 'none'}},
        version='2.37', token=token)
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'], token=token)
    return sid


def _refused(url):
    ws = WebSocketClient(url)
    try:
        return ws.status == 403
    finally:
        ws.close()


def test_a_console_token_ends_with_its_console(cloud, public_image):
    """A stopped guest's VNC port goes to the next guest: its tokens open nothing."""
    from nova.virt.libvirt import consoles
    alice, bob = 'ua:pa', 'ub:pb'
    mine = _boot_as(cloud, alice, 'alice', public_image)
    url = remote_console(cloud, mine, 'vnc', 'novnc', token=alice)
    token = _token(url)
    row = dict(tokens.validate(cloud.db, token))
    rfb_handshake(url)
    assert cloud.request('POST', '/servers/%s/action' % mine, {'os-stop': None},
                         token=alice)[0] == 202
    cloud.wait_for_status(mine, ['SHUTOFF'], token=alice)
    # Destroyed with the stop.
    assert _refused(url)
    assert cloud.request('GET', '/os-console-auth-tokens/' + token, version='2.31',
                         token=ADMIN)[0] == 404
    # A token kept past the stop (the same details, as if never revoked): the
    # proxy asks alice's host, which has no console for her any more.
    kept, kept_url = tokens.issue(cloud.db, 600, mine, 'novnc', row,
                                  cloud.conf.vnc.novncproxy_base_url)
    theirs = _boot_as(cloud, bob, 'bob', public_image)
    # libvirt usually hands bob's guest alice's old port; refused either way.
    reused = consoles.vnc_port(fx.live_xml(theirs)) == row['port']
    assert _refused(kept_url), reused
    with pytest.raises(exception.InvalidToken):
        tokens.validate(cloud.db, kept)
    _kept, kept_url = tokens.issue(cloud.db, 600, mine, 'novnc', row,
                                   cloud.conf.vnc.novncproxy_base_url)
    status, _h, _b = cloud.request('GET', '/os-console-auth-tokens/' + _kept,
                                   version='2.31', token=ADMIN)
    assert status == 404
    # Bob's own console works.
    rfb_handshake(remote_console(cloud, theirs, 'vnc', 'novnc', token=bob))
    for sid in (mine, theirs):
        cloud.request('DELETE', '/servers/' + sid, token=ADMIN)
    for sid in (mine, theirs):
        cloud.wait_for_status(sid, ['DELETED'], token=ADMIN)


@pytest.mark.parametrize('action,body,settled', [
    ('rescue', {'rescue': {}}, 'RESCUE'),
    ('reboot', {'reboot': {'type': 'HARD'}}, 'ACTIVE'),
])
def test_tokens_are_revoked_when_the_console_moves(cloud, public_image, action, body,
                                                  settled):
    sid = _boot_as(cloud, 'uc:pc', action, public_image)
    url = remote_console(cloud, sid, 'vnc', 'novnc', token='uc:pc')
    rfb_handshake(url)
    assert cloud.request('POST', '/servers/%s/action' % sid, body,
                         token='uc:pc')[0] in (200, 202)
    cloud.wait_for_status(sid, [settled], token='uc:pc')
    assert _refused(url)
    rfb_handshake(remote_console(cloud, sid, 'vnc', 'novnc', token='uc:pc'))
    cloud.request('DELETE', '/servers/' + sid, token=ADMIN)
    cloud.wait_for_status(sid, ['DELETED'], token=ADMIN)
