"""The embedded network endpoint over real HTTP: versions, networks, subnets, listing, quotas."""

import pytest
import requests

from nova.tests.unit.embedded.network import network_server as ns
from nova.tests.unit.embedded.network.network_server import fault

# tempest's network show schema keys (networks.py) every network must carry.
NETWORK_KEYS = {'id', 'name', 'admin_state_up', 'status', 'subnets', 'shared', 'mtu',
                'tenant_id', 'project_id', 'port_security_enabled', 'router:external',
                'dns_domain', 'description', 'created_at', 'updated_at', 'revision_number',
                'tags'}
SUBNET_KEYS = {'id', 'name', 'network_id', 'ip_version', 'cidr', 'gateway_ip',
               'allocation_pools', 'dns_nameservers', 'host_routes', 'enable_dhcp',
               'ipv6_ra_mode', 'ipv6_address_mode', 'subnetpool_id', 'tenant_id',
               'project_id', 'description', 'service_types', 'created_at', 'updated_at',
               'revision_number', 'tags'}


@pytest.fixture
def server(tmp_path):
    srv = ns.NetworkServer(str(tmp_path / 'network'))
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


# -- discovery ------------------------------------------------------------------

def test_version_document_needs_no_token(server):
    resp = requests.get(server.url + '/', timeout=10)
    assert resp.status_code == 200
    (version,) = resp.json()['versions']
    assert version == {'id': 'v2.0', 'status': 'CURRENT',
                       'links': [{'rel': 'self', 'href': server.url + '/v2.0/'}]}


def test_v2_index_needs_a_token_and_lists_core_collections(server, p1):
    assert requests.get(server.url + '/v2.0/', timeout=10).status_code == 401
    resp = p1.get('/')
    assert resp.status_code == 200
    names = {r['collection'] for r in resp.json()['resources']}
    assert names == {'networks', 'subnets', 'subnetpools', 'ports'}


def test_extensions_list_show_and_unknown(p1):
    aliases = {e['alias'] for e in p1.get('/extensions').json()['extensions']}
    assert {'binding', 'port-security', 'security-group', 'external-net', 'quotas',
            'dns-integration', 'standard-attr-timestamp', 'pagination'} <= aliases
    # Nothing is listed that is not served.
    assert not aliases & {'router', 'binding-extended', 'auto-allocated-topology', 'qos'}
    ext = p1.get('/extensions/binding').json()['extension']
    assert ext['name'] == 'Port Binding' and ext['links'] == []
    assert fault(p1.get('/extensions/router'), 404) == \
        'NeutronExtension with alias router does not exist'


def test_unknown_path_and_method(p1):
    assert fault(p1.get('/routers'), 404, 'HTTPNotFound')
    resp = p1.request('PATCH', '/networks')
    fault(resp, 405)
    assert resp.headers['Allow'] == 'GET, POST'


def test_request_id_header(p1):
    assert p1.get('/networks').headers['x-openstack-request-id'].startswith('req-')


# -- networks -------------------------------------------------------------------

def test_default_network_is_shared_and_seen_by_everyone(server, p1, admin):
    for api in (p1, admin):
        (net,) = api.get('/networks').json()['networks']
        assert net['name'] == 'private' and net['shared'] is True
        assert net['project_id'] == net['tenant_id'] == 'admin'
        assert set(net) == NETWORK_KEYS
        assert net['subnets'] == [server.subnet['id']]


def test_project_networks_are_private(p1, p2, admin):
    mine = p1.create('networks', 'network', name='mine')
    assert mine['project_id'] == 'p1' and mine['shared'] is False
    assert mine['status'] == 'ACTIVE' and mine['mtu'] == 1500
    assert mine['revision_number'] == 0 and mine['created_at'].endswith('Z')
    assert 'mine' not in [n['name'] for n in p2.get('/networks').json()['networks']]
    assert fault(p2.get('/networks/' + mine['id']), 404, 'NetworkNotFound') == \
        'Network %s could not be found.' % mine['id']
    assert admin.get('/networks/' + mine['id']).status_code == 200
    # As Neutron: another project's network is "not found", even to change it.
    fault(p2.put('/networks/' + mine['id'], {'network': {'name': 'x'}}), 404,
          'NetworkNotFound')


def test_shared_network_needs_an_administrator(p1, admin):
    msg = fault(p1.post('/networks', {'network': {'name': 'n', 'shared': True}}), 403,
                'PolicyNotAuthorized')
    assert msg == ('(rule:create_network and rule:create_network:shared) is '
                   'disallowed by policy')
    # False is the default: not "explicitly set", no admin rule.
    assert p1.post('/networks', {'network': {'shared': False}}).status_code == 201
    assert admin.create('networks', 'network', name='s', shared=True)['shared'] is True


def test_network_body_errors(p1):
    assert fault(p1.post('/networks', {'network': {'foo': 1}}), 400) == \
        "Unrecognized attribute(s) 'foo'"
    assert fault(p1.post('/networks', {'network': {'admin_state_up': 'maybe'}}), 400,
                 'InvalidInput') == \
        "Invalid input for operation: 'maybe' cannot be converted to boolean."
    assert fault(p1.post('/networks', {'net': {}}), 400) == \
        "Unable to find 'network' in request body"
    assert fault(p1.post('/networks', {'network': 'x'}), 400) == \
        "Object 'network' contains invalid data"
    assert fault(p1.post('/networks', data='{nope',
                         headers={'Content-Type': 'application/json'}), 400) == \
        'Body contains invalid data'
    assert fault(p1.post('/networks', {'network': {'name': 'x' * 256}}), 400).startswith(
        'Invalid input for name. Reason:')
    assert fault(p1.post('/networks', {'network': {'status': 'DOWN'}}), 400) == \
        "Attribute 'status' not allowed in POST"
    net = p1.create('networks', 'network', name='n')
    assert fault(p1.put('/networks/' + net['id'], {'network': {'id': 'x'}}), 400) == \
        'Cannot update read-only attribute id'
    assert fault(p1.post('/networks', {'network': {'project_id': 'p2'}}), 400) == (
        "Specifying 'project_id' other than the authenticated project in request is "
        "not allowed for the current user.")


def test_update_and_delete_network(p1, p2, admin, server):
    net = p1.create('networks', 'network', name='n')
    resp = p1.put('/networks/' + net['id'], {'network': {'name': 'renamed', 'mtu': 1400}})
    assert resp.status_code == 200
    body = resp.json()['network']
    assert body['name'] == 'renamed' and body['mtu'] == 1400
    assert body['revision_number'] == 1
    # The default network is visible but not p1's.
    assert fault(p1.delete('/networks/' + server.network['id']), 403) == \
        'rule:delete_network is disallowed by policy'
    assert fault(admin.delete('/networks/' + server.network['id']), 409, 'NetworkInUse')
    port = p1.create('ports', 'port', network_id=net['id'])
    assert fault(p1.delete('/networks/' + net['id']), 409, 'NetworkInUse') == (
        'Unable to complete operation on network %s. There are one or more ports still '
        'in use on the network.' % net['id'])
    assert p1.delete('/ports/' + port['id']).status_code == 204
    assert p1.delete('/networks/' + net['id']).status_code == 204
    fault(p1.get('/networks/' + net['id']), 404)


def test_bulk_network_create(p1):
    resp = p1.post('/networks', {'networks': [{'name': 'a'}, {'name': 'b'}]})
    assert resp.status_code == 201
    assert [n['name'] for n in resp.json()['networks']] == ['a', 'b']
    assert fault(p1.post('/networks', {'networks': []}), 400) == 'Resources required'


# -- listing: filters, fields, sorting, pages ------------------------------------------

def test_filters_and_fields(p1):
    for name in ('a', 'b', 'c'):
        p1.create('networks', 'network', name=name)
    resp = p1.get('/networks', params=[('name', 'a'), ('name', 'c'), ('fields', 'name'),
                                       ('fields', 'id')])
    nets = resp.json()['networks']
    assert sorted(n['name'] for n in nets) == ['a', 'c']
    assert all(set(n) == {'name', 'id'} for n in nets)
    shared = p1.get('/networks', params={'shared': 'True'}).json()['networks']
    assert [n['name'] for n in shared] == ['private']
    assert fault(p1.get('/networks', params={'colour': 'red'}), 400) == \
        "['colour'] is invalid attribute for filtering"


def test_sorting_and_pagination_links(p1):
    for name in ('b', 'c', 'a'):
        p1.create('networks', 'network', name=name)
    names = [n['name'] for n in p1.get('/networks', params={
        'sort_key': 'name', 'sort_dir': 'desc'}).json()['networks']]
    assert names == ['private', 'c', 'b', 'a']
    assert fault(p1.get('/networks', params={'sort_key': 'name'}), 400) == \
        'The number of sort_keys and sort_dirs must be same'
    assert fault(p1.get('/networks', params={'sort_key': 'subnets', 'sort_dir': 'asc'}),
                 400) == "['subnets'] is invalid attribute for sort_keys"
    first = p1.get('/networks', params={'limit': 2, 'sort_key': 'name',
                                        'sort_dir': 'asc'}).json()
    assert [n['name'] for n in first['networks']] == ['a', 'b']
    links = {link['rel']: link['href'] for link in first['networks_links']}
    assert set(links) == {'next', 'previous'}
    second = requests.get(links['next'], headers=p1.headers, timeout=10).json()
    assert [n['name'] for n in second['networks']] == ['c', 'private']
    # The last page: no next link.
    third = requests.get({lk['rel']: lk['href'] for lk in second['networks_links']}['next'],
                         headers=p1.headers, timeout=10).json()
    assert third['networks'] == []
    assert [lk['rel'] for lk in third['networks_links']] == ['previous']
    assert fault(p1.get('/networks', params={'limit': 'x'}), 400) == \
        "Bad limit request: Limit must be an integer 0 or greater and not 'x'."


# -- subnets --------------------------------------------------------------------

def test_subnet_defaults_and_shape(p1):
    net = p1.create('networks', 'network', name='n')
    sub = p1.create('subnets', 'subnet', network_id=net['id'], ip_version=4,
                    cidr='192.168.7.0/24', dns_nameservers=['192.168.7.53'],
                    host_routes=[{'destination': '10.9.0.0/16', 'nexthop': '192.168.7.254'}])
    assert set(sub) == SUBNET_KEYS
    assert sub['gateway_ip'] == '192.168.7.1'
    assert sub['allocation_pools'] == [{'start': '192.168.7.2', 'end': '192.168.7.254'}]
    assert sub['enable_dhcp'] is True and sub['subnetpool_id'] is None
    assert p1.get('/networks/' + net['id']).json()['network']['subnets'] == [sub['id']]
    no_gw = p1.create('subnets', 'subnet', network_id=net['id'], ip_version=4,
                      cidr='192.168.8.0/24', gateway_ip=None)
    assert no_gw['gateway_ip'] is None
    assert no_gw['allocation_pools'] == [{'start': '192.168.8.1', 'end': '192.168.8.254'}]


@pytest.mark.parametrize('body, code, kind, message', [
    ({'cidr': '192.168.7.0/33'}, 400, 'InvalidInput',
     "Invalid input for operation: 192.168.7.0/33 is not in a CIDR format."),
    ({'cidr': '10.1.0.0/16', 'ip_version': 6}, 400, 'InvalidInput',
     "Invalid input for operation: cidr '10.1.0.0/16' does not match the ip_version '6'."),
    ({'cidr': '10.1.0.1/16'}, 400, 'HTTPBadRequest',
     "Invalid input for cidr. Reason: '10.1.0.1/16' is not a valid IP subnet."),
    ({}, 400, 'BadRequest',
     'Bad subnets request: a subnetpool must be specified in the absence of a cidr.'),
    ({'cidr': '10.1.0.0/24', 'gateway_ip': '10.1.0.255'}, 400, 'InvalidInput',
     'Invalid input for operation: Gateway is not valid on subnet.'),
    ({'cidr': '10.1.0.0/24', 'allocation_pools': [{'start': '10.1.0.1', 'end': '10.1.0.9'}]},
     409, 'GatewayConflictWithAllocationPools',
     'Gateway ip 10.1.0.1 conflicts with allocation pool 10.1.0.1-10.1.0.9.'),
    ({'cidr': '10.1.0.0/24', 'allocation_pools': [{'start': '10.1.0.5', 'end': '10.1.1.9'}]},
     400, 'OutOfBoundsAllocationPool',
     'The allocation pool 10.1.0.5-10.1.1.9 spans beyond the subnet cidr 10.1.0.0/24.'),
    ({'cidr': '10.1.0.0/24', 'allocation_pools': [{'start': '10.1.0.5', 'end': '10.1.0.9'},
                                                 {'start': '10.1.0.8', 'end': '10.1.0.20'}]},
     409, 'OverlappingAllocationPools',
     'Found overlapping allocation pools: 10.1.0.5-10.1.0.9 10.1.0.8-10.1.0.20 for subnet '
     '10.1.0.0/24.'),
    ({'cidr': '10.1.0.0/24', 'dns_nameservers': ['10.1.0.%d' % i for i in range(6)]}, 400,
     'DNSNameServersExhausted',
     'Unable to complete operation for new subnet. The number of DNS nameservers exceeds '
     'the limit 5.'),
    ({'cidr': '10.1.0.0/24', 'dns_nameservers': ['010.1.0.1']}, 400, 'HTTPBadRequest',
     "Invalid input for dns_nameservers. Reason: '010.1.0.1' is not a valid nameserver. "
     "'010.1.0.1' is not an accepted IP address, '10.1.0.1' is recommended."),
    ({'cidr': '10.1.0.0/24', 'host_routes': [{'destination': '10.9.0.1/16',
                                              'nexthop': '10.1.0.2'}]}, 400,
     'HTTPBadRequest',
     "Invalid input for host_routes. Reason: '10.9.0.1/16' is not a valid CIDR."),
    ({'cidr': '10.1.0.0/31'}, 400, 'InvalidInput',
     'Invalid input for operation: Subnet has a prefix length that is incompatible with '
     'DHCP service enabled.'),
    ({'cidr': '10.1.0.0/24', 'ipv6_ra_mode': 'slaac'}, 400, 'InvalidInput',
     'Invalid input for operation: ipv6_ra_mode is not valid when ip_version is 4.'),
])
def test_subnet_create_errors(p1, body, code, kind, message):
    net = p1.create('networks', 'network', name='n')
    resp = p1.post('/subnets', {'subnet': dict({'network_id': net['id'], 'ip_version': 4},
                                               **body)})
    assert fault(resp, code, kind) == message


def test_subnet_overlap_ownership_update_and_delete(p1, p2, server):
    net = p1.create('networks', 'network', name='n')
    sub = p1.create('subnets', 'subnet', network_id=net['id'], ip_version=4,
                    cidr='10.2.0.0/24')
    assert fault(p1.post('/subnets', {'subnet': {'network_id': net['id'], 'ip_version': 4,
                                                 'cidr': '10.2.0.128/25'}}), 400) == (
        'Invalid input for operation: Requested subnet with cidr: 10.2.0.128/25 for '
        'network: %s overlaps with another subnet.' % net['id'])
    # The shared default network is p2's to use, not to add subnets to.
    assert fault(p2.post('/subnets', {'subnet': {'network_id': server.network['id'],
                                                 'ip_version': 4, 'cidr': '10.3.0.0/24'}}),
                 403) == 'rule:create_subnet is disallowed by policy'
    fault(p2.get('/subnets/' + sub['id']), 404, 'SubnetNotFound')
    assert p2.get('/subnets/' + server.subnet['id']).status_code == 200
    resp = p1.put('/subnets/' + sub['id'], {'subnet': {
        'allocation_pools': [{'start': '10.2.0.100', 'end': '10.2.0.110'}],
        'dns_nameservers': ['10.2.0.53'], 'name': 'renamed'}})
    assert resp.status_code == 200, resp.text
    assert resp.json()['subnet']['allocation_pools'] == [{'start': '10.2.0.100',
                                                          'end': '10.2.0.110'}]
    fault(p1.put('/subnets/' + sub['id'], {'subnet': {'cidr': '10.5.0.0/24'}}), 400)
    port = p1.create('ports', 'port', network_id=net['id'])
    assert port['fixed_ips'][0]['ip_address'].startswith('10.2.0.1')
    assert fault(p1.delete('/subnets/' + sub['id']), 409, 'SubnetInUse') == (
        'Unable to complete operation on subnet %s: One or more ports have an IP '
        'allocation from this subnet.' % sub['id'])
    p1.delete('/ports/' + port['id'])
    assert p1.delete('/subnets/' + sub['id']).status_code == 204


def test_default_subnet_cannot_be_deleted(admin, server):
    fault(admin.delete('/subnets/' + server.subnet['id']), 409, 'SubnetInUse')


def test_subnetpools_and_floatingips_are_empty_collections(p1):
    assert p1.get('/subnetpools').json() == {'subnetpools': []}
    fault(p1.get('/subnetpools/x'), 404, 'SubnetPoolNotFound')
    # Nova looks a port's floating IPs up; there are none, and none can be made.
    assert p1.get('/floatingips', params={'port_id': 'x'}).json() == {'floatingips': []}
    fault(p1.post('/floatingips', {'floatingip': {}}), 405)


# -- quotas -----------------------------------------------------------------------

def test_quota_show_details_and_policy(p1, p2, admin):
    p1.create('networks', 'network', name='n')
    assert p1.get('/quotas/p1').json()['quota'] == {
        'network': 100, 'subnet': 100, 'port': 500, 'security_group': 10,
        'security_group_rule': 100}
    details = p1.get('/quotas/p1/details.json').json()['quota']
    assert details['network'] == {'limit': 100, 'used': 1, 'reserved': 0}
    # The default group (made on first use) and its four rules count.
    assert details['security_group']['used'] == 1
    assert details['security_group_rule']['used'] == 4
    assert fault(p2.get('/quotas/p1'), 403) == 'rule:get_quota is disallowed by policy'
    assert admin.get('/quotas/p1').status_code == 200
    assert p1.get('/quotas/p1/default').json()['quota']['port'] == 500
    assert p1.get('/quotas/project').json() == {'project': {'project_id': 'p1'}}


def test_quota_update_enforce_and_reset(p1, admin):
    assert fault(p1.put('/quotas/p1', {'quota': {'network': 1}}), 403) == \
        'rule:update_quota is disallowed by policy'
    resp = admin.put('/quotas/p1', {'quota': {'network': 1}})
    assert resp.status_code == 200 and resp.json()['quota']['network'] == 1
    assert [q['project_id'] for q in admin.get('/quotas').json()['quotas']] == ['p1']
    p1.create('networks', 'network', name='one')
    assert fault(p1.post('/networks', {'network': {'name': 'two'}}), 409, 'OverQuota') == \
        "Quota exceeded for resources: ['network']."
    assert fault(admin.put('/quotas/p1', {'quota': {'network': 0}}), 400) == \
        'Quota limit 0 for network must be greater than or equal to already used 1'
    assert fault(admin.put('/quotas/p1', {'quota': {'router': 1}}), 400) == \
        "Unrecognized attribute(s) 'router'"
    assert admin.delete('/quotas/p1').status_code == 204
    assert p1.get('/quotas/p1').json()['quota']['network'] == 100
