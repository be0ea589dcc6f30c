"""A real guest on the all-in-one's own network, in a test-made namespace: DHCP, SSH, metadata.

The data plane (bridge, dnsmasq, nftables) and a libvirtd of its own
(tools/start-libvirtd-peer.sh) run in the namespace, so QEMU opens the
guest's tap there; nothing gets an address outside it. A server created
without ``networks`` gets a port on the default network, its tap made by
the driver with the binding's host-side MAC, and starts once the data
plane reported the port ACTIVE (network-vif-plugged). The guest takes its
lease, reads the os-keypairs key from the metadata service and answers
SSH from the namespace once the default group lets TCP 22 in; rescue and
unrescue keep its MAC and address. Delete leaves no port and no tap.
"""

import os
import uuid

import pytest

from nova.tests.fixtures import kernelguest, sshguest
from nova.tests.functional import fixtures, neutron_env
from nova.tests.functional import netns_guest as ng

pytestmark = [pytest.mark.libvirtd,
              pytest.mark.skipif(os.geteuid() != 0, reason='needs root for namespaces')]
# Its own daemon state (kept between runs: QEMU's capabilities are probed once).
LIBVIRT_ROOT = '/var/lib/nova-test-aio-net-libvirt'
V = '2.37'


def _peer(action, netns=None):
    try:
        return ng.libvirt_peer(action, LIBVIRT_ROOT, '6c1bd3a2-5f0e-4d36-9a8e-0e4f6a2b9c61',
                               '7300:7349', '7350:7399', netns)
    except ng.PeerUnavailable as exc:
        pytest.skip('no libvirtd in the test namespace: %s' % exc)


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    try:
        sshguest.check_cache()
    except kernelguest.KernelUnavailable as exc:
        pytest.skip(str(exc))
    spaces = ng.Namespaces()
    netns = spaces.add('aio')
    running = None
    try:
        uri = _peer('start', netns)
        tmp = tmp_path_factory.mktemp('aio-net')
        running = fixtures.RunningAio(tmp / 'state', connection_uri=uri, extra={
            ('aio', 'network_dataplane'): True, ('aio', 'network_namespace'): netns,
            ('libvirt', 'virt_type'): 'qemu'})
        running.netns = netns
        running.image = running.upload_image(sshguest.cached_disk_image(), name='ssh-guest')
        yield running
    finally:
        if running is not None:
            running.stop()
        _peer('stop')
        spaces.cleanup()


def _ports(cloud, server_id):
    status, _h, body = cloud.request('GET', '/v2.0/ports?device_id=' + server_id,
                                     url=cloud.network_url, token='admin:admin')
    assert status == 200, body
    return body['ports']


def test_server_on_the_default_network_answers_ssh_and_reads_metadata(cloud):
    import paramiko
    key = paramiko.ECDSAKey.generate()
    name = 'k-%s' % uuid.uuid4().hex[:8]
    status, _h, body = cloud.request('POST', '/os-keypairs', {'keypair': {
        'name': name, 'public_key': '%s %s nova-test' % (key.get_name(),
                                                         key.get_base64())}}, version=V)
    assert status in (200, 201), body
    # No "networks": upstream's behaviour below 2.37, the project's only network.
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'ssh-vm', 'imageRef': cloud.image, 'flavorRef': '1', 'key_name': name}},
        version='2.36')
    assert status == 202, body
    sid = body['server']['id']
    server = cloud.wait_for_status(sid, ('ACTIVE', 'ERROR'), timeout=180)
    assert server['status'] == 'ACTIVE', server
    (port,) = _ports(cloud, sid)
    assert port['status'] == 'ACTIVE'
    assert port['binding:host_id'] == 'testhost'
    assert port['device_owner'].startswith('compute:')
    address = port['fixed_ips'][0]['ip_address']
    cache = cloud.db.instance_get(sid)['network_info']
    assert [v['id'] for v in cache] == [port['id']]
    tap = cache[0]['devname']
    # The tap is in the namespace, with the binding's host-side MAC, on the bridge.
    link = neutron_env.ip(cloud.netns, '-o', 'link', 'show', 'dev', tap)
    assert 'master br-aio' in link
    assert port['binding:vif_details']['mac_address'] in link
    assert tap not in neutron_env.ip_root_links()
    xml = cloud.aio.services[1].manager.driver.host.get_guest(sid).get_xml_desc()
    assert "<target dev='%s' managed='no'/>" % tap in xml
    assert "<mac address='%s'/>" % port['mac_address'] in xml

    ng.wait_for('a DHCP lease for %s' % address,
                lambda: 'eth0 bound %s/' % address in ng.console_output(cloud, sid, V), 120)
    # The default group lets nothing in from the host: no SSH yet.
    assert ng.ssh_client(cloud.netns, address, key) is None
    status, _h, groups = cloud.request(
        'GET', '/v2.0/security-groups?name=default&project_id=demo',
        url=cloud.network_url, token='demo:demo')
    status, _h, body = cloud.request('POST', '/v2.0/security-group-rules', {
        'security_group_rule': {'security_group_id': groups['security_groups'][0]['id'],
                                'direction': 'ingress', 'protocol': 'tcp',
                                'port_range_min': 22, 'port_range_max': 22}},
        url=cloud.network_url, token='demo:demo')
    assert status == 201, body
    client = ng.wait_for('SSH to %s' % address,
                         lambda: ng.ssh_client(cloud.netns, address, key), 90)
    try:
        assert address in ng.ssh_run(client, 'ip -4 -o addr show eth0')
        assert port['mac_address'] in ng.ssh_run(client, 'cat /sys/class/net/eth0/address')
        meta = ng.ssh_run(client, 'wget -q -O - http://169.254.169.254/openstack/latest/'
                                  'meta_data.json')
        assert sid in meta and key.get_base64() in meta
        assert ng.ssh_run(client, 'wget -q -O - http://169.254.169.254/latest/meta-data/'
                                  'local-ipv4').strip() == address
        assert port['id'] in ng.ssh_run(
            client, 'wget -q -O - http://169.254.169.254/openstack/latest/network_data.json')
    finally:
        client.close()

    # Rescue and unrescue keep the NIC: same MAC, same PCI address, same lease.
    before = _interface_xml(cloud, sid)
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                     {'rescue': {'rescue_image_ref': cloud.image}}, version=V)
    assert status == 200, body
    cloud.wait_for_status(sid, ('RESCUE',), timeout=120)
    assert _interface_xml(cloud, sid) == before
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid, {'unrescue': None},
                                     version=V)
    assert status == 202, body
    cloud.wait_for_status(sid, ('ACTIVE',), timeout=120)
    assert _interface_xml(cloud, sid) == before
    client = ng.wait_for('SSH after unrescue',
                         lambda: ng.ssh_client(cloud.netns, address, key), 120)
    try:
        assert address in ng.ssh_run(client, 'ip -4 -o addr show eth0')
    finally:
        client.close()

    # A second NIC hot-plugged into the running guest (RPC 1.7), then taken out.
    vif2 = _rpc(cloud).attach_interface(_context(), _instance(cloud, sid), 'testhost',
                                        network_id=port['network_id'])
    ports = _ports(cloud, sid)
    assert {p['id'] for p in ports} == {port['id'], vif2['id']}
    address2 = [p for p in ports if p['id'] == vif2['id']][0]['fixed_ips'][0]['ip_address']
    assert [v['id'] for v in cloud.db.instance_get(sid)['network_info']] == [
        port['id'], vif2['id']]
    ng.wait_for('a lease on the hot-plugged NIC',
                lambda: 'eth1 bound %s/' % address2 in ng.console_output(cloud, sid, V), 90)
    assert len(_nics(cloud, sid, live=True)) == 2
    _rpc(cloud).detach_interface(_context(), _instance(cloud, sid), 'testhost', vif2['id'])
    ng.wait_for('the detach', lambda: [v['id'] for v in cloud.db.instance_get(sid)[
        'network_info']] == [port['id']], 60)
    assert [n.mac_addr for n in _nics(cloud, sid, live=True)] == [port['mac_address']]
    assert [p['id'] for p in _ports(cloud, sid)] == [port['id']]
    assert vif2['devname'] not in neutron_env.ip(cloud.netns, '-o', 'link')

    status, _h, _b = cloud.request('DELETE', '/servers/' + sid, version=V)
    assert status == 204
    ng.wait_for('the server to go', lambda: cloud.request('GET', '/servers/' + sid)[0] == 404, 60)
    assert _ports(cloud, sid) == []
    ng.wait_for('the tap to go', lambda: tap not in neutron_env.ip(cloud.netns, '-o', 'link'), 10)


def _rpc(cloud):
    from nova.compute import rpcapi
    return rpcapi.ComputeAPI(cloud.conf)


def _context():
    from nova import context as nova_context
    return nova_context.RequestContext(user_id='demo', project_id='demo',
                                       auth_token='demo:demo')


def _instance(cloud, sid):
    from nova.objects import instance as instance_obj
    return instance_obj.Instance.from_db(cloud.db.instance_get(sid))


def _nics(cloud, sid, live=False):
    from nova.virt.libvirt import config as vconfig
    guest = cloud.aio.services[1].manager.driver.host.get_guest(sid)
    return vconfig.GuestDomain.from_xml(guest.get_xml_desc(inactive=not live)).get_devices(
        vconfig.GuestInterface)


def _interface_xml(cloud, sid):
    """(MAC, PCI address, tap) of the guest's NIC in its persistent definition."""
    from nova.virt.libvirt import config as vconfig
    guest = cloud.aio.services[1].manager.driver.host.get_guest(sid)
    (nic,) = vconfig.GuestDomain.from_xml(guest.get_xml_desc(inactive=True)).get_devices(
        vconfig.GuestInterface)
    return nic.mac_addr, nic.address.format_dom().attrib, nic.target_dev
