"""A server on a real Neutron (ML2/OVN, tools/neutron.sh): ports, os-vif, events, SSH, no leftover.

The all-in-one runs in keystone mode with its compute host named for the
first chassis and its libvirtd the hypervisor namespace's, configured for
Neutron as nova-neutron.conf says (os-vif's ovsdb and privsep helper
there). A project member makes a network, router and SSH rule; a server
created through the compute API gets its port created in the project and
bound to the chassis, the tap made by os-vif in the hypervisor namespace,
starts paused until Neutron's network-vif-plugged (a real Keystone token)
reaches the compute API, takes its lease from OVN's DHCP, reads its key
through the metadata proxy and answers SSH on a floating IP from the
public namespace; a port hot-plugged with a tag is in its metadata at the PCI
address where it finds the NIC. A full port quota is refused before the 202; a subnet
with no address left fails a build: ERROR with a fault, no port. Deletes
leave no port in Neutron.
"""

import json

import pytest

from nova.tests.functional import netns_guest, neutron_env, neutron_stack

pytestmark = [pytest.mark.libvirtd, pytest.mark.neutron]
NETWORK = neutron_stack.NETWORK


_wait = netns_guest.wait_for


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    with neutron_stack.guest_stack(tmp_path_factory.mktemp('neutron-guest'),
                                   'nova-neutron-guest') as running:
        yield running


_net = neutron_stack.net
_project_ports = neutron_stack.project_ports


def _ssh(netns, address, key):
    import paramiko
    try:
        sock = neutron_env.connect(netns, address, 22, timeout=3)
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


def _delete(stack, sid):
    status, _h, _b = stack.request('DELETE', '/servers/' + sid, token=stack.creds.token)
    assert status == 204
    _wait('server %s to go' % sid, lambda: stack.request(
        'GET', '/servers/' + sid, token=stack.creds.token)[0] == 404, 90)


def _guest_says(client, command):
    _in, out, _err = client.exec_command(command, timeout=30)
    return out.read().decode()


def _tagged_nics(client):
    """The NICs of meta_data.json, as the guest reads it through the metadata proxy."""
    text = _guest_says(client, 'wget -q -O - http://169.254.169.254/openstack/latest/'
                               'meta_data.json')
    return [d for d in json.loads(text or '{}').get('devices', ()) if d['type'] == 'nic']


def _tagged_hot_plug(stack, sid, network, client):
    """Device-role tagging: a port hot-plugged with a tag (2.49) is in the guest's
    metadata at the PCI address where the guest finds a NIC with its MAC; detached,
    it is gone."""
    token = stack.creds.token
    status, _h, body = stack.request('POST', '/servers/%s/os-interface' % sid, {
        'interfaceAttachment': {'net_id': network['id'], 'tag': 'hot'}}, version='2.49',
        token=token)
    assert status == 200, body
    hot = body['interfaceAttachment']
    (nic,) = _wait('the tagged NIC in the metadata', lambda: _tagged_nics(client), 60)
    assert nic['tags'] == ['hot'] and nic['mac'] == hot['mac_addr'], nic
    assert nic['bus'] == 'pci' and nic['vf_trusted'] is False, nic
    # A virtio NIC's netdev sits below its virtio device.
    seen = _wait('the guest to find the NIC at %s' % nic['address'], lambda: _guest_says(
        client, 'cat /sys/bus/pci/devices/%s/virtio*/net/*/address' % nic['address']
    ).strip(), 60)
    assert seen == hot['mac_addr']
    status, _h, _b = stack.request('DELETE', '/servers/%s/os-interface/%s' % (
        sid, hot['port_id']), token=token)
    assert status == 202
    _wait('the NIC to leave the metadata', lambda: _tagged_nics(client) == [], 60)


def test_server_gets_a_bound_port_dhcp_metadata_ssh_and_leaves_nothing(stack):
    import paramiko
    env, hv, token = stack.env, stack.hv, stack.creds.token
    network = _net(stack, 'POST', '/networks', json={'network': {'name': 'guest-net'}})[
        'network']
    stack.created.append(('networks', network['id']))
    subnet = _net(stack, 'POST', '/subnets', json={'subnet': {
        'network_id': network['id'], 'ip_version': 4, 'prefixlen': 28,
        'subnetpool_id': env['NOVA_NEUTRON_SUBNETPOOL_ID']}})['subnet']
    router = _net(stack, 'POST', '/routers', json={'router': {
        'name': 'guest-router', 'external_gateway_info': {
            'network_id': env['NOVA_NEUTRON_PUBLIC_NETWORK_ID']}}})['router']
    stack.created.append(('routers', router['id']))
    _net(stack, 'PUT', '/routers/%s/add_router_interface' % router['id'],
         json={'subnet_id': subnet['id']})
    stack.created.append(('router_interface', (router['id'], subnet['id'])))
    group = _net(stack, 'GET', '/security-groups?name=default&project_id=%s'
                 % stack.creds.project_id)['security_groups'][0]
    _net(stack, 'POST', '/security-group-rules', json={'security_group_rule': {
        'security_group_id': group['id'], 'direction': 'ingress', 'ethertype': 'IPv4',
        'protocol': 'tcp', 'port_range_min': 22, 'port_range_max': 22}})

    key = paramiko.ECDSAKey.generate()
    status, _h, body = stack.request('POST', '/os-keypairs', {'keypair': {
        'name': 'guest-key', 'public_key': '%s %s t' % (key.get_name(), key.get_base64())}},
        version='2.10', token=token)
    assert status in (200, 201), body
    # No networks: the project's only network, as upstream.
    status, _h, body = stack.request('POST', '/servers', {'server': {
        'name': 'neutron-guest', 'imageRef': stack.image, 'flavorRef': '1',
        'key_name': 'guest-key'}}, version='2.36', token=token)
    assert status == 202, body
    sid = body['server']['id']
    server = stack.wait_for_status(sid, ('ACTIVE', 'ERROR'), timeout=360, token=token)
    assert server['status'] == 'ACTIVE', server
    (port,) = _project_ports(stack)
    assert port['device_id'] == sid and port['binding:host_id'] == hv['host']
    assert port['device_owner'] == 'compute:nova'
    assert port['binding:vif_type'] == 'ovs' and port['status'] == 'ACTIVE'
    assert port['binding:vif_details']['datapath_type'] == 'netdev'
    (vif,) = stack.db.instance_get(sid)['network_info']
    assert vif['id'] == port['id'] and vif['network']['label'] == 'guest-net'
    tap = vif['devname']
    # os-vif made the tap in the hypervisor namespace and put it on br-int.
    assert tap in neutron_env.ip(hv['netns'], '-o', 'link', 'show', 'dev', tap)
    assert tap not in neutron_env.ip_root_links()
    assert neutron_env.vsctl(hv, 'get', 'Interface', tap,
                             'external_ids:iface-id').strip().strip('"') == port['id']
    xml = stack.aio.services[1].manager.driver.host.get_guest(sid).get_xml_desc()
    assert "<target dev='%s' managed='no'/>" % tap in xml
    assert "<host csum='off'/>" in xml
    assert "<mtu size='%d'/>" % network['mtu'] in xml

    fip = _net(stack, 'POST', '/floatingips', json={'floatingip': {
        'floating_network_id': env['NOVA_NEUTRON_PUBLIC_NETWORK_ID'],
        'port_id': port['id']}})['floatingip']
    stack.created.append(('floatingips', fip['id']))
    address = fip['floating_ip_address']
    pub_ns = env['NOVA_NEUTRON_PUBLIC_NETNS']
    client = _wait('SSH to %s from %s' % (address, pub_ns),
                   lambda: _ssh(pub_ns, address, key), 180)
    try:
        _in, out, _err = client.exec_command('ip -4 -o addr show eth0', timeout=30)
        assert port['fixed_ips'][0]['ip_address'] in out.read().decode()
        _tagged_hot_plug(stack, sid, network, client)
    finally:
        client.close()

    _delete(stack, sid)
    assert _project_ports(stack) == []
    _wait('the tap to go', lambda: tap not in neutron_env.ip(hv['netns'], '-o', 'link'), 30)
    assert tap not in neutron_env.vsctl(hv, 'list-ports', 'br-int')


def test_a_full_port_quota_is_refused_before_the_202_and_creates_nothing(stack):
    token = stack.creds.token
    # Room for no more port (Neutron refuses a limit below what is in use).
    used = len(stack.admin.get('/v2.0/ports?project_id=' + stack.creds.project_id,
                               endpoint_filter=NETWORK).json()['ports'])
    before = _project_ports(stack)
    stack.admin.put('/v2.0/quotas/' + stack.creds.project_id, endpoint_filter=NETWORK,
                    json={'quota': {'port': used}})
    try:
        status, _h, body = stack.request('POST', '/servers', {'server': {
            'name': 'no-port', 'imageRef': stack.image, 'flavorRef': '1'}},
            version='2.36', token=token)
        assert status == 403, body
        assert 'port' in body['forbidden']['message'].lower()
        status, _h, listed = stack.request('GET', '/servers?name=no-port', version='2.36',
                                           token=token)
        assert status == 200 and listed['servers'] == [], listed
        assert _project_ports(stack) == before
    finally:
        stack.admin.delete('/v2.0/quotas/' + stack.creds.project_id, endpoint_filter=NETWORK)


def test_neutron_refusing_a_port_fails_the_build_and_leaves_no_port(stack):
    """A subnet with no address left: the API cannot know, Neutron refuses at the build."""
    token = stack.creds.token
    network = _net(stack, 'POST', '/networks', json={'network': {'name': 'full-net'}})[
        'network']
    stack.created.append(('networks', network['id']))
    _net(stack, 'POST', '/subnets', json={'subnet': {
        'network_id': network['id'], 'ip_version': 4, 'cidr': '10.250.0.0/29',
        'enable_dhcp': False,
        'allocation_pools': [{'start': '10.250.0.2', 'end': '10.250.0.2'}]}})
    # The one address goes to a filler port (unless a service port took it).
    filler = _net(stack, 'POST', '/ports', json={'port': {
        'network_id': network['id'], 'name': 'filler'}}).get('port')
    fillers = [filler['id']] if filler else []
    status, _h, body = stack.request('POST', '/servers', {'server': {
        'name': 'no-address', 'imageRef': stack.image, 'flavorRef': '1',
        'networks': [{'uuid': network['id']}]}}, version='2.36', token=token)
    assert status == 202, body
    sid = body['server']['id']
    server = stack.wait_for_status(sid, ('ACTIVE', 'ERROR'), timeout=120, token=token)
    assert server['status'] == 'ERROR'
    assert 'fixed ip' in server['fault']['message'].lower(), server['fault']
    assert [p['id'] for p in _project_ports(stack)
            if p['network_id'] == network['id']] == fillers
    assert stack.db.instance_get(sid)['network_info'] == []
    _delete(stack, sid)
    for port_id in fillers:
        _net(stack, 'DELETE', '/ports/' + port_id)
