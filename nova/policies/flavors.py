"""Policies of the flavors resource."""

from oslo_policy import policy

from nova.policies import base

rules = [
    policy.DocumentedRuleDefault(
        name='os_compute_api:os-flavor-manage:create', check_str=base.ADMIN,
        description='Create a flavor', operations=[{'method': 'POST', 'path': '/flavors'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name='os_compute_api:os-flavor-manage:delete', check_str=base.ADMIN,
        description='Delete a flavor',
        operations=[{'method': 'DELETE', 'path': '/flavors/{flavor_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
