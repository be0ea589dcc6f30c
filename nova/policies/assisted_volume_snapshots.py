"""Policy of os-assisted-volume-snapshots (upstream's names; empty target)."""

from oslo_policy import policy

from nova.policies import base

ROOT = 'os_compute_api:os-assisted-volume-snapshots:%s'
CREATE = ROOT % 'create'
DELETE = ROOT % 'delete'
# The volume service calls these with its own service user, as upstream expects;
# administrators keep access (the all-in-one's services authenticate as admins).
SERVICE_OR_ADMIN = 'role:service or ' + base.ADMIN

rules = [
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=SERVICE_OR_ADMIN,
        description='Create an assisted volume snapshot',
        operations=[{'method': 'POST', 'path': '/os-assisted-volume-snapshots'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=SERVICE_OR_ADMIN,
        description='Delete an assisted volume snapshot',
        operations=[{'method': 'DELETE',
                     'path': '/os-assisted-volume-snapshots/{snapshot_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
