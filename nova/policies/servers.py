"""Policies of the servers resource."""

from oslo_policy import policy

from nova.policies import base

PREFIX = 'os_compute_api:servers:%s'


def _rule(name, check, description, method, path):
    return policy.DocumentedRuleDefault(
        name=PREFIX % name, check_str=check, description=description,
        operations=[{'method': method, 'path': path}], scope_types=['project'])


rules = [
    _rule('index', base.PROJECT_READER_OR_ADMIN, 'List servers', 'GET', '/servers'),
    _rule('detail', base.PROJECT_READER_OR_ADMIN, 'List servers with details',
          'GET', '/servers/detail'),
    _rule('index:get_all_tenants', base.ADMIN, 'List servers of all projects',
          'GET', '/servers'),
    _rule('detail:get_all_tenants', base.ADMIN, 'List servers of all projects with '
          'details', 'GET', '/servers/detail'),
    _rule('show', base.PROJECT_READER_OR_ADMIN, 'Show a server', 'GET', '/servers/{server_id}'),
    _rule('show:host_status', base.ADMIN, 'Show the host status of a server',
          'GET', '/servers/{server_id}'),
    _rule('create', base.PROJECT_MEMBER_OR_ADMIN, 'Create a server', 'POST', '/servers'),
    _rule('create:image_props_override', base.PROJECT_MEMBER_OR_ADMIN,
          'Create a server with image_props_override (microversion 2.105)',
          'POST', '/servers'),
    _rule('create:forced_host', base.ADMIN, 'Create a server on a named host',
          'POST', '/servers'),
    _rule('update', base.PROJECT_MEMBER_OR_ADMIN, 'Update a server', 'PUT',
          '/servers/{server_id}'),
    _rule('delete', base.PROJECT_MEMBER_OR_ADMIN, 'Delete a server', 'DELETE',
          '/servers/{server_id}'),
    policy.DocumentedRuleDefault(
        name='os_compute_api:os-extended-server-attributes', check_str=base.ADMIN,
        description='Show OS-EXT-SRV-ATTR attributes of a server',
        operations=[{'method': 'GET', 'path': '/servers/{server_id}'},
                    {'method': 'GET', 'path': '/servers/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name='os_compute_api:os-flavor-extra-specs:index', check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show flavor extra specs embedded in servers and flavors',
        operations=[{'method': 'GET', 'path': '/servers/{server_id}'},
                    {'method': 'GET', 'path': '/flavors/{flavor_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
