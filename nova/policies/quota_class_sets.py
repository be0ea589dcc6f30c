"""Policies of os-quota-class-sets (upstream's names and defaults)."""

from oslo_policy import policy

from nova.policies import base

POLICY_ROOT = 'os_compute_api:os-quota-class-sets:%s'
SHOW = POLICY_ROOT % 'show'
UPDATE = POLICY_ROOT % 'update'

_PATH = '/os-quota-class-sets/{quota_class}'

rules = [
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.ADMIN, description='List quotas for a quota class',
        operations=[{'method': 'GET', 'path': _PATH}], scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.ADMIN, description='Update quotas for specific quota class',
        operations=[{'method': 'PUT', 'path': _PATH}], scope_types=['project']),
]


def list_rules():
    return rules
