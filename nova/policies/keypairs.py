"""Policies of os-keypairs: a user manages their own key pairs, admins anyone's."""

from nova.policies import _helpers, base

PREFIX = 'os_compute_api:os-keypairs:%s'
ADMIN_OR_OWNER = '(%s) or user_id:%%(user_id)s' % base.ADMIN

rules = [
    _helpers.rule(PREFIX % 'index', ADMIN_OR_OWNER, 'List all keypairs', 'GET',
                  '/os-keypairs'),
    _helpers.rule(PREFIX % 'create', ADMIN_OR_OWNER, 'Create a keypair', 'POST',
                  '/os-keypairs'),
    _helpers.rule(PREFIX % 'delete', ADMIN_OR_OWNER, 'Delete a keypair', 'DELETE',
                  '/os-keypairs/{keypair_name}'),
    _helpers.rule(PREFIX % 'show', ADMIN_OR_OWNER, 'Show details of a keypair', 'GET',
                  '/os-keypairs/{keypair_name}'),
]


def list_rules():
    return rules
