"""Policies of the resize, cold migrate and shelve server actions (upstream's names)."""

from oslo_policy import policy

from nova.policies import base

MEMBER = base.PROJECT_MEMBER_OR_ADMIN
RESIZE = 'os_compute_api:servers:resize'
CONFIRM = 'os_compute_api:servers:confirm_resize'
REVERT = 'os_compute_api:servers:revert_resize'
MIGRATE = 'os_compute_api:os-migrate-server:migrate'
MIGRATE_HOST = 'os_compute_api:os-migrate-server:migrate:host'
SHELVE = 'os_compute_api:os-shelve:shelve'
OFFLOAD = 'os_compute_api:os-shelve:shelve_offload'
UNSHELVE = 'os_compute_api:os-shelve:unshelve'
UNSHELVE_HOST = 'os_compute_api:os-shelve:unshelve_to_host'


def _rule(name, check, description):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'method': 'POST', 'path': '/servers/{server_id}/action'}],
        scope_types=['project'])


rules = [
    _rule(RESIZE, MEMBER, 'Resize a server (resize)'),
    _rule(CONFIRM, MEMBER, 'Confirm a server resize (confirmResize)'),
    _rule(REVERT, MEMBER, 'Revert a server resize (revertResize)'),
    _rule(MIGRATE, base.ADMIN, 'Cold migrate a server (migrate)'),
    _rule(MIGRATE_HOST, base.ADMIN, 'Cold migrate a server to a named host (migrate, 2.56)'),
    _rule(SHELVE, MEMBER, 'Shelve a server (shelve)'),
    _rule(OFFLOAD, base.ADMIN, 'Offload a shelved server (shelveOffload)'),
    _rule(UNSHELVE, MEMBER, 'Unshelve a server (unshelve)'),
    _rule(UNSHELVE_HOST, base.ADMIN, 'Unshelve a shelved offloaded server to a named host '
                                     '(unshelve, 2.91)'),
]


def list_rules():
    return rules
