"""Policy of os-server-external-events (upstream's name)."""

from oslo_policy import policy

from nova.policies import base

CREATE = 'os_compute_api:os-server-external-events:create'

rules = [
    policy.DocumentedRuleDefault(
        # Upstream now expects the service role; administrators keep access here
        # because the all-in-one's other services authenticate as admins.
        name=CREATE, check_str='role:service or ' + base.ADMIN,
        description='Create one or more external events',
        operations=[{'method': 'POST', 'path': '/os-server-external-events'}],
        scope_types=['project']),
]


def list_rules():
    return rules
