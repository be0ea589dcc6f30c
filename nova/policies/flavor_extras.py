"""Policies of flavor extra specs, flavor access and flavor update."""

from nova.policies import _helpers, base

SPECS = 'os_compute_api:os-flavor-extra-specs:%s'
ACCESS = 'os_compute_api:os-flavor-access'
UPDATE = 'os_compute_api:os-flavor-manage:update'
SPECS_SHOW = SPECS % 'show'
SPECS_CREATE = SPECS % 'create'
SPECS_UPDATE = SPECS % 'update'
SPECS_DELETE = SPECS % 'delete'
ACCESS_ADD = ACCESS + ':add_tenant_access'
ACCESS_REMOVE = ACCESS + ':remove_tenant_access'
_SPECS_PATH = '/flavors/{flavor_id}/os-extra_specs'

rules = [
    # ...:index is registered with the servers rules (it also gates extra_specs in bodies).
    _helpers.rule(SPECS_SHOW, base.PROJECT_READER_OR_ADMIN,
                  'Show an extra spec of a flavor', 'GET', _SPECS_PATH + '/{key}'),
    _helpers.rule(SPECS_CREATE, base.ADMIN, 'Create extra specs for a flavor', 'POST',
                  _SPECS_PATH),
    _helpers.rule(SPECS_UPDATE, base.ADMIN, 'Update an extra spec of a flavor', 'PUT',
                  _SPECS_PATH + '/{key}'),
    _helpers.rule(SPECS_DELETE, base.ADMIN, 'Delete an extra spec of a flavor',
                  'DELETE', _SPECS_PATH + '/{key}'),
    _helpers.rule(ACCESS, base.ADMIN, 'List projects with access to a private flavor',
                  'GET', '/flavors/{flavor_id}/os-flavor-access'),
    _helpers.rule(ACCESS_ADD, base.ADMIN,
                  'Add a project to a private flavor (addTenantAccess)', 'POST',
                  '/flavors/{flavor_id}/action'),
    _helpers.rule(ACCESS_REMOVE, base.ADMIN,
                  'Remove a project from a private flavor (removeTenantAccess)', 'POST',
                  '/flavors/{flavor_id}/action'),
    _helpers.rule(UPDATE, base.ADMIN, 'Update a flavor description (2.55)', 'PUT',
                  '/flavors/{flavor_id}'),
]


def list_rules():
    return rules
