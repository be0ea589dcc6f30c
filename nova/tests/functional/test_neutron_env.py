"""The real Neutron test environment end to end, without nova's networking code.

Needs tools/keystone.sh and tools/neutron.sh (skips, saying so, without them). Through
Neutron's API as a throwaway Keystone user: a network from the default subnet pool, a
router to the public network, security group rules; a port bound to a hypervisor chassis
and plugged with os-vif (tap created in the hypervisor namespace by its privsep daemon);
the SSH guest (nova/tests/fixtures/sshguest.py) defined with Nova-style interface XML on
that namespace's libvirtd. Stand-ins for nova's os-server-external-events and metadata
API answer on the root namespace's loopback, where those APIs live: Neutron's notifier
must deliver network-vif-plugged with a real Keystone token, and the OVN metadata agent
(through the relay into the hypervisor namespace) must sign its requests. The guest gets
its address from OVN's DHCP and its key from the metadata path, and is reached by SSH on
a floating IP from the public namespace. On the gateway chassis it then survives a soft
reboot and takes a hot-plugged second NIC. Everything is removed and checked gone. Each
phase's time is printed (pytest -s).
"""

import hashlib
import hmac
import http.server
import json
import os
import shutil
import threading
import time
import uuid

import pytest

from nova.tests.fixtures import kernelguest, sshguest
from nova.tests.functional import keystone, netns_guest, neutron_env

pytestmark = [pytest.mark.libvirtd, pytest.mark.neutron]

COMPUTE_PORT = 8774      # the catalog's compute endpoint: where Neutron sends events
NETWORK = {'service_type': 'network', 'interface': 'public'}
IDENTITY = {'service_type': 'identity', 'interface': 'public'}


class _Recorder(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port, handler):
        self.requests = []
        self.answers = {}
        super().__init__(('127.0.0.1', port), handler)


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _answer(self, status, body, ctype='application/json; charset=UTF-8'):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class EventsHandler(_Handler):
    """nova-api's POST /v2.1/os-server-external-events, answering as it does."""

    def do_POST(self):
        length = int(self.headers.get('Content-Length', 0))
        body = json.loads(self.rfile.read(length) or b'{}')
        self.server.requests.append((time.monotonic(), self.path, dict(self.headers), body))
        events = [dict(event, code=200, status=event.get('status', 'completed'))
                  for event in body.get('events', [])]
        self._answer(200, {'events': events})


class MetadataHandler(_Handler):
    """nova-api-metadata behind Neutron's proxy: EC2 paths, signed instance ids only."""

    def do_GET(self):
        self.server.requests.append((time.monotonic(), self.path, dict(self.headers)))
        instance = self.headers.get('X-Instance-ID', '')
        signature = self.headers.get('X-Instance-ID-Signature', '')
        expected = hmac.new(self.server.secret.encode(), instance.encode(),
                            hashlib.sha256).hexdigest()
        if not instance or not hmac.compare_digest(signature, expected):
            return self._answer(403, 'bad signature', 'text/plain; charset=UTF-8')
        answer = self.server.answers.get((instance, self.path))
        if answer is None:
            return self._answer(404, 'not found', 'text/plain; charset=UTF-8')
        self._answer(200, answer, 'text/plain; charset=UTF-8')


def _serve(port, handler, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        try:
            server = _Recorder(port, handler)
            break
        except OSError as exc:
            if time.monotonic() > deadline:
                pytest.skip('127.0.0.1:%d stays busy (%s): the stand-in must listen where '
                            'the real API would' % (port, exc))
            time.sleep(1)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _wait(what, predicate, timeout, interval=0.2, detail=None):
    return netns_guest.wait_for(what, predicate, timeout, interval, detail)


class Phases:
    """Wall-clock time of each phase, printed at the end."""

    def __init__(self):
        self.figures = []
        self._start = time.monotonic()

    def done(self, name):
        now = time.monotonic()
        self.figures.append((name, now - self._start))
        self._start = now

    def report(self):
        return ', '.join('%s %.2f s' % item for item in self.figures)


# Nova's interface for an os-vif-created tap (type ethernet, managed='no'), with the
# checksum offload the userspace datapath needs turned off.
INTERFACE_XML = """    <interface type='ethernet'>
      <mac address='%(mac)s'/>
      <model type='virtio'/>
      <driver name='qemu'><host csum='off'/></driver>
      <mtu size='%(mtu)d'/>
      <target dev='%(tap)s' managed='no'/>
    </interface>
"""

DOMAIN_XML = """<domain type='qemu'>
  <name>%(name)s</name>
  <uuid>%(uuid)s</uuid>
  <memory unit='MiB'>256</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type><boot dev='hd'/></os>
  <features><acpi/><apic/></features>
  <clock offset='utc'/>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw' cache='none'/>
      <source file='%(disk)s'/>
      <target dev='vda' bus='virtio'/>
    </disk>
%(interface)s    <serial type='file'>
      <source path='%(console)s' append='on'/>
      <target port='0'/>
    </serial>
  </devices>
</domain>
"""


def _tempest_remote_client(address, key, port, fixed_ip, subnet, instance_uuid):
    """What tempest's validation does in a guest, with tempest's own client and parsing
    (its defaults for ssh_shell_prologue and ssh_key_type); run inside the public
    namespace, where tempest runs."""
    import io

    from tempest.common.utils.linux import remote_client as common
    from tempest.lib.common.utils.linux import remote_client

    class Client(common.RemoteClient):
        # tempest's scenario client without its configuration: the library client's
        # constructor, the scenario client's methods.
        def __init__(self, *args, **kwargs):
            remote_client.RemoteClient.__init__(self, *args, **kwargs)

    pem = io.StringIO()
    key.write_private_key(pem)
    client = Client(address, 'root', pkey=pem.getvalue(), ssh_timeout=60,
                    connect_timeout=10, ssh_key_type='ecdsa',
                    ssh_shell_prologue='set -eu -o pipefail; PATH=$PATH:/sbin:/usr/sbin;')
    client.validate_authentication()
    assert client.list_disks() == ['vda']
    assert client.get_mac_address('eth0') == port['mac_address']
    assert client.get_nic_name_by_mac(port['mac_address']) == 'eth0'
    assert client.get_nic_name_by_ip(fixed_ip) == 'eth0'
    prefix = subnet['cidr'].split('/')[1]
    assert client.get_nic_ip_addresses('eth0', 4) == [fixed_ip + '/' + prefix]
    assert client.get_dns_servers()
    assert time.time() - time.mktime(client.get_boot_time()) < 3600
    client.write_to_console('hello from tempest')
    # udhcpc renews on SIGUSR1, found through /var/run/udhcpc.<nic>.pid.
    client.renew_lease(fixed_ip=fixed_ip, dhcp_client='udhcpc')
    client.ping_host(subnet['gateway_ip'])
    assert client.exec_command('curl -V').startswith('curl')
    assert client.exec_command(
        'curl http://169.254.169.254/latest/meta-data/instance-id') == instance_uuid


@pytest.fixture
def env():
    keystone.require_keystone()
    values = neutron_env.require_neutron()
    try:
        sshguest.check_cache()
    except kernelguest.KernelUnavailable as exc:
        pytest.skip(str(exc))
    return values


def _console(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return ''


@pytest.mark.parametrize('number', [1, 2], ids=['gateway-chassis', 'second-chassis'])
def test_port_guest_dhcp_metadata_events_floating_ip_ssh(env, tmp_path, number):
    """Everything on the gateway chassis; on the second chassis (whose floating IP
    traffic crosses the geneve underlay to the gateway) up to SSH."""
    import libvirt
    import paramiko

    phases = Phases()
    admin = keystone.admin_session()
    creds = keystone.make_credentials(admin, prefix='nova-neutron-env')
    user = creds.session()
    hv = neutron_env.hypervisor(env, number)
    hv_ns, pub_ns = hv['netns'], env['NOVA_NEUTRON_PUBLIC_NETNS']
    events = _serve(COMPUTE_PORT, EventsHandler)
    metadata = _serve(int(env['NOVA_NEUTRON_METADATA_PORT']), MetadataHandler)
    metadata.secret = env['NOVA_NEUTRON_METADATA_SECRET']
    disk = str(tmp_path / 'disk.img')
    shutil.copyfile(sshguest.cached_disk_image(), disk)
    key = paramiko.ECDSAKey.generate()
    instance_uuid = str(uuid.uuid4())
    tap = None
    created = {}
    conn = None
    dom = None
    phases.done('setup (user, stand-ins, image)')

    def net(method, path, **kwargs):
        session = kwargs.pop('session', user)
        return session.request('/v2.0' + path, method, endpoint_filter=NETWORK,
                               **kwargs).json() if method != 'DELETE' else \
            session.request('/v2.0' + path, method, endpoint_filter=NETWORK,
                            raise_exc=False, **kwargs)

    def bind(port):
        # What nova-compute's update does: host, owner (the admin client).
        return net('PUT', '/ports/' + port['id'], session=admin, json={'port': {
            'binding:host_id': hv['host'],
            'device_owner': 'compute:nova'}})['port']

    try:
        # --- Neutron resources, as a project member would make them.
        network = net('POST', '/networks', json={'network': {'name': 'env-net'}})['network']
        created['network'] = network['id']
        subnet = net('POST', '/subnets', json={'subnet': {
            'network_id': network['id'], 'ip_version': 4, 'prefixlen': 28,
            'subnetpool_id': env['NOVA_NEUTRON_SUBNETPOOL_ID'], 'name': 'env-subnet'}})['subnet']
        router = net('POST', '/routers', json={'router': {
            'name': 'env-router', 'external_gateway_info': {
                'network_id': env['NOVA_NEUTRON_PUBLIC_NETWORK_ID']}}})['router']
        created['router'] = router['id']
        net('PUT', '/routers/%s/add_router_interface' % router['id'],
            json={'subnet_id': subnet['id']})
        created['router_interface'] = subnet['id']
        groups = net('GET', '/security-groups?project_id=%s&name=default'
                     % creds.project_id)['security_groups']
        for rule in ({'protocol': 'icmp'}, {'protocol': 'tcp', 'port_range_min': 22,
                                              'port_range_max': 22}):
            net('POST', '/security-group-rules', json={'security_group_rule': dict(
                rule, direction='ingress', ethertype='IPv4',
                security_group_id=groups[0]['id'])})
        phases.done('network, subnet from the default pool, router, rules')

        # --- The port, bound to the chassis the way nova-compute binds it.
        port = net('POST', '/ports', json={'port': {
            'network_id': network['id'], 'device_id': instance_uuid,
            'admin_state_up': True}})['port']
        created['port'] = port['id']
        port = bind(port)
        details = port['binding:vif_details']
        assert port['binding:vif_type'] == 'ovs', port
        assert details['datapath_type'] == 'netdev'
        assert details['bridge_name'] == 'br-int'
        assert details['ovs_create_tap'] is True
        fixed_ip = port['fixed_ips'][0]['ip_address']
        mtu = network['mtu']
        tap = ('tap' + port['id'])[:14]
        phases.done('port created and bound')

        spec = dict(port_id=port['id'], mac=port['mac_address'], tap=tap,
                    network_id=network['id'], mtu=mtu, instance_uuid=instance_uuid,
                    project_id=creds.project_id, vif_details=details)
        neutron_env.osvif(env, hv, 'plug', **spec)
        assert tap in neutron_env.ip(hv_ns, '-o', 'link', 'show', 'dev', tap)
        assert tap not in neutron_env.ip_root_links()
        assert neutron_env.vsctl(hv, 'get', 'Interface', tap,
                                 'external_ids:iface-id').strip().strip('"') == port['id']
        phases.done('os-vif plug (tap in %s)' % hv_ns)

        metadata.answers.update({
            (instance_uuid, '/latest/meta-data/instance-id'): instance_uuid,
            (instance_uuid, '/latest/meta-data/hostname'): 'env-guest.compat.test',
            (instance_uuid, '/latest/meta-data/public-keys/0/openssh-key'):
                '%s %s nova-test' % (key.get_name(), key.get_base64()),
        })
        console = str(tmp_path / 'console.log')
        conn = libvirt.open(hv['libvirt_uri'])
        dom = conn.defineXML(DOMAIN_XML % {
            'name': 'neutron-env-' + instance_uuid[:8], 'uuid': instance_uuid, 'disk': disk,
            'console': console, 'interface': INTERFACE_XML % {
                'mac': port['mac_address'], 'mtu': mtu, 'tap': tap}})
        dom.create()
        phases.done('domain defined and started')

        # Neutron batches events (other users' too, when they share the stack).
        plugged = _wait('network-vif-plugged', lambda: [
            (when, headers) for when, path, headers, body in events.requests
            for event in body.get('events', [])
            if {'name': 'network-vif-plugged', 'server_uuid': instance_uuid,
                'tag': port['id'], 'status': 'completed'}.items() <= event.items()], 60)
        when, headers = plugged[0]
        assert events.requests[0][1] == '/v2.1/os-server-external-events'
        # A real token of the neutron service user, as nova-api would validate it.
        token = admin.get('/auth/tokens', endpoint_filter=IDENTITY,
                          headers={'X-Subject-Token': headers['X-Auth-Token']}).json()['token']
        assert token['user']['name'] == env['NOVA_NEUTRON_SERVICE_USER']
        assert 'service' in {role['name'] for role in token['roles']}
        assert net('GET', '/ports/' + port['id'])['port']['status'] == 'ACTIVE'
        phases.done('network-vif-plugged received, port ACTIVE')

        _wait('a DHCP lease for %s' % fixed_ip,
              lambda: 'eth0 bound %s/' % fixed_ip in _console(console), 120)
        phases.done('guest has its DHCP lease')
        # (Guests of others sharing the stack may ask this stand-in too.)
        mine = _wait('the key read through the metadata proxy', lambda: [
            headers for _when, path, headers in metadata.requests
            if headers.get('X-Instance-ID') == instance_uuid
            and path.endswith('/openssh-key')], 60)
        assert mine[0]['X-Tenant-ID'] == creds.project_id
        assert mine[0]['X-Forwarded-For'] == fixed_ip
        phases.done('metadata read (signed, via the relay)')

        fip = net('POST', '/floatingips', json={'floatingip': {
            'floating_network_id': env['NOVA_NEUTRON_PUBLIC_NETWORK_ID'],
            'port_id': port['id']}})['floatingip']
        created['floatingip'] = fip['id']
        address = fip['floating_ip_address']

        def ssh():
            try:
                sock = neutron_env.connect(pub_ns, address, 22, timeout=3)
            except OSError:
                return None
            client = paramiko.SSHClient()
            client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
            try:
                client.connect(address, 22, username='root', pkey=key, sock=sock,
                               look_for_keys=False, allow_agent=False, timeout=10,
                               banner_timeout=10, auth_timeout=10)
            except (paramiko.SSHException, OSError):
                client.close()
                return None
            return client
        client = _wait('SSH to %s from %s' % (address, pub_ns), ssh, 90, interval=0.5)
        phases.done('floating IP %s answers SSH' % address)
        try:
            def run(command):
                _in, out, _err = client.exec_command(command, timeout=30)
                return out.read().decode()
            assert run('hostname').strip() == 'env-guest'
            assert fixed_ip in run('ip -4 -o addr')
            assert 'mtu %d' % mtu in run('ip link show eth0')
            assert 'vda' in run('lsblk -lb --nodeps')
            assert run('sudo sh -c "echo ok"').strip() == 'ok'
            # tempest's snapshot scenarios write here and read it back later.
            run('sudo sh -c "echo %s > /tmp/stamp; sync"' % instance_uuid)
        finally:
            client.close()
        phases.done('commands over SSH')
        neutron_env.in_netns(pub_ns, _tempest_remote_client, address, key, port, fixed_ip,
                             subnet, instance_uuid)
        phases.done("tempest's remote client")

        if number == 1:
            # A soft reboot as nova's libvirt driver does it: ACPI power button, wait for the
            # guest to power off, start it again; the tap (os-vif's) stays plugged.
            dom.shutdown()
            _wait('the guest to power off', lambda: not dom.isActive(), 60)
            boots = _console(console).count(sshguest.READY_MARKER)
            dom.create()
            _wait('the guest to boot again', lambda: _console(console).count(
                sshguest.READY_MARKER) > boots, 120)
            client = _wait('SSH after the reboot', ssh, 60, interval=0.5)
            try:
                _in, out, _err = client.exec_command('cat /tmp/stamp', timeout=30)
                assert out.read().decode().strip() == instance_uuid
            finally:
                client.close()
            phases.done('ACPI shutdown, start, SSH again, /tmp kept')

            # A NIC hot-plugged into the running guest, as tempest's network_basic_ops does:
            # a second network without a router. The guest takes a lease on eth1 and keeps
            # its default route on eth0 (SSH on the floating IP still works).
            network2 = net('POST', '/networks', json={'network': {'name': 'env-net2'}})['network']
            created['network2'] = network2['id']
            net('POST', '/subnets', json={'subnet': {
                'network_id': network2['id'], 'ip_version': 4, 'prefixlen': 28,
                'subnetpool_id': env['NOVA_NEUTRON_SUBNETPOOL_ID'], 'name': 'env-subnet2'}})
            port2 = bind(net('POST', '/ports', json={'port': {
                'network_id': network2['id'], 'device_id': instance_uuid}})['port'])
            created['port2'] = port2['id']
            tap2 = ('tap' + port2['id'])[:14]
            spec2 = dict(spec, port_id=port2['id'], mac=port2['mac_address'], tap=tap2,
                         network_id=network2['id'], mtu=network2['mtu'])
            neutron_env.osvif(env, hv, 'plug', **spec2)
            created['tap2'] = spec2
            fixed_ip2 = port2['fixed_ips'][0]['ip_address']
            dom.attachDeviceFlags(INTERFACE_XML % {
                'mac': port2['mac_address'], 'mtu': network2['mtu'], 'tap': tap2},
                libvirt.VIR_DOMAIN_AFFECT_LIVE)
            # udhcpc retries for minutes; OVN answers once ovn-controller has claimed the
            # port, which a busy 2-core host can take well over a minute to do.
            _wait('a lease on the hot-plugged NIC', lambda: 'eth1 bound %s/' % fixed_ip2
                  in _console(console), 180, detail=lambda: 'port %s; console tail:\n%s' % (
                      net('GET', '/ports/%s' % port2['id'])['port']['status'],
                      _console(console)[-2000:]))
            client = _wait('SSH with two NICs', ssh, 60, interval=0.5)
            try:
                _in, out, _err = client.exec_command('ip -4 -o addr; ip route', timeout=30)
                text = out.read().decode()
            finally:
                client.close()
            assert fixed_ip2 in text and 'default via' in text
            assert [line for line in text.splitlines()
                    if line.startswith('default') and 'dev eth0' in line], text
            phases.done('NIC hot-plugged, lease on eth1, SSH still on eth0')
        # tempest runs in the public namespace: the APIs it calls answer there.
        status, _body = neutron_env.http_get(pub_ns, '127.0.0.1', 5000, '/v3')
        assert status == 200
        phases.done('Keystone through the public relay')
    finally:
        # --- Teardown, then nothing may be left.
        if dom is not None:
            try:
                dom.destroy()
            except libvirt.libvirtError:
                pass
            dom.undefine()
        if tap is not None:
            neutron_env.osvif(env, hv, 'unplug', **spec)
        if 'tap2' in created:
            neutron_env.osvif(env, hv, 'unplug', **created['tap2'])
        if 'port2' in created:
            net('DELETE', '/ports/' + created['port2'], session=admin)
        if 'network2' in created:
            net('DELETE', '/networks/' + created['network2'])
        if 'floatingip' in created:
            net('DELETE', '/floatingips/' + created['floatingip'])
        if 'port' in created:
            net('DELETE', '/ports/' + created['port'], session=admin)
        if 'router_interface' in created:
            net('PUT', '/routers/%s/remove_router_interface' % created['router'],
                json={'subnet_id': created['router_interface']})
        if 'router' in created:
            net('DELETE', '/routers/' + created['router'])
        if 'network' in created:
            net('DELETE', '/networks/' + created['network'])
        phases.done('teardown')
        metadata.shutdown()
    try:
        assert instance_uuid not in [d.UUIDString() for d in conn.listAllDomains()]
        conn.close()
        for name in (tap, created.get('tap2', {}).get('tap', tap)):
            assert name not in neutron_env.ip(hv_ns, '-o', 'link')
            assert name not in neutron_env.vsctl(hv, 'list-ports', 'br-int')
        ports = admin.get('/v2.0/ports?project_id=' + creds.project_id,
                          endpoint_filter=NETWORK).json()['ports']
        assert ports == []
        if number == 1:
            # The first chassis' agent keeps its namespaces in /run/netns (the second's
            # are private to its mount namespace).
            _wait('the metadata namespace of %s to go' % network['id'],
                  lambda: not os.path.exists('/run/netns/ovnmeta-' + network['id']), 30)
        _wait('network-vif-deleted', lambda: [
            event for _w, _p, _h, body in events.requests for event in body.get('events', [])
            if event['name'] == 'network-vif-deleted' and event['tag'] == port['id']], 30)
    finally:
        events.shutdown()
        keystone.delete_credentials(admin, creds)
    print('\nneutron env phases: ' + phases.report())
