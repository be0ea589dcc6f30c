"""Ports of the embedded network endpoint: addresses, MACs, binding, visibility, Nova's events."""

import pytest

from nova.embedded.network import events
from nova.tests.unit.embedded.network import network_server as ns
from nova.tests.unit.embedded.network.network_server import fault

INSTANCE = '8a1f3ffb-1f1a-4a4e-9d5b-0d0f3e0f3a11'
PORT_KEYS = {'id', 'name', 'network_id', 'admin_state_up', 'mac_address', 'fixed_ips',
             'device_id', 'device_owner', 'status', 'security_groups',
             'port_security_enabled', 'dns_name', 'dns_assignment', 'binding:vnic_type',
             'tenant_id', 'project_id', 'description', 'created_at', 'updated_at',
             'revision_number', 'tags'}
ADMIN_ONLY = {'binding:host_id', 'binding:profile', 'binding:vif_type',
              'binding:vif_details'}


class Recorder:
    """Stands in for the transport to Nova: the port events it was given."""

    def __init__(self):
        self.events = []

    def notify(self, found):
        self.events.extend(found)


@pytest.fixture
def recorder():
    return Recorder()


@pytest.fixture
def server(tmp_path, recorder):
    srv = ns.NetworkServer(str(tmp_path / 'network'), notifier=recorder)
    yield srv
    srv.stop()


@pytest.fixture
def p1(server):
    return ns.NetworkApi(server.url, 'p1')


@pytest.fixture
def p2(server):
    return ns.NetworkApi(server.url, 'p2')


@pytest.fixture
def admin(server):
    return ns.NetworkApi(server.url, 'admin')


def test_port_on_the_default_network(server, p1, admin):
    port = p1.create('ports', 'port', network_id=server.network['id'], name='vm-port')
    assert set(port) == PORT_KEYS
    (ip,) = port['fixed_ips']
    assert ip['subnet_id'] == server.subnet['id']
    assert ip['ip_address'].startswith('10.78.0.') and ip['ip_address'] != '10.78.0.1'
    assert port['mac_address'].startswith('fa:16:3e:')
    assert port['status'] == 'DOWN' and port['binding:vnic_type'] == 'normal'
    default_sg = p1.get('/security-groups', params={'name': 'default'}).json()
    assert port['security_groups'] == [default_sg['security_groups'][0]['id']]
    assert port['port_security_enabled'] is True
    assert port['dns_assignment'] == [{
        'hostname': 'host-' + ip['ip_address'].replace('.', '-'),
        'ip_address': ip['ip_address'],
        'fqdn': 'host-%s.openstacklocal.' % ip['ip_address'].replace('.', '-')}]
    shown = admin.get('/ports/' + port['id']).json()['port']
    assert set(shown) == PORT_KEYS | ADMIN_ONLY
    assert shown['binding:vif_type'] == 'unbound' and shown['binding:vif_details'] == {}


def test_binding_by_the_administrator(server, p1, admin, recorder):
    port = p1.create('ports', 'port', network_id=server.network['id'], device_id=INSTANCE)
    assert fault(p1.put('/ports/' + port['id'], {'port': {'binding:host_id': 'h'}}),
                 403) == ('(rule:update_port and rule:update_port:binding:host_id) is '
                          'disallowed by policy')
    resp = admin.put('/ports/' + port['id'], {'port': {
        'binding:host_id': 'compute-1', 'device_owner': 'compute:nova',
        'binding:profile': {}}})
    assert resp.status_code == 200, resp.text
    bound = resp.json()['port']
    assert bound['binding:vif_type'] == 'tap'
    assert bound['binding:vif_details'] == {
        'port_filter': True, 'connectivity': 'l2', 'bridge_name': 'br-aio',
        'mac_address': 'fe' + port['mac_address'][2:]}
    # No data plane here: a bound port is up at once, and Nova hears it.
    assert bound['status'] == 'ACTIVE'
    assert recorder.events == [{'name': 'network-vif-plugged', 'server_uuid': INSTANCE,
                                'tag': port['id'], 'status': 'completed'}]
    unbound = admin.put('/ports/' + port['id'], {'port': {'binding:host_id': None}}).json()
    assert unbound['port']['binding:vif_type'] == 'unbound'
    assert unbound['port']['status'] == 'DOWN'
    assert recorder.events[-1]['name'] == 'network-vif-unplugged'
    assert p1.delete('/ports/' + port['id']).status_code == 204
    assert recorder.events[-1]['name'] == 'network-vif-deleted'


def test_networks_without_a_data_plane_fail_to_bind(server, admin):
    other = admin.create('networks', 'network', name='other')
    admin.create('subnets', 'subnet', network_id=other['id'], ip_version=4,
                 cidr='10.7.0.0/24')
    server.app.binder.networks = frozenset([server.network['id']])
    try:
        elsewhere = admin.create('ports', 'port', network_id=other['id'],
                                 **{'binding:host_id': 'h'})
        assert elsewhere['binding:vif_type'] == 'binding_failed'
        served = admin.create('ports', 'port', network_id=server.network['id'],
                              **{'binding:host_id': 'h'})
        assert served['binding:vif_type'] == 'tap'
    finally:
        server.app.binder.networks = None


def test_unsupported_vnic_type_fails_to_bind(server, admin):
    port = admin.create('ports', 'port', network_id=server.network['id'],
                        **{'binding:host_id': 'h', 'binding:vnic_type': 'direct'})
    assert port['binding:vif_type'] == 'binding_failed'
    assert port['status'] == 'DOWN'


def test_explicit_addresses_follow_neutron_policy(server, p1, admin):
    net_id, sub_id = server.network['id'], server.subnet['id']
    # A member may pick the subnet of a shared network, not the address.
    port = p1.create('ports', 'port', network_id=net_id, fixed_ips=[{'subnet_id': sub_id}])
    assert port['fixed_ips'][0]['subnet_id'] == sub_id
    assert fault(p1.post('/ports', {'port': {'network_id': net_id, 'fixed_ips': [
        {'ip_address': '10.78.0.77'}]}}), 403) == (
        '(rule:create_port and rule:create_port:fixed_ips and '
        'rule:create_port:fixed_ips:ip_address) is disallowed by policy')
    assert fault(p1.post('/ports', {'port': {'network_id': net_id,
                                             'mac_address': 'fa:16:3e:00:00:01'}}), 403) == \
        '(rule:create_port and rule:create_port:mac_address) is disallowed by policy'
    mine = admin.create('ports', 'port', network_id=net_id,
                        fixed_ips=[{'ip_address': '10.78.0.77'}])
    assert mine['fixed_ips'] == [{'subnet_id': sub_id, 'ip_address': '10.78.0.77'}]
    assert fault(admin.post('/ports', {'port': {'network_id': net_id, 'fixed_ips': [
        {'ip_address': '10.78.0.77'}]}}), 409, 'IpAddressInUse') == (
        'Unable to complete operation for network %s. The IP address 10.78.0.77 is in '
        'use.' % net_id)
    # The gateway is the host's address on the bridge.
    fault(admin.post('/ports', {'port': {'network_id': net_id, 'fixed_ips': [
        {'ip_address': '10.78.0.1'}]}}), 409, 'IpAddressInUse')
    assert fault(admin.post('/ports', {'port': {'network_id': net_id, 'fixed_ips': [
        {'ip_address': '10.99.0.5'}]}}), 400, 'InvalidIpForNetwork') == (
        'IP address 10.99.0.5 is not a valid IP for any of the subnets on the specified '
        'network.')
    assert fault(admin.post('/ports', {'port': {'network_id': net_id, 'fixed_ips': [
        {'ip_address': '10.78.0.255', 'subnet_id': sub_id}]}}), 400,
        'InvalidIpForSubnet') == \
        'IP address 10.78.0.255 is not a valid IP for the specified subnet.'
    assert fault(admin.post('/ports', {'port': {'network_id': net_id, 'fixed_ips': [
        {'ip_address': 'ten'}]}}), 400).startswith('Invalid input for fixed_ips. Reason:')


def test_mac_addresses(server, admin):
    net_id = server.network['id']
    port = admin.create('ports', 'port', network_id=net_id, mac_address='FA-16-3E-AA-BB-CC')
    assert port['mac_address'] == 'fa:16:3e:aa:bb:cc'
    assert fault(admin.post('/ports', {'port': {'network_id': net_id,
                                                'mac_address': 'fa:16:3e:aa:bb:cc'}}), 409,
                 'MacAddressInUse') == (
        'Unable to complete operation for network %s. The mac address fa:16:3e:aa:bb:cc is '
        'in use.' % net_id)
    fault(admin.post('/ports', {'port': {'network_id': net_id,
                                         'mac_address': 'ff:ff:ff:ff:ff:ff'}}), 400)
    admin.put('/ports/' + port['id'], {'port': {'binding:host_id': 'h'}})
    fault(admin.put('/ports/' + port['id'], {'port': {'mac_address': 'fa:16:3e:aa:bb:cd'}}),
          409, 'PortBound')


def test_update_fixed_ips_keeps_listed_and_frees_the_rest(server, admin, recorder):
    net_id, sub_id = server.network['id'], server.subnet['id']
    port = admin.create('ports', 'port', network_id=net_id, device_id=INSTANCE,
                        device_owner='compute:nova',
                        fixed_ips=[{'ip_address': '10.78.0.50'}, {'ip_address': '10.78.0.51'}])
    resp = admin.put('/ports/' + port['id'], {'port': {'fixed_ips': [
        {'ip_address': '10.78.0.51'}, {'subnet_id': sub_id, 'ip_address': '10.78.0.60'}]}})
    assert resp.status_code == 200, resp.text
    assert [ip['ip_address'] for ip in resp.json()['port']['fixed_ips']] == \
        ['10.78.0.51', '10.78.0.60']
    assert recorder.events[-1]['name'] == 'network-changed'
    other = admin.create('ports', 'port', network_id=net_id,
                         fixed_ips=[{'ip_address': '10.78.0.50'}])
    assert other['fixed_ips'][0]['ip_address'] == '10.78.0.50'


def test_visibility_and_ownership(server, p1, p2, admin):
    port = p1.create('ports', 'port', network_id=server.network['id'])
    assert fault(p2.get('/ports/' + port['id']), 404, 'PortNotFound') == \
        'Port %s could not be found.' % port['id']
    fault(p2.delete('/ports/' + port['id']), 404, 'PortNotFound')
    assert p2.get('/ports').json()['ports'] == []
    # The default network's owner (admin) sees every port on it.
    assert [p['id'] for p in admin.get('/ports').json()['ports']] == [port['id']]
    private = p1.create('networks', 'network', name='mine')
    assert fault(p2.post('/ports', {'port': {'network_id': private['id']}}), 404,
                 'NetworkNotFound')


def test_list_filters_nova_uses(server, p1, admin):
    net_id = server.network['id']
    vm = p1.create('ports', 'port', network_id=net_id, device_id=INSTANCE,
                   device_owner='compute:nova')
    p1.create('ports', 'port', network_id=net_id)
    found = p1.get('/ports', params={'device_id': INSTANCE}).json()['ports']
    assert [p['id'] for p in found] == [vm['id']]
    # Nova counts a project's ports for its quota check.
    resp = admin.get('/ports', params={'tenant_id': 'p1', 'fields': 'id'})
    assert all(set(p) == {'id'} for p in resp.json()['ports'])
    assert len(resp.json()['ports']) == 2
    address = vm['fixed_ips'][0]['ip_address']
    by_ip = admin.get('/ports', params={'fixed_ips': 'ip_address=' + address}).json()
    assert [p['id'] for p in by_ip['ports']] == [vm['id']]
    by_sub = admin.get('/ports', params={'fixed_ips': 'subnet_id=' + server.subnet['id']})
    assert len(by_sub.json()['ports']) == 2
    assert fault(admin.get('/ports', params={'fixed_ips': 'mac=1'}), 400, 'InvalidInput')
    empty = p1.get('/ports', params={'device_owner': ''}).json()['ports']
    assert [p['device_owner'] for p in empty] == ['']


def test_port_security_and_groups(server, p1):
    net_id = server.network['id']
    insecure = p1.create('ports', 'port', network_id=server.network['id'],
                         security_groups=[])
    assert insecure['security_groups'] == []
    mine = p1.create('networks', 'network', name='mine')
    p1.create('subnets', 'subnet', network_id=mine['id'], ip_version=4, cidr='10.4.0.0/24')
    open_port = p1.create('ports', 'port', network_id=mine['id'],
                          port_security_enabled=False)
    assert open_port['security_groups'] == [] and open_port['port_security_enabled'] is False
    assert fault(p1.put('/ports/' + open_port['id'], {'port': {'security_groups': [
        insecure['id']]}}), 404, 'SecurityGroupNotFound')
    group = p1.get('/security-groups').json()['security_groups'][0]['id']
    assert fault(p1.put('/ports/' + open_port['id'], {'port': {'security_groups': [group]}}),
                 400, 'PortSecurityAndIPRequiredForSecurityGroups') == (
        'Port security must be enabled and port must have an IP address in order to use '
        'security groups.')
    # A member may not turn filtering off on a network it does not own.
    assert fault(p1.post('/ports', {'port': {'network_id': net_id,
                                             'port_security_enabled': False}}), 403) == (
        '(rule:create_port and rule:create_port:port_security_enabled) is disallowed by '
        'policy')


def test_port_events_only_for_servers():
    assert events.is_compute_port({'device_owner': 'compute:nova', 'device_id': INSTANCE})
    assert not events.is_compute_port({'device_owner': 'compute:nova', 'device_id': 'x'})
    assert not events.is_compute_port({'device_owner': 'network:dhcp', 'device_id': INSTANCE})


def test_bulk_port_create_is_all_or_nothing(server, admin):
    net_id = server.network['id']
    resp = admin.post('/ports', {'ports': [
        {'network_id': net_id, 'fixed_ips': [{'ip_address': '10.78.0.90'}]},
        {'network_id': net_id, 'fixed_ips': [{'ip_address': '10.78.0.90'}]}]})
    fault(resp, 409, 'IpAddressInUse')
    assert admin.get('/ports').json()['ports'] == []
    resp = admin.post('/ports', {'ports': [{'network_id': net_id}, {'network_id': net_id}]})
    assert resp.status_code == 201
    assert len({p['fixed_ips'][0]['ip_address'] for p in resp.json()['ports']}) == 2


def test_addresses_run_out(tmp_path, admin):
    net = admin.create('networks', 'network', name='tiny')
    admin.create('subnets', 'subnet', network_id=net['id'], ip_version=4,
                 cidr='10.6.0.0/29', allocation_pools=[{'start': '10.6.0.2',
                                                        'end': '10.6.0.3'}])
    admin.create('ports', 'port', network_id=net['id'])
    admin.create('ports', 'port', network_id=net['id'])
    assert fault(admin.post('/ports', {'port': {'network_id': net['id']}}), 409,
                 'IpAddressGenerationFailure') == \
        'No more IP addresses available on network %s.' % net['id']
