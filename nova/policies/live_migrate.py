"""Policies of the live migration server action (upstream's names)."""

from oslo_policy import policy

from nova.policies import base

MIGRATE_LIVE = 'os_compute_api:os-migrate-server:migrate_live'
MIGRATE_LIVE_HOST = 'os_compute_api:os-migrate-server:migrate_live:host'


def _rule(name, description):
    return policy.DocumentedRuleDefault(
        name=name, check_str=base.ADMIN, description=description,
        operations=[{'method': 'POST', 'path': '/servers/{server_id}/action'}],
        scope_types=['project'])


rules = [
    _rule(MIGRATE_LIVE, 'Live migrate a server (os-migrateLive)'),
    _rule(MIGRATE_LIVE_HOST, 'Live migrate a server to a named host (os-migrateLive)'),
]


def list_rules():
    return rules
