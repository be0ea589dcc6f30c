"""Policies of os-interface, the network proxies and the network actions (upstream names)."""

from oslo_policy import policy

from nova.policies import base

INTERFACES_LIST = 'os_compute_api:os-attach-interfaces:list'
INTERFACES_SHOW = 'os_compute_api:os-attach-interfaces:show'
INTERFACES_CREATE = 'os_compute_api:os-attach-interfaces:create'
INTERFACES_DELETE = 'os_compute_api:os-attach-interfaces:delete'
SECURITY_GROUPS_GET = 'os_compute_api:os-security-groups:get'
SECURITY_GROUPS_SHOW = 'os_compute_api:os-security-groups:show'
SECURITY_GROUPS_CREATE = 'os_compute_api:os-security-groups:create'
SECURITY_GROUPS_UPDATE = 'os_compute_api:os-security-groups:update'
SECURITY_GROUPS_DELETE = 'os_compute_api:os-security-groups:delete'
SECURITY_GROUP_RULE_CREATE = 'os_compute_api:os-security-groups:rule:create'
SECURITY_GROUP_RULE_DELETE = 'os_compute_api:os-security-groups:rule:delete'
SERVER_SECURITY_GROUPS = 'os_compute_api:os-security-groups:list'
FLOATING_IPS_LIST = 'os_compute_api:os-floating-ips:list'
FLOATING_IPS_SHOW = 'os_compute_api:os-floating-ips:show'
FLOATING_IPS_CREATE = 'os_compute_api:os-floating-ips:create'
FLOATING_IPS_DELETE = 'os_compute_api:os-floating-ips:delete'
FLOATING_IP_ADD = 'os_compute_api:os-floating-ips:add'
FLOATING_IP_REMOVE = 'os_compute_api:os-floating-ips:remove'
FLOATING_IP_POOLS = 'os_compute_api:os-floating-ip-pools'
TENANT_NETWORKS_LIST = 'os_compute_api:os-tenant-networks:list'
TENANT_NETWORKS_SHOW = 'os_compute_api:os-tenant-networks:show'
MULTINIC_ADD = 'os_compute_api:os-multinic:add'
MULTINIC_REMOVE = 'os_compute_api:os-multinic:remove'

_SERVER = '/servers/{server_id}'
_ACTION = _SERVER + '/action'


def _rule(name, check, description, method, path):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'method': method, 'path': path}], scope_types=['project'])


READER = base.PROJECT_READER_OR_ADMIN
MEMBER = base.PROJECT_MEMBER_OR_ADMIN

rules = [
    _rule(INTERFACES_LIST, READER, "List a server's interfaces", 'GET',
          _SERVER + '/os-interface'),
    _rule(INTERFACES_SHOW, READER, "Show an interface of a server", 'GET',
          _SERVER + '/os-interface/{port_id}'),
    _rule(INTERFACES_CREATE, MEMBER, 'Attach an interface to a server', 'POST',
          _SERVER + '/os-interface'),
    _rule(INTERFACES_DELETE, MEMBER, 'Detach an interface from a server', 'DELETE',
          _SERVER + '/os-interface/{port_id}'),
    _rule(SECURITY_GROUPS_GET, READER, 'List security groups (proxy, up to 2.35)', 'GET',
          '/os-security-groups'),
    _rule(SECURITY_GROUPS_SHOW, READER, 'Show a security group (proxy)', 'GET',
          '/os-security-groups/{security_group_id}'),
    _rule(SECURITY_GROUPS_CREATE, MEMBER, 'Create a security group (proxy)', 'POST',
          '/os-security-groups'),
    _rule(SECURITY_GROUPS_UPDATE, MEMBER, 'Update a security group (proxy)', 'PUT',
          '/os-security-groups/{security_group_id}'),
    _rule(SECURITY_GROUPS_DELETE, MEMBER, 'Delete a security group (proxy)', 'DELETE',
          '/os-security-groups/{security_group_id}'),
    _rule(SECURITY_GROUP_RULE_CREATE, MEMBER, 'Create a security group rule (proxy)',
          'POST', '/os-security-group-rules'),
    _rule(SECURITY_GROUP_RULE_DELETE, MEMBER, 'Delete a security group rule (proxy)',
          'DELETE', '/os-security-group-rules/{security_group_rule_id}'),
    _rule(SERVER_SECURITY_GROUPS, READER, "List a server's security groups (proxy)",
          'GET', _SERVER + '/os-security-groups'),
    _rule(FLOATING_IPS_LIST, READER, 'List floating IPs (proxy, up to 2.35)', 'GET',
          '/os-floating-ips'),
    _rule(FLOATING_IPS_SHOW, READER, 'Show a floating IP (proxy)', 'GET',
          '/os-floating-ips/{floating_ip_id}'),
    _rule(FLOATING_IPS_CREATE, MEMBER, 'Allocate a floating IP (proxy)', 'POST',
          '/os-floating-ips'),
    _rule(FLOATING_IPS_DELETE, MEMBER, 'Release a floating IP (proxy)', 'DELETE',
          '/os-floating-ips/{floating_ip_id}'),
    _rule(FLOATING_IP_ADD, MEMBER, 'Associate a floating IP with a server (below 2.44)',
          'POST', _ACTION),
    _rule(FLOATING_IP_REMOVE, MEMBER, 'Disassociate a floating IP from a server '
          '(below 2.44)', 'POST', _ACTION),
    _rule(FLOATING_IP_POOLS, READER, 'List floating IP pools (proxy, up to 2.35)', 'GET',
          '/os-floating-ip-pools'),
    _rule(TENANT_NETWORKS_LIST, READER, 'List project networks (proxy, up to 2.35)', 'GET',
          '/os-tenant-networks'),
    _rule(TENANT_NETWORKS_SHOW, READER, 'Show a project network (proxy)', 'GET',
          '/os-tenant-networks/{network_id}'),
    _rule(MULTINIC_ADD, MEMBER, 'Add a fixed IP to a server (below 2.44)', 'POST', _ACTION),
    _rule(MULTINIC_REMOVE, MEMBER, 'Remove a fixed IP from a server (below 2.44)', 'POST',
          _ACTION),
]


def list_rules():
    return rules
