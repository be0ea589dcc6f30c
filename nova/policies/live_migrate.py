"""Policies of the live migration server action and of a server's migrations (upstream's names)."""

from oslo_policy import policy

from nova.policies import base

MIGRATE_LIVE = 'os_compute_api:os-migrate-server:migrate_live'
MIGRATE_LIVE_HOST = 'os_compute_api:os-migrate-server:migrate_live:host'
SERVER_MIGRATION_SHOW = 'os_compute_api:servers:migrations:show'
SERVER_MIGRATION_DELETE = 'os_compute_api:servers:migrations:delete'
SERVER_MIGRATION_FORCE = 'os_compute_api:servers:migrations:force_complete'


def _rule(name, description, method='POST', path='/servers/{server_id}/action'):
    return policy.DocumentedRuleDefault(
        name=name, check_str=base.ADMIN, description=description,
        operations=[{'method': method, 'path': path}], scope_types=['project'])


rules = [
    _rule(MIGRATE_LIVE, 'Live migrate a server (os-migrateLive)'),
    _rule(MIGRATE_LIVE_HOST, 'Live migrate a server to a named host (os-migrateLive)'),
    _rule(SERVER_MIGRATION_SHOW, 'Show an in-progress live migration of a server', 'GET',
          '/servers/{server_id}/migrations/{migration_id}'),
    _rule(SERVER_MIGRATION_DELETE, 'Abort an in-progress live migration of a server',
          'DELETE', '/servers/{server_id}/migrations/{migration_id}'),
    _rule(SERVER_MIGRATION_FORCE, 'Force an in-progress live migration of a server to '
          'complete', 'POST', '/servers/{server_id}/migrations/{migration_id}/action'),
]


def list_rules():
    return rules
