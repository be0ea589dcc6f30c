"""Handlers of /flavors/{id}/os-extra_specs, /os-flavor-access and the flavor access actions."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import flavors as schemas
from nova.policies import flavor_extras as policies
from nova.policies import servers as server_policies


def _reader(req, policy):
    req.context.can(policy, target={'project_id': req.context.project_id})


def specs_index(req, flavor_id):
    _reader(req, server_policies.FLAVOR_EXTRA_SPECS_INDEX)
    specs = req.app.compute_api.flavors.flavor_extra_specs_get(req.context, flavor_id)
    return wsgi.json_response({'extra_specs': specs})


def specs_show(req, flavor_id, key):
    _reader(req, policies.SPECS_SHOW)
    specs = req.app.compute_api.flavors.flavor_extra_specs_get(req.context, flavor_id)
    if key not in specs:
        raise wsgi.fault(404, 'Flavor %s has no extra specs with key %s.' % (flavor_id, key))
    return wsgi.json_response({key: specs[key]})


@validation.schema(schemas.extra_specs_create)
def specs_create(req, flavor_id, body):
    req.context.can(policies.SPECS_CREATE, target={})
    specs = req.app.compute_api.flavors.flavor_extra_specs_set(
        req.context, flavor_id, body['extra_specs'],
        validate=req.is_at_least(mv.FLAVOR_EXTRA_SPECS_VALIDATION))
    return wsgi.json_response({'extra_specs': specs})


@validation.schema(schemas.extra_spec_update)
def specs_update(req, flavor_id, key, body):
    req.context.can(policies.SPECS_UPDATE, target={})
    if key not in body:
        raise wsgi.fault(400, 'Request body and URI mismatch')
    specs = req.app.compute_api.flavors.flavor_extra_specs_set(
        req.context, flavor_id, body,
        validate=req.is_at_least(mv.FLAVOR_EXTRA_SPECS_VALIDATION))
    return wsgi.json_response(specs)


def specs_delete(req, flavor_id, key):
    req.context.can(policies.SPECS_DELETE, target={})
    req.app.compute_api.flavors.flavor_extra_specs_delete(req.context, flavor_id, key)
    # Upstream answers 200 with an empty body here.
    return wsgi.empty_response(200)


def _access_body(flavor_id, projects):
    return {'flavor_access': [{'flavor_id': flavor_id, 'tenant_id': p} for p in projects]}


def access_index(req, flavor_id):
    req.context.can(policies.ACCESS, target={})
    projects = req.app.compute_api.flavors.flavor_access_list(req.context, flavor_id)
    return wsgi.json_response(_access_body(flavor_id, projects))


def add_tenant_access(req, flavor_id, body):
    req.context.can(policies.ACCESS_ADD, target={})
    return _add_tenant_access(req, flavor_id)


@validation.schema(schemas.add_tenant_access)
def _add_tenant_access(req, flavor_id, body):
    # From 2.7 a public flavor refuses an access list (409) instead of ignoring it.
    projects = req.app.compute_api.flavors.flavor_access_add(
        req.context, flavor_id, body['addTenantAccess']['tenant'],
        refuse_public=req.is_at_least(mv.FLAVOR_ACCESS_PUBLIC_CHECK))
    return wsgi.json_response(_access_body(flavor_id, projects))


def remove_tenant_access(req, flavor_id, body):
    req.context.can(policies.ACCESS_REMOVE, target={})
    return _remove_tenant_access(req, flavor_id)


@validation.schema(schemas.remove_tenant_access)
def _remove_tenant_access(req, flavor_id, body):
    projects = req.app.compute_api.flavors.flavor_access_remove(
        req.context, flavor_id, body['removeTenantAccess']['tenant'])
    return wsgi.json_response(_access_body(flavor_id, projects))


_ACTIONS = {'addTenantAccess': add_tenant_access, 'removeTenantAccess': remove_tenant_access}


def action(req, flavor_id):
    body = req.json_body()
    if not isinstance(body, dict) or len(body) != 1 or next(iter(body)) not in _ACTIONS:
        raise wsgi.fault(400, 'There is no such action: %s'
                         % (next(iter(body)) if isinstance(body, dict) and body else body))
    return _ACTIONS[next(iter(body))](req, flavor_id, body=body)
