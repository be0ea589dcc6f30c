"""Security groups and rules of the embedded network endpoint: default group, Neutron's checks."""

import pytest

from nova.tests.unit.embedded.network import network_server as ns
from nova.tests.unit.embedded.network.network_server import fault

RULE_KEYS = {'id', 'security_group_id', 'direction', 'ethertype', 'protocol',
             'port_range_min', 'port_range_max', 'remote_ip_prefix', 'remote_group_id',
             'remote_address_group_id', 'normalized_cidr', 'belongs_to_default_sg',
             'tenant_id', 'project_id', 'description', 'created_at', 'updated_at',
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
def admin(server):
    return ns.NetworkApi(server.url, 'admin')


@pytest.fixture
def group(p1):
    return p1.create('security-groups', 'security_group', name='web', description='w')


def _rule(api, group_id, **fields):
    return api.post('/security-group-rules', {'security_group_rule': dict(
        {'security_group_id': group_id, 'direction': 'ingress'}, **fields)})


def test_default_group_has_neutrons_rules(p1):
    (default,) = p1.get('/security-groups').json()['security_groups']
    assert default['name'] == 'default' and default['project_id'] == 'p1'
    assert default['stateful'] is True and default['shared'] is False
    rules = {(r['direction'], r['ethertype'], r['remote_group_id'])
             for r in default['security_group_rules']}
    assert rules == {('ingress', 'IPv4', default['id']), ('ingress', 'IPv6', default['id']),
                     ('egress', 'IPv4', None), ('egress', 'IPv6', None)}
    assert all(set(r) == RULE_KEYS and r['belongs_to_default_sg'] is True
               and r['protocol'] is None for r in default['security_group_rules'])
    # Made once per project.
    assert len(p1.get('/security-groups').json()['security_groups']) == 1


def test_new_group_gets_egress_rules_and_reserved_name(p1, group):
    assert {(r['direction'], r['ethertype']) for r in group['security_group_rules']} == \
        {('egress', 'IPv4'), ('egress', 'IPv6')}
    assert fault(p1.post('/security-groups', {'security_group': {'name': 'Default'}}), 409,
                 'SecurityGroupDefaultAlreadyExists') == 'Default security group already exists.'
    default = p1.get('/security-groups', params={'name': 'default'}).json()
    default_id = default['security_groups'][0]['id']
    assert fault(p1.put('/security-groups/' + default_id, {'security_group': {'name': 'x'}}),
                 409, 'SecurityGroupCannotUpdateDefault')
    assert fault(p1.delete('/security-groups/' + default_id), 409,
                 'SecurityGroupCannotRemoveDefault') == \
        'Insufficient rights for removing default security group.'
    assert p1.put('/security-groups/' + group['id'], {'security_group': {
        'description': 'changed'}}).json()['security_group']['description'] == 'changed'


def test_rule_create_show_list_delete(p1, group):
    resp = _rule(p1, group['id'], protocol='TCP', port_range_min=22, port_range_max=22,
                 remote_ip_prefix='10.0.0.5/24')
    assert resp.status_code == 201, resp.text
    rule = resp.json()['security_group_rule']
    assert set(rule) == RULE_KEYS
    assert rule['protocol'] == 'tcp' and rule['ethertype'] == 'IPv4'
    assert rule['remote_ip_prefix'] == '10.0.0.5/24'
    assert rule['normalized_cidr'] == '10.0.0.0/24'
    assert rule['belongs_to_default_sg'] is False
    assert p1.get('/security-group-rules/' + rule['id']).json()['security_group_rule'] == rule
    listed = p1.get('/security-group-rules', params={'security_group_id': group['id'],
                                                     'direction': 'ingress'}).json()
    assert [r['id'] for r in listed['security_group_rules']] == [rule['id']]
    shown = p1.get('/security-groups/' + group['id']).json()['security_group']
    assert rule['id'] in [r['id'] for r in shown['security_group_rules']]
    assert fault(_rule(p1, group['id'], protocol='6', port_range_min=22, port_range_max=22,
                       remote_ip_prefix='10.0.0.5/24'), 409, 'SecurityGroupRuleExists') == \
        'Security group rule already exists. Rule id is %s.' % rule['id']
    assert p1.delete('/security-group-rules/' + rule['id']).status_code == 204
    assert fault(p1.get('/security-group-rules/' + rule['id']), 404,
                 'SecurityGroupRuleNotFound') == \
        'Security group rule %s does not exist' % rule['id']


@pytest.mark.parametrize('fields, kind, message', [
    ({'protocol': 'foo'}, 'SecurityGroupRuleInvalidProtocol',
     "Security group rule protocol foo not supported. Only protocol values (None, 'any', "
     "'ah', 'dccp', 'egp', 'esp', 'gre', 'hopopt', 'icmp', 'igmp', 'ip', 'ipip', "
     "'ipv6-encap', 'ipv6-frag', 'ipv6-icmp', 'icmpv6', 'ipv6-nonxt', 'ipv6-opts', "
     "'ipv6-route', 'ospf', 'pgm', 'rsvp', 'sctp', 'tcp', 'udp', 'udplite', 'vrrp') and "
     "integer representations [0 to 255] are supported."),
    ({'protocol': '256'}, 'SecurityGroupRuleInvalidProtocol', None),
    ({'protocol': 'tcp', 'port_range_min': 100, 'port_range_max': 50},
     'SecurityGroupInvalidPortRange',
     'For TCP/UDP protocols, port_range_min must be <= port_range_max'),
    ({'protocol': 'udp', 'port_range_min': 0, 'port_range_max': 50},
     'SecurityGroupInvalidPortValue', 'Invalid value for port 0'),
    ({'protocol': 'tcp', 'port_range_min': 70000, 'port_range_max': 70000},
     'SecurityGroupInvalidPortValue', 'Invalid value for port 70000'),
    ({'protocol': 'tcp', 'port_range_min': 'ssh'},
     'SecurityGroupInvalidPortValue', 'Invalid value for port ssh'),
    ({'protocol': 'tcp', 'port_range_min': 22}, 'SecurityGroupInvalidPortRange', None),
    ({'port_range_min': 22, 'port_range_max': 22}, 'SecurityGroupProtocolRequiredWithPorts',
     'Must also specify protocol if port range is given.'),
    ({'protocol': 'icmp', 'port_range_min': 300}, 'SecurityGroupInvalidIcmpValue',
     'Invalid value for ICMP type (port_range_min) 300. It must be 0 to 255.'),
    ({'protocol': 'icmp', 'port_range_max': 3}, 'SecurityGroupMissingIcmpType',
     'ICMP code (port-range-max) 3 is provided but ICMP type (port-range-min) is missing.'),
    ({'protocol': 'gre', 'port_range_min': 1, 'port_range_max': 2},
     'SecurityGroupInvalidProtocolForPort',
     'Ports cannot be specified for protocol 47. Ports are only supported for DCCP, SCTP, '
     'TCP, UDP, UDPLITE.'),
    ({'ethertype': 'IPv5'}, 'SecurityGroupRuleInvalidEtherType',
     "Security group rule for ethertype 'IPv5' not supported. Allowed values are "
     "['IPv4', 'IPv6']."),
    ({'remote_ip_prefix': '10.0.0.0/8', 'ethertype': 'IPv6'},
     'SecurityGroupRuleParameterConflict',
     'Conflicting value ethertype IPv6 for CIDR 10.0.0.0/8'),
    ({'protocol': 'ipv6-icmp'}, 'SecurityGroupEthertypeConflictWithProtocol',
     'Invalid ethertype IPv4 for protocol ipv6-icmp.'),
    ({'remote_ip_prefix': 'ten/8'}, 'InvalidCIDR', 'Invalid CIDR ten/8 given as IP prefix.'),
    ({'direction': 'sideways'}, 'HTTPBadRequest',
     "Invalid input for direction. Reason: sideways is not in ['ingress', 'egress']."),
])
def test_rule_validation(p1, group, fields, kind, message):
    got = fault(_rule(p1, group['id'], **fields), 400, kind)
    if message:
        assert got == message


def test_rule_remotes_and_canonical_forms(p1, group):
    both = _rule(p1, group['id'], remote_ip_prefix='10.0.0.0/8', remote_group_id=group['id'])
    assert fault(both, 400, 'SecurityGroupMultipleRemoteEntites') == (
        'Only one of remote_ip_prefix or remote_group_id or remote_address_group_id may be '
        'provided.')
    missing = '2d1ef5a0-9e5c-4b44-8d11-6c9c51b0e0a1'
    assert fault(_rule(p1, group['id'], remote_group_id=missing), 404,
                 'SecurityGroupNotFound') == 'Security group %s does not exist' % missing
    icmp6 = _rule(p1, group['id'], ethertype='ipv6', protocol='icmp').json()
    assert icmp6['security_group_rule']['protocol'] == 'ipv6-icmp'
    assert icmp6['security_group_rule']['ethertype'] == 'IPv6'
    whole = _rule(p1, group['id'], protocol='udp', port_range_min=1,
                  port_range_max=65535).json()['security_group_rule']
    assert (whole['port_range_min'], whole['port_range_max']) == (None, None)
    anyproto = _rule(p1, group['id'], protocol='any', remote_group_id=group['id']).json()
    assert anyproto['security_group_rule']['protocol'] is None
    host = _rule(p1, group['id'], remote_ip_prefix='10.1.2.3').json()['security_group_rule']
    assert host['remote_ip_prefix'] == '10.1.2.3/32'


def test_groups_belong_to_their_project(server, p1, group):
    p2 = ns.NetworkApi(server.url, 'p2')
    fault(p2.get('/security-groups/' + group['id']), 404, 'SecurityGroupNotFound')
    fault(_rule(p2, group['id']), 404, 'SecurityGroupNotFound')
    assert group['id'] not in [g['id'] for g in
                               p2.get('/security-groups').json()['security_groups']]


def test_group_in_use_then_deleted_with_its_rules(server, p1, group):
    port = p1.create('ports', 'port', network_id=server.network['id'],
                     security_groups=[group['id']])
    assert fault(p1.delete('/security-groups/' + group['id']), 409, 'SecurityGroupInUse') == \
        'Security Group %s in use.' % group['id']
    p1.put('/ports/' + port['id'], {'port': {'security_groups': []}})
    rule_ids = [r['id'] for r in group['security_group_rules']]
    assert p1.delete('/security-groups/' + group['id']).status_code == 204
    for rule_id in rule_ids:
        fault(p1.get('/security-group-rules/' + rule_id), 404)


def test_quota_counts_groups_and_rules(p1, admin):
    admin.put('/quotas/p1', {'quota': {'security_group': 2}})
    p1.create('security-groups', 'security_group', name='one')
    assert fault(p1.post('/security-groups', {'security_group': {'name': 'two'}}), 409,
                 'OverQuota') == "Quota exceeded for resources: ['security_group']."
