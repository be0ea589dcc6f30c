"""Policies of os-quota-sets (upstream's names and defaults)."""

from oslo_policy import policy

from nova.policies import base

POLICY_ROOT = 'os_compute_api:os-quota-sets:%s'
SHOW = POLICY_ROOT % 'show'
DETAIL = POLICY_ROOT % 'detail'
DEFAULTS = POLICY_ROOT % 'defaults'
UPDATE = POLICY_ROOT % 'update'
DELETE = POLICY_ROOT % 'delete'

_PATH = '/os-quota-sets/{tenant_id}'

rules = [
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.ADMIN, description='Update the quotas',
        operations=[{'method': 'PUT', 'path': _PATH}], scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DEFAULTS, check_str=base.ANY, description='List default quotas',
        operations=[{'method': 'GET', 'path': _PATH + '/defaults'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.PROJECT_READER_OR_ADMIN, description='Show a quota',
        operations=[{'method': 'GET', 'path': _PATH}], scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.ADMIN, description='Revert quotas to defaults',
        operations=[{'method': 'DELETE', 'path': _PATH}], scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DETAIL, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show the detail of quota',
        operations=[{'method': 'GET', 'path': _PATH + '/detail'}],
        scope_types=['project']),
]


def list_rules():
    return rules
