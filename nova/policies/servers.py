"""Policies of the servers resource."""

from oslo_policy import policy

from nova.policies import base

PREFIX = 'os_compute_api:servers:%s'
INDEX = PREFIX % 'index'
DETAIL = PREFIX % 'detail'
INDEX_ALL_TENANTS = PREFIX % 'index:get_all_tenants'
DETAIL_ALL_TENANTS = PREFIX % 'detail:get_all_tenants'
SHOW = PREFIX % 'show'
SHOW_HOST_STATUS = PREFIX % 'show:host_status'
IPS_INDEX = 'os_compute_api:ips:index'
IPS_SHOW = 'os_compute_api:ips:show'
CREATE = PREFIX % 'create'
CREATE_IMAGE_PROPS_OVERRIDE = PREFIX % 'create:image_props_override'
CREATE_FORCED_HOST = PREFIX % 'create:forced_host'
CREATE_ATTACH_NETWORK = PREFIX % 'create:attach_network'
UPDATE = PREFIX % 'update'
DELETE = PREFIX % 'delete'
EXTENDED_ATTRIBUTES = 'os_compute_api:os-extended-server-attributes'
# Attaching a server to a router:external network that is not shared.
NETWORK_ATTACH_EXTERNAL = 'network:attach_external_network'
TOPOLOGY_INDEX = 'os_compute_api:os-server-topology:index'
TOPOLOGY_HOST_INDEX = 'os_compute_api:os-server-topology:host:index'
# Registered here; it also gates extra_specs in flavor bodies.
FLAVOR_EXTRA_SPECS_INDEX = 'os_compute_api:os-flavor-extra-specs:index'


def _rule(name, check, description, method, path):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'method': method, 'path': path}], scope_types=['project'])


rules = [
    _rule(INDEX, base.PROJECT_READER_OR_ADMIN, 'List servers', 'GET', '/servers'),
    _rule(DETAIL, base.PROJECT_READER_OR_ADMIN, 'List servers with details',
          'GET', '/servers/detail'),
    _rule(INDEX_ALL_TENANTS, base.ADMIN, 'List servers of all projects',
          'GET', '/servers'),
    _rule(DETAIL_ALL_TENANTS, base.ADMIN, 'List servers of all projects with '
          'details', 'GET', '/servers/detail'),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN, 'Show a server', 'GET', '/servers/{server_id}'),
    _rule(IPS_INDEX, base.PROJECT_READER_OR_ADMIN, 'List the addresses of a server',
          'GET', '/servers/{server_id}/ips'),
    _rule(IPS_SHOW, base.PROJECT_READER_OR_ADMIN, 'Show the addresses of a server on a network',
          'GET', '/servers/{server_id}/ips/{network_label}'),
    _rule(SHOW_HOST_STATUS, base.ADMIN, 'Show the host status of a server',
          'GET', '/servers/{server_id}'),
    _rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN, 'Create a server', 'POST', '/servers'),
    _rule(CREATE_ATTACH_NETWORK, base.PROJECT_MEMBER_OR_ADMIN,
          'Create a server on the networks or ports it names', 'POST', '/servers'),
    _rule(CREATE_IMAGE_PROPS_OVERRIDE, base.PROJECT_MEMBER_OR_ADMIN,
          'Create a server with image_props_override (microversion 2.105)',
          'POST', '/servers'),
    policy.DocumentedRuleDefault(
        name=NETWORK_ATTACH_EXTERNAL, check_str=base.ADMIN,
        description='Attach a server to an external network (one with router:external '
                    'that is not shared), at create or as an interface',
        operations=[{'method': 'POST', 'path': '/servers'},
                    {'method': 'POST', 'path': '/servers/{server_id}/os-interface'}],
        scope_types=['project']),
    _rule(CREATE_FORCED_HOST, base.ADMIN, 'Create a server on a named host',
          'POST', '/servers'),
    _rule(UPDATE, base.PROJECT_MEMBER_OR_ADMIN, 'Update a server', 'PUT',
          '/servers/{server_id}'),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN, 'Delete a server', 'DELETE',
          '/servers/{server_id}'),
    _rule(TOPOLOGY_INDEX, base.PROJECT_READER_OR_ADMIN,
          'Show the NUMA topology of a server (microversion 2.78)',
          'GET', '/servers/{server_id}/topology'),
    _rule(TOPOLOGY_HOST_INDEX, base.ADMIN,
          'Show the host NUMA nodes and CPU pinning in the topology of a server',
          'GET', '/servers/{server_id}/topology'),
    policy.DocumentedRuleDefault(
        name=EXTENDED_ATTRIBUTES, check_str=base.ADMIN,
        description='Show OS-EXT-SRV-ATTR attributes of a server',
        operations=[{'method': 'GET', 'path': '/servers/{server_id}'},
                    {'method': 'GET', 'path': '/servers/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FLAVOR_EXTRA_SPECS_INDEX, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show flavor extra specs embedded in servers and flavors',
        operations=[{'method': 'GET', 'path': '/servers/{server_id}'},
                    {'method': 'GET', 'path': '/flavors/{flavor_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
