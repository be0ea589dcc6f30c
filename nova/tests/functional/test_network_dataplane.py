"""The embedded network's data plane, for real, inside network namespaces the tests create.

A veth "guest" in a namespace of its own gets its lease from dnsmasq,
reaches the host and the metadata address, and is reached through the
security groups (nftables); restarts reconcile, stops leave nothing.
"""

import http.server
import json
import os
import subprocess
import sys
import threading

import pytest
import webob

from nova import context as nova_context
from nova.embedded.network import app, binding, dataplane, firewall, netns, seed
from nova.tests.functional import netns_guest as ng

INSTANCE = '8a1f3ffb-1f1a-4a4e-9d5b-0d0f3e0f3a11'

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason='needs root for namespaces')


class Recorder:
    def __init__(self):
        self.events = []

    def notify(self, found):
        self.events.extend(found)


@pytest.fixture
def spaces():
    found = ng.Namespaces()
    yield found
    found.cleanup()


@pytest.fixture
def network(tmp_path):
    recorder = Recorder()
    api = app.make_app(str(tmp_path / 'network'), notifier=recorder)
    api.recorder = recorder
    api.default = seed.ensure(api, seed.DefaultNetworkSpec())
    yield api
    api.close()


def make_plane(api, namespace, tmp_path, **config):
    net, sub = api.default
    settings = dict(bridge='br-aio', namespace=namespace,
                    state_dir=str(tmp_path / 'network' / 'dataplane'),
                    run_dir=dataplane.run_dir_for('br-aio', namespace))
    settings.update(config)
    plane = dataplane.DataPlane(api.store, api.ports, net['id'], sub['id'],
                                dataplane.PlaneConfig(**settings))
    return plane


def start(api, plane):
    plane.start()
    api.ports.plane_managed = True
    api.changes.subscribe(plane.refresh)
    return plane


def call(api, method, path, body=None, project='admin'):
    """One API request as ``project`` (admin is an administrator), in-process."""
    req = webob.Request.blank(path, method=method,
                              **({'json': body} if body is not None else {}))
    ctx = nova_context.RequestContext(user_id=project, project_id=project)
    ctx.is_admin = project == 'admin'
    req.environ['nova.context'] = ctx
    resp = req.get_response(api)
    assert resp.status_int < 400, resp.text
    return resp.json if resp.body else None


def bound_port(api, project='p1'):
    """A server's port on the default network, bound as Nova binds it."""
    port = call(api, 'POST', '/v2.0/ports', {'port': {
        'network_id': api.default[0]['id'], 'device_id': INSTANCE}}, project)['port']
    call(api, 'PUT', '/v2.0/ports/' + port['id'], {'port': {
        'binding:host_id': 'compute-1', 'device_owner': 'compute:nova'}})
    return port


def plane_state(namespace, bridge='br-aio', run_dir=None):
    """What of the plane exists in the namespace: bridge, tables, dnsmasq, run dir."""
    ns = netns.NetworkNamespace(namespace)
    links = [link['ifname'] for link in ns.ip_json('link', 'show')]
    pids = ng.sh('ip', 'netns', 'pids', namespace).stdout.split()
    dnsmasq = [p for p in pids if 'dnsmasq' in ' '.join(netns.cmdline(int(p)))]
    return {'bridge': bridge in links, 'tables': firewall.present(ns, bridge),
            'dnsmasq': bool(dnsmasq),
            'run_dir': bool(run_dir) and os.path.exists(run_dir)}


NOTHING = {'bridge': False, 'tables': False, 'dnsmasq': False, 'run_dir': False}


def wait_status(api, port_id, status, plane):
    plane.sync()
    for _ in range(100):
        if api.store.get('ports', port_id)['status'] == status:
            return True
        plane.sync()
    return False


def test_guest_lease_host_metadata_and_security_groups(network, spaces, tmp_path):
    plane_ns, guest_ns = spaces.add('plane'), spaces.add('guest')
    plane = start(network, make_plane(network, plane_ns, tmp_path))
    try:
        port = bound_port(network)
        address = port['fixed_ips'][0]['ip_address']
        guest = ng.Guest(plane_ns, guest_ns, binding.devname(port['id']),
                         port['mac_address'], str(tmp_path)).plug()
        # The plane enslaves the tap and turns the port ACTIVE: Nova hears it.
        assert wait_status(network, port['id'], 'ACTIVE', plane)
        assert {'name': 'network-vif-plugged', 'server_uuid': INSTANCE, 'tag': port['id'],
                'status': 'completed'} in network.recorder.events
        tap = netns.NetworkNamespace(plane_ns).ip_json('link', 'show', 'dev', guest.tap)[0]
        assert tap['master'] == 'br-aio'

        lease = guest.dhcp()
        assert lease['ip'] == address and lease['router'] == '10.78.0.1'
        assert lease['mtu'] == '1500'
        assert lease['routes'] == '169.254.169.254/32 10.78.0.1 0.0.0.0/0 10.78.0.1'
        assert guest.ping('10.78.0.1')

        # Whatever serves the metadata API listens on the plane's socket.
        metadata = plane.metadata_socket()
        httpd = _serve_text(metadata, 'i-%s' % INSTANCE)
        try:
            assert guest.wget('http://169.254.169.254/latest/meta-data/instance-id') == \
                'i-%s' % INSTANCE
        finally:
            httpd.shutdown()
            metadata.close()

        listener = ng.TcpListener(guest_ns, 22)
        try:
            # The default group lets nothing in from the host.
            assert not ng.tcp_answers(plane_ns, address, 22)
            assert not _host_pings(plane_ns, address)
            group = port['security_groups'][0]
            rule = call(network, 'POST', '/v2.0/security-group-rules', {
                'security_group_rule': {'security_group_id': group, 'direction': 'ingress',
                                        'protocol': 'tcp', 'port_range_min': 22,
                                        'port_range_max': 22,
                                        'remote_ip_prefix': '0.0.0.0/0'}}, 'p1')
            plane.sync()
            assert ng.tcp_answers(plane_ns, address, 22)
            # Only that port: ping stays blocked.
            assert not _host_pings(plane_ns, address)
            call(network, 'DELETE', '/v2.0/security-group-rules/' +
                 rule['security_group_rule']['id'], project='p1')
            plane.sync()
            assert not ng.tcp_answers(plane_ns, address, 22)
        finally:
            listener.close()

        # A guest that lies about its address gets nowhere.
        ng.sh('ip', '-n', guest_ns, 'addr', 'flush', 'dev', 'eth0')
        ng.sh('ip', '-n', guest_ns, 'addr', 'add', '10.78.0.250/24', 'dev', 'eth0')
        assert not guest.ping('10.78.0.1')
    finally:
        plane.stop()
    assert plane_state(plane_ns, run_dir=plane.config.run_dir) == NOTHING
    assert not os.path.exists(os.path.dirname(plane.config.run_dir)) or \
        os.listdir(os.path.dirname(plane.config.run_dir))
    # The guest's tap is not the plane's to remove.
    assert guest.ifindex()


def _host_pings(namespace, address):
    return ng.sh('ip', 'netns', 'exec', namespace, ng.BUSYBOX, 'ping', '-c', '1', '-W', '1',
                 address, check=False).returncode == 0


def _serve_text(sock, text):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = text.encode()
            self.send_response(200)
            self.send_header('Content-Type', 'text/plain; charset=UTF-8')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass
    httpd = http.server.HTTPServer(sock.getsockname(), Handler, bind_and_activate=False)
    httpd.socket = sock
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def test_two_guests_talk_through_the_default_group(network, spaces, tmp_path):
    plane_ns = spaces.add('plane')
    plane = start(network, make_plane(network, plane_ns, tmp_path))
    try:
        guests = []
        for role in ('g1', 'g2'):
            port = bound_port(network)
            guest = ng.Guest(plane_ns, spaces.add(role), binding.devname(port['id']),
                             port['mac_address'], str(tmp_path)).plug()
            guest.port = port
            guests.append(guest)
        for guest in guests:
            assert wait_status(network, guest.port['id'], 'ACTIVE', plane)
            guest.dhcp()
        second = guests[1].port['fixed_ips'][0]['ip_address']
        # Same default group: members reach each other.
        assert guests[0].ping(second)
        # In another project's group, the first guest is a stranger.
        other = call(network, 'POST', '/v2.0/ports', {'port': {
            'network_id': network.default[0]['id']}}, 'p2')['port']
        stranger = ng.Guest(plane_ns, spaces.add('g3'), binding.devname(other['id']),
                            other['mac_address'], str(tmp_path)).plug()
        plane.sync()
        stranger.dhcp()
        assert not stranger.ping(second)
    finally:
        plane.stop()


def test_restart_reconciles_and_keeps_the_guest(network, spaces, tmp_path):
    plane_ns, guest_ns = spaces.add('plane'), spaces.add('guest')
    plane = start(network, make_plane(network, plane_ns, tmp_path))
    port = bound_port(network)
    guest = ng.Guest(plane_ns, guest_ns, binding.devname(port['id']), port['mac_address'],
                     str(tmp_path)).plug()
    assert wait_status(network, port['id'], 'ACTIVE', plane)
    lease = guest.dhcp()
    ns = netns.NetworkNamespace(plane_ns)
    bridge_index = ns.ip_json('link', 'show', 'dev', 'br-aio')[0]['ifindex']
    tap_index = guest.ifindex()
    dnsmasq_pid = plane._dhcp.pid()
    leases = open(plane._dhcp.leases_path).read()
    assert port['mac_address'] in leases

    # nova-aio killed: nothing stops the plane, a new process adopts it.
    plane._watcher.stop()
    again = start(network, make_plane(network, plane_ns, tmp_path))
    try:
        assert ns.ip_json('link', 'show', 'dev', 'br-aio')[0]['ifindex'] == bridge_index
        assert guest.ifindex() == tap_index
        assert again._dhcp.pid() == dnsmasq_pid
        assert guest.ping('10.78.0.1')
        assert open(again._dhcp.leases_path).read() == leases
    finally:
        again.stop()
    assert plane_state(plane_ns, run_dir=again.config.run_dir) == NOTHING
    assert guest.ifindex() == tap_index

    # A clean stop then a start: the bridge is new, the tap the same, re-enslaved,
    # and the guest keeps its address without asking again.
    third = start(network, make_plane(network, plane_ns, tmp_path))
    try:
        assert wait_status(network, port['id'], 'ACTIVE', third)
        assert ns.ip_json('link', 'show', 'dev', guest.tap)[0]['master'] == 'br-aio'
        assert guest.ping('10.78.0.1')
        assert guest.dhcp()['ip'] == lease['ip']
    finally:
        third.stop()


def test_port_down_then_removed_gives_its_address_back(network, spaces, tmp_path):
    plane_ns, guest_ns = spaces.add('plane'), spaces.add('guest')
    plane = start(network, make_plane(network, plane_ns, tmp_path))
    ns = netns.NetworkNamespace(plane_ns)
    try:
        port = bound_port(network)
        guest = ng.Guest(plane_ns, guest_ns, binding.devname(port['id']),
                         port['mac_address'], str(tmp_path)).plug()
        assert wait_status(network, port['id'], 'ACTIVE', plane)
        guest.dhcp()
        # admin_state_up false: the tap comes off the bridge and the port goes DOWN.
        call(network, 'PUT', '/v2.0/ports/' + port['id'],
             {'port': {'admin_state_up': False}}, 'p1')
        assert wait_status(network, port['id'], 'DOWN', plane)
        assert 'master' not in ns.ip_json('link', 'show', 'dev', guest.tap)[0]
        assert not guest.ping('10.78.0.1')
        call(network, 'PUT', '/v2.0/ports/' + port['id'],
             {'port': {'admin_state_up': True}}, 'p1')
        assert wait_status(network, port['id'], 'ACTIVE', plane)
        assert guest.ping('10.78.0.1')
        call(network, 'DELETE', '/v2.0/ports/' + port['id'], project='p1')
        plane.sync()
        assert port['mac_address'] not in open(plane._dhcp.leases_path).read()
        # Its tap no longer belongs on the bridge.
        assert 'master' not in netns.NetworkNamespace(plane_ns).ip_json(
            'link', 'show', 'dev', guest.tap)[0]
    finally:
        plane.stop()


def _uplink(namespace):
    """Another interface of the plane's namespace (a veth: this kernel has no dummy)."""
    ng.sh('ip', '-n', namespace, 'link', 'add', 'up0', 'type', 'veth', 'peer', 'name', 'up1')
    ng.sh('ip', '-n', namespace, 'link', 'set', 'up0', 'up')
    ng.sh('ip', '-n', namespace, 'link', 'set', 'up1', 'up')


@pytest.mark.parametrize('setup, message', [
    (lambda ns: ng.sh('ip', '-n', ns, 'link', 'add', 'br-aio', 'type', 'veth', 'peer', 'name',
                      'other'),
     '[aio] network_bridge br-aio is in use by another device (veth) in network '
     'namespace %s; choose another name'),
    (lambda ns: ng.sh('ip', '-n', ns, 'link', 'add', 'br-aio', 'type', 'bridge'),
     '[aio] network_bridge br-aio is in use by another device (bridge) in network '
     'namespace %s; choose another name'),
    (lambda ns: (_uplink(ns),
                 ng.sh('ip', '-n', ns, 'route', 'add', '10.78.0.0/16', 'dev', 'up0')),
     '[aio] network_cidr 10.78.0.0/24 overlaps the route 10.78.0.0/16 via up0 in network '
     'namespace %s; choose a free range'),
    (lambda ns: (_uplink(ns),
                 ng.sh('ip', '-n', ns, 'addr', 'add', '10.78.0.9/32', 'dev', 'up0')),
     '[aio] network_cidr 10.78.0.0/24 overlaps the address 10.78.0.9/32 of up0 in network '
     'namespace %s; choose a free range'),
])
def test_start_errors_are_one_line_and_leave_nothing(network, spaces, tmp_path, setup,
                                                     message):
    plane_ns = spaces.add('plane')
    setup(plane_ns)
    before = netns.NetworkNamespace(plane_ns).ip_json('link', 'show')
    plane = make_plane(network, plane_ns, tmp_path)
    with pytest.raises(netns.PlaneError) as exc:
        plane.start()
    assert str(exc.value) == message % plane_ns
    assert netns.NetworkNamespace(plane_ns).ip_json('link', 'show') == before
    state = plane_state(plane_ns, run_dir=plane.config.run_dir)
    assert not state['tables'] and not state['dnsmasq'] and not state['run_dir']


def test_failure_after_the_bridge_was_made_undoes_it(network, spaces, tmp_path):
    plane_ns = spaces.add('plane')
    blocker = tmp_path / 'not-a-directory'
    blocker.write_text('')
    plane = make_plane(network, plane_ns, tmp_path, run_dir=str(blocker / 'run'))
    with pytest.raises(netns.PlaneError) as exc:
        plane.start()
    assert str(exc.value).startswith('the data plane could not write its files:')
    assert plane_state(plane_ns) == NOTHING


def test_missing_namespace_and_missing_privileges(network, tmp_path):
    plane = make_plane(network, 'nova-t-absent', tmp_path)
    with pytest.raises(netns.PlaneError) as exc:
        plane.start()
    assert str(exc.value) == ('[aio] network_namespace nova-t-absent does not exist (create '
                              'it with "ip netns add nova-t-absent")')
    # Without CAP_NET_ADMIN (a child with no capabilities): the message says what to do.
    code = ('from nova.embedded.network import checks, netns\n'
            'try:\n    checks.require_privileges(netns.NetworkNamespace(None))\n'
            'except netns.PlaneError as exc:\n    print(exc)\n')
    proc = subprocess.run(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
                           '--inh-caps=-all', '--bounding-set=-all', sys.executable, '-c',
                           code], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=os.getcwd()), cwd=os.getcwd())
    assert proc.stdout.strip() == (
        'the embedded network data plane needs root or CAP_NET_ADMIN to create its '
        'bridge, DHCP server and firewall; run nova-aio as root, or set [aio] '
        'network_dataplane = false to run without guest networking'), proc.stderr


def test_metadata_elsewhere_is_forwarded(network, spaces, tmp_path):
    plane_ns, guest_ns = spaces.add('plane'), spaces.add('guest')
    plane = start(network, make_plane(network, plane_ns, tmp_path,
                                      metadata_address='10.78.0.1', metadata_port=8775))
    try:
        addresses = netns.NetworkNamespace(plane_ns).ip_json('-4', 'addr', 'show', 'dev',
                                                             'br-aio')[0]['addr_info']
        # The gateway serves metadata: 169.254.169.254 stays off the host.
        assert [a['local'] for a in addresses] == ['10.78.0.1']
        port = bound_port(network)
        guest = ng.Guest(plane_ns, guest_ns, binding.devname(port['id']),
                         port['mac_address'], str(tmp_path)).plug()
        assert wait_status(network, port['id'], 'ACTIVE', plane)
        guest.dhcp()
        metadata = plane.metadata_socket()
        assert metadata.getsockname() == ('10.78.0.1', 8775)
        httpd = _serve_text(metadata, json.dumps({'uuid': INSTANCE}))
        try:
            body = guest.wget('http://169.254.169.254/openstack/latest/meta_data.json')
            assert json.loads(body) == {'uuid': INSTANCE}
        finally:
            httpd.shutdown()
            metadata.close()
    finally:
        plane.stop()
