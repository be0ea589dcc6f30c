"""Live migration of real QEMU guests between two compute hosts on two libvirt daemons."""

import json
import os
import subprocess
import time

import libvirt
import pytest

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures
from nova.tests.functional.consoles_client import WebSocketClient, remote_console
from nova.virt.libvirt.consoles import serial_tcp_endpoints

ADMIN = 'admin:admin'
V = '2.80'
SCRIPT = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'tools',
                      'start-libvirtd-peer.sh')

pytestmark = [pytest.mark.libvirtd,
              pytest.mark.skipif(not fx.libvirtd_reachable(fx.QEMU_URI),
                                 reason='no libvirtd on qemu:///system')]


@pytest.fixture(scope='module')
def peer_uri():
    """The second libvirt daemon (tools/start-libvirtd-peer.sh); skip if it cannot start."""
    uri = subprocess.run([SCRIPT, 'uri'], capture_output=True, text=True,
                         check=True).stdout.strip()
    if os.geteuid() != 0:
        pytest.skip('the second libvirt daemon needs root (mount namespace)')
    started = not fx.libvirtd_reachable(uri)
    if started:
        proc = subprocess.run([SCRIPT, 'start'], capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.skip('the second libvirt daemon did not start: %s' % proc.stderr.strip())
    yield uri
    if started:
        subprocess.run([SCRIPT, 'stop'], capture_output=True)


@pytest.fixture(scope='module')
def aio(tmp_path_factory, peer_uri):
    tmp = tmp_path_factory.mktemp('livemigqemu')
    running = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI, extra={
        ('aio', 'extra_compute_hosts'): ['testhost2'],
        ('aio', 'extra_compute_host_uris'): {'testhost2': peer_uri},
        ('libvirt', 'live_migration_inbound_addr'): '127.0.0.1',
        ('serial_console', 'enabled'): True,
        ('serial_console', 'port_range'): '25000:25999'})
    running.peer_uri = peer_uri
    # The guest echoes what its serial console receives.
    running.image_id = running.upload_image(
        bootimg.write_boot_image(str(tmp / 'root.img'), 'LIVE-OK\r\n', ack_unplug=True))
    status, _h, body = running.request('POST', '/flavors', {'flavor': {
        'name': 'lmq', 'id': 'lmq', 'ram': 64, 'vcpus': 1, 'disk': 1}}, token=ADMIN)
    assert status == 200, body
    yield running
    running.stop()


@pytest.fixture
def server(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'lmq', 'imageRef': aio.image_id, 'flavorRef': 'lmq', 'networks': 'none',
        'availability_zone': 'nova:testhost'}}, version=V, token=ADMIN)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'], timeout=120, token=ADMIN)
    yield sid
    aio.request('DELETE', '/servers/' + sid, token=ADMIN)
    aio.wait_for_status(sid, ['DELETED'], timeout=120, token=ADMIN)


def domain_state(uri, sid):
    """libvirt state of the server's domain on the daemon at ``uri``; None if undefined."""
    conn = libvirt.open(uri)
    try:
        return conn.lookupByUUIDString(sid).state()[0]
    except libvirt.libvirtError:
        return None
    finally:
        conn.close()


def live(aio, sid, spec, version=V):
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid,
                                   {'os-migrateLive': spec}, version=version, token=ADMIN)
    return status, resp


def last_migration(aio, sid, statuses, timeout=120):
    deadline = time.monotonic() + timeout
    while True:
        status, _h, body = aio.request('GET', '/os-migrations?instance_uuid=' + sid,
                                       version=V, token=ADMIN)
        assert status == 200, body
        mig = body['migrations'][0]
        if mig['status'] in statuses:
            return mig
        assert time.monotonic() < deadline, mig
        time.sleep(0.2)


def show(aio, sid):
    return aio.request('GET', '/servers/' + sid, version=V, token=ADMIN)[2]['server']


def instance_dir(aio, host, sid):
    if host == 'testhost':
        return os.path.join(aio.conf.instances_path, sid)
    return os.path.join(aio.conf.state_path, 'hosts', host, 'instances', sid)


def test_guest_goes_to_the_other_daemon_and_back(aio, server):
    running = libvirt.VIR_DOMAIN_RUNNING
    assert domain_state(fx.QEMU_URI, server) == running
    code, resp = live(aio, server, {'host': 'testhost2', 'block_migration': 'auto'})
    assert code == 202, resp
    mig = last_migration(aio, server, ('completed', 'error'))
    assert mig['status'] == 'completed', mig
    assert (mig['source_compute'], mig['dest_compute']) == ('testhost', 'testhost2')
    body = show(aio, server)
    assert body['status'] == 'ACTIVE' and body['OS-EXT-SRV-ATTR:host'] == 'testhost2'
    assert body['OS-EXT-STS:task_state'] is None
    # It runs on the second daemon, is gone from the first, and so are its files.
    assert domain_state(aio.peer_uri, server) == running
    assert domain_state(fx.QEMU_URI, server) is None
    conn = libvirt.open(aio.peer_uri)
    try:
        xml = conn.lookupByUUIDString(server).XMLDesc(0)
    finally:
        conn.close()
    assert "file='%s/disk'" % instance_dir(aio, 'testhost2', server) in xml
    assert not os.path.exists(instance_dir(aio, 'testhost', server))
    assert os.path.exists(os.path.join(instance_dir(aio, 'testhost2', server), 'disk'))
    # The claim moved with it.
    assert aio.db.compute_node_get('testhost')['memory_mb_used'] == 0
    assert aio.db.compute_node_get('testhost2')['memory_mb_used'] == 64
    # And back, the host chosen by the scheduler, as a pre-2.34 request (waits for checks).
    code, resp = live(aio, server, {'host': None, 'block_migration': False,
                                    'disk_over_commit': False}, version='2.1')
    assert code == 202, resp
    mig = last_migration(aio, server, ('completed', 'error'))
    assert mig['status'] == 'completed', mig
    assert show(aio, server)['OS-EXT-SRV-ATTR:host'] == 'testhost'
    assert domain_state(fx.QEMU_URI, server) == running
    assert domain_state(aio.peer_uri, server) is None
    assert aio.db.compute_node_get('testhost2')['memory_mb_used'] == 0


def test_failed_migration_leaves_the_guest_running_on_the_source(aio, server):
    # The destination already has a directory for the instance: its preparation fails.
    stale = instance_dir(aio, 'testhost2', server)
    os.makedirs(stale)
    try:
        code, resp = live(aio, server, {'host': 'testhost2', 'block_migration': 'auto'})
        assert code == 202, resp
        mig = last_migration(aio, server, ('completed', 'error'))
    finally:
        os.rmdir(stale) if os.path.isdir(stale) else None
    assert mig['status'] == 'error', mig
    body = show(aio, server)
    assert body['status'] == 'ACTIVE' and body['OS-EXT-SRV-ATTR:host'] == 'testhost'
    assert body['OS-EXT-STS:task_state'] is None
    assert domain_state(fx.QEMU_URI, server) == libvirt.VIR_DOMAIN_RUNNING
    assert domain_state(aio.peer_uri, server) is None
    assert 'already exists' in aio.db.faults_latest([server])[server]['message']
    deadline = time.monotonic() + 15
    while aio.db.compute_node_get('testhost2')['memory_mb_used'] != 0:
        assert time.monotonic() < deadline, 'the destination kept its claim'
        time.sleep(0.1)


def running_migration(aio, sid, timeout=60):
    """The server's live migration once it runs, from GET /servers/{id}/migrations."""
    deadline = time.monotonic() + timeout
    while True:
        status, _h, body = aio.request('GET', '/servers/%s/migrations' % sid, version=V,
                                       token=ADMIN)
        assert status == 200, body
        if body['migrations'] and body['migrations'][0]['status'] == 'running':
            return body['migrations'][0]
        assert time.monotonic() < deadline, body
        time.sleep(0.1)


@pytest.fixture
def slow(aio):
    """1 MiB/s: a migration of the small guest takes about a minute unless stopped."""
    aio.conf.set_override('live_migration_bandwidth', 1, group='libvirt')
    yield
    aio.conf.clear_override('live_migration_bandwidth', group='libvirt')


def test_abort_stops_the_move_and_the_guest_stays(aio, server, slow):
    code, resp = live(aio, server, {'host': 'testhost2', 'block_migration': 'auto'})
    assert code == 202, resp
    mig = running_migration(aio, server)
    assert mig['server_uuid'] == server and mig['dest_compute'] == 'testhost2'
    path = '/servers/%s/migrations/%s' % (server, mig['id'])
    status, _h, body = aio.request('GET', path, version=V, token=ADMIN)
    assert status == 200 and body['migration']['id'] == mig['id'], body
    # Force complete needs 2.22, abort 2.24.
    status, _h, _b = aio.request('DELETE', path, version='2.23', token=ADMIN)
    assert status == 404
    status, _h, body = aio.request('DELETE', path, version='2.24', token=ADMIN)
    assert status == 202, body
    done = last_migration(aio, server, ('completed', 'error', 'cancelled'), timeout=30)
    assert done['status'] == 'cancelled', done
    body = show(aio, server)
    assert body['status'] == 'ACTIVE' and body['OS-EXT-SRV-ATTR:host'] == 'testhost'
    assert body['OS-EXT-STS:task_state'] is None
    assert domain_state(fx.QEMU_URI, server) == libvirt.VIR_DOMAIN_RUNNING
    assert domain_state(aio.peer_uri, server) is None
    deadline = time.monotonic() + 15
    while os.path.exists(instance_dir(aio, 'testhost2', server)) or \
            aio.db.compute_node_get('testhost2')['memory_mb_used'] != 0:
        assert time.monotonic() < deadline, 'the destination kept its files or claim'
        time.sleep(0.1)
    # Nothing under way any more: the list is empty, the abort a 404.
    status, _h, body = aio.request('GET', '/servers/%s/migrations' % server, version=V,
                                   token=ADMIN)
    assert body['migrations'] == []
    status, _h, body = aio.request('GET', path, version=V, token=ADMIN)
    assert status == 404, body
    status, _h, body = aio.request('DELETE', path, version='2.24', token=ADMIN)
    assert status == 409, body


def test_force_complete_ends_the_move_with_the_guest_running(aio, server, slow):
    code, resp = live(aio, server, {'host': 'testhost2', 'block_migration': 'auto'})
    assert code == 202, resp
    mig = running_migration(aio, server)
    path = '/servers/%s/migrations/%s/action' % (server, mig['id'])
    status, _h, body = aio.request('POST', path, {'force_complete': 'now'}, version='2.22',
                                   token=ADMIN)
    assert status == 400, body
    status, _h, body = aio.request('POST', path, {'force_complete': None}, version='2.22',
                                   token=ADMIN)
    assert status == 202, body
    # Well before the minute the capped transfer would take.
    done = last_migration(aio, server, ('completed', 'error', 'cancelled'), timeout=30)
    assert done['status'] == 'completed', done
    body = show(aio, server)
    assert body['status'] == 'ACTIVE' and body['OS-EXT-SRV-ATTR:host'] == 'testhost2'
    assert domain_state(aio.peer_uri, server) == libvirt.VIR_DOMAIN_RUNNING
    assert domain_state(fx.QEMU_URI, server) is None


def _volume(aio, path, body=None, method='GET'):
    status, _h, resp = aio.request(method, '/v3/admin/volumes' + path, body,
                                   url=aio.aio.urls['volume'], token=ADMIN)
    assert status in (200, 202), resp
    return resp['volume']


def _wait_volume(aio, vid, status, timeout=60):
    deadline = time.monotonic() + timeout
    while (volume := _volume(aio, '/' + vid))['status'] != status:
        assert time.monotonic() < deadline, volume
        time.sleep(0.1)
    return volume


def test_guest_with_a_volume_moves_with_its_attachment(aio, server):
    vid = _volume(aio, '', {'volume': {'size': 1}}, method='POST')['id']
    _wait_volume(aio, vid, 'available')
    status, _h, body = aio.request('POST', '/servers/%s/os-volume_attachments' % server,
                                   {'volumeAttachment': {'volumeId': vid}}, version=V,
                                   token=ADMIN)
    assert status == 200, body
    volume = _wait_volume(aio, vid, 'in-use')
    assert [a['host_name'] for a in volume['attachments']] == ['testhost']
    path = json.loads(next(b for b in aio.db.bdm_get_by_instance(server)
                           if b['volume_id'] == vid)['connection_info'])['data']['device_path']
    for host, uri in (('testhost2', aio.peer_uri), ('testhost', fx.QEMU_URI)):
        code, resp = live(aio, server, {'host': host, 'block_migration': 'auto'})
        assert code == 202, resp
        mig = last_migration(aio, server, ('completed', 'error'))
        assert mig['status'] == 'completed', mig
        assert show(aio, server)['OS-EXT-SRV-ATTR:host'] == host
        # The running guest there still has the volume's disk (not copied: shared),
        # and the volume is attached from that host only, with one attachment.
        conn = libvirt.open(uri)
        try:
            assert "file='%s'" % path in conn.lookupByUUIDString(server).XMLDesc(0)
        finally:
            conn.close()
        volume = _volume(aio, '/' + vid)
        assert volume['status'] == 'in-use'
        assert [a['host_name'] for a in volume['attachments']] == [host], volume
        [bdm] = [b for b in aio.db.bdm_get_by_instance(server) if b['volume_id'] == vid]
        assert bdm['attachment_id'] == volume['attachments'][0]['attachment_id']
    assert show(aio, server)['os-extended-volumes:volumes_attached'][0]['id'] == vid


def _serial_port(uri, sid):
    conn = libvirt.open(uri)
    try:
        xml = conn.lookupByUUIDString(sid).XMLDesc(0)
    finally:
        conn.close()
    return [port for _h, port in serial_tcp_endpoints(xml)]


def _serial_echo(aio, sid, payload=b'after-the-move'):
    ws = WebSocketClient(remote_console(aio, sid, 'serial', 'serial', token=ADMIN))
    try:
        assert ws.status == 101, ws.status_line
        ws.send(payload)
        got, deadline = b'', time.monotonic() + 30
        while payload not in got:
            assert time.monotonic() < deadline, got
            got += ws.recv_data()
    finally:
        ws.close()


def test_serial_console_gets_a_free_port_on_the_destination(aio, server):
    [before] = _serial_port(fx.QEMU_URI, server)
    # The guest echoes once it has booted (it clears the UART's buffers first).
    deadline = time.monotonic() + 30
    while 'LIVE-OK' not in aio.request('POST', '/servers/%s/action' % server,
                                       {'os-getConsoleOutput': {}}, token=ADMIN)[2]['output']:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    _serial_echo(aio, server, b'before-the-move')
    code, resp = live(aio, server, {'host': 'testhost2', 'block_migration': 'auto'})
    assert code == 202, resp
    mig = last_migration(aio, server, ('completed', 'error'))
    assert mig['status'] == 'completed', mig
    # Both QEMUs ran at once on this machine: the destination's port is another
    # one, and the console (proxy, token, new port) works there.
    [after] = _serial_port(aio.peer_uri, server)
    assert after != before and after == 25999   # from the top of the range
    _serial_echo(aio, server)
