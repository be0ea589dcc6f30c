"""Policies of the flavors resource."""

from oslo_policy import policy

from nova.policies import base

CREATE = 'os_compute_api:os-flavor-manage:create'
DELETE = 'os_compute_api:os-flavor-manage:delete'

rules = [
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.ADMIN,
        description='Create a flavor', operations=[{'method': 'POST', 'path': '/flavors'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.ADMIN,
        description='Delete a flavor',
        operations=[{'method': 'DELETE', 'path': '/flavors/{flavor_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
