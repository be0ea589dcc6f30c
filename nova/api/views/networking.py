"""Response bodies of the network proxies (up to 2.35), as upstream renders Neutron's resources."""

from nova.network import floating_ips as net_fips

# os-networks' keys (nova-network's), shown to every caller; the admin ones besides.
_NETWORK_FIELDS = ('id', 'cidr', 'netmask', 'gateway', 'broadcast', 'dns1', 'dns2',
                   'cidr_v6', 'gateway_v6', 'label', 'netmask_v6')
_NETWORK_ADMIN_FIELDS = ('created_at', 'updated_at', 'deleted_at', 'deleted', 'injected',
                         'bridge', 'vlan', 'vpn_public_address', 'vpn_public_port',
                         'vpn_private_address', 'dhcp_start', 'project_id', 'host',
                         'bridge_interface', 'multi_host', 'priority', 'rxtx_base', 'mtu',
                         'dhcp_server', 'enable_dhcp', 'share_address')
# Neutron knows these of a network; nova-network's other fields are null.
_FROM_NEUTRON = {'id': 'id', 'label': 'name', 'project_id': 'tenant_id', 'mtu': 'mtu'}


def network(net, is_admin):
    """os-networks' ``network`` of a Neutron network."""
    fields = _NETWORK_FIELDS + (_NETWORK_ADMIN_FIELDS if is_admin else ())
    body = {field: net.get(_FROM_NEUTRON[field]) if field in _FROM_NEUTRON else None
            for field in fields}
    if is_admin:
        body['deleted'] = False
    return body


def tenant_network(net):
    """os-tenant-networks' ``network``: upstream shows the cidr as the string 'None'."""
    return {'id': net.get('id'), 'cidr': str(None), 'label': net.get('name')}


def security_group_rule(rule, groups):
    """An os-security-groups rule; ``groups``: {id: {'name', 'tenant_id'}} of the
    groups rules take traffic from."""
    body = {'id': rule['id'], 'parent_group_id': rule['parent_group_id'],
            'ip_protocol': rule['protocol'], 'from_port': rule['from_port'],
            'to_port': rule['to_port'], 'group': {}, 'ip_range': {}}
    if rule.get('group_id'):
        body['group'] = dict(groups.get(rule['group_id']) or {'name': None,
                                                               'tenant_id': None})
    else:
        # Neutron's "any address" is upstream's 0.0.0.0/0.
        body['ip_range'] = {'cidr': rule.get('cidr') or '0.0.0.0/0'}
    return body


def security_group(group, groups):
    return {'id': group['id'], 'name': group['name'], 'description': group['description'],
            'tenant_id': group['project_id'],
            'rules': [security_group_rule(r, groups) for r in group['rules']]}


def source_group_ids(groups):
    return [r['group_id'] for g in groups for r in g['rules'] if r.get('group_id')]


def floating_ip(fip):
    return net_fips.to_nova_view(fip)
