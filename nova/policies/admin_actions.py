"""Policies of reset state, diagnostics, backups and deferred delete (upstream names)."""

from oslo_policy import policy

from nova.policies import base

RESET_STATE = 'os_compute_api:os-admin-actions:reset_state'
INJECT_NETWORK_INFO = 'os_compute_api:os-admin-actions:inject_network_info'
DIAGNOSTICS = 'os_compute_api:os-server-diagnostics'
CREATE_BACKUP = 'os_compute_api:os-create-backup'
RESTORE = 'os_compute_api:os-deferred-delete:restore'
FORCE_DELETE = 'os_compute_api:os-deferred-delete:force'
_ACTION = '/servers/{server_id}/action'


def _rule(name, check, description, method='POST', path=_ACTION):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'method': method, 'path': path}], scope_types=['project'])


rules = [
    _rule(RESET_STATE, base.ADMIN, 'Reset the state of a server (os-resetState)'),
    _rule(INJECT_NETWORK_INFO, base.ADMIN,
          'Inject network information into a server (injectNetworkInfo)'),
    _rule(DIAGNOSTICS, base.ADMIN, 'Show the diagnostics of a server', 'GET',
          '/servers/{server_id}/diagnostics'),
    _rule(CREATE_BACKUP, base.PROJECT_MEMBER_OR_ADMIN, 'Back up a server (createBackup)'),
    _rule(RESTORE, base.PROJECT_MEMBER_OR_ADMIN, 'Restore a soft-deleted server (restore)'),
    _rule(FORCE_DELETE, base.PROJECT_MEMBER_OR_ADMIN,
          'Delete a server at once, skipping soft delete (forceDelete)'),
]


def list_rules():
    return rules
