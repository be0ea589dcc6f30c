"""Policies of os-keypairs: a user manages their own key pairs, admins anyone's."""

from nova.policies import _helpers, base

PREFIX = 'os_compute_api:os-keypairs:%s'
INDEX = PREFIX % 'index'
CREATE = PREFIX % 'create'
DELETE = PREFIX % 'delete'
SHOW = PREFIX % 'show'
ADMIN_OR_OWNER = '(%s) or user_id:%%(user_id)s' % base.ADMIN

rules = [
    _helpers.rule(INDEX, ADMIN_OR_OWNER, 'List all keypairs', 'GET',
                  '/os-keypairs'),
    _helpers.rule(CREATE, ADMIN_OR_OWNER, 'Create a keypair', 'POST',
                  '/os-keypairs'),
    _helpers.rule(DELETE, ADMIN_OR_OWNER, 'Delete a keypair', 'DELETE',
                  '/os-keypairs/{keypair_name}'),
    _helpers.rule(SHOW, ADMIN_OR_OWNER, 'Show details of a keypair', 'GET',
                  '/os-keypairs/{keypair_name}'),
]


def list_rules():
    return rules
