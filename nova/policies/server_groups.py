"""Policies of os-server-groups, with upstream's names and defaults."""

from oslo_policy import policy

from nova.policies import base

POLICY_ROOT = 'os_compute_api:os-server-groups:%s'
CREATE = POLICY_ROOT % 'create'
DELETE = POLICY_ROOT % 'delete'
INDEX = POLICY_ROOT % 'index'
INDEX_ALL = POLICY_ROOT % 'index:all_projects'
SHOW = POLICY_ROOT % 'show'


def _rule(name, check, description, method, path):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'method': method, 'path': path}], scope_types=['project'])


rules = [
    _rule(CREATE, base.PROJECT_MEMBER, 'Create a new server group', 'POST',
          '/os-server-groups'),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN, 'Delete a server group', 'DELETE',
          '/os-server-groups/{server_group_id}'),
    _rule(INDEX, base.PROJECT_READER_OR_ADMIN, 'List all server groups', 'GET',
          '/os-server-groups'),
    _rule(INDEX_ALL, base.ADMIN, 'List all server groups for all projects', 'GET',
          '/os-server-groups'),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN, 'Show details of a server group', 'GET',
          '/os-server-groups/{server_group_id}'),
]


def list_rules():
    return rules
