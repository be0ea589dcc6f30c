"""Handlers of /flavors: list, detail, show, and admin create/update/delete."""

from oslo_utils import strutils, uuidutils

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import flavors as schemas
from nova.api.views import flavors as views
from nova.policies import flavor_extras as extra_policies
from nova.policies import flavors as policies
from nova.policies import servers as server_policies


def _limit(req, params):
    ceiling = req.app.conf.api.max_limit
    return validation.clamp_int(params['limit'], ceiling) if 'limit' in params else ceiling


def _list(req, params):
    ctx = req.context
    is_public = True
    raw = params.get('is_public')
    if raw is not None:
        # 'None' (what openstackclient sends) means public and private alike.
        is_public = None if raw.lower() == 'none' else strutils.bool_from_string(raw, default=True)
    limit = _limit(req, params)
    flavors = req.app.compute_api.flavors.flavor_list(
        ctx, is_public=is_public,
        min_ram=(validation.clamp_int(params['minRam'], validation.MAX_INT)
                 if 'minRam' in params else None),
        min_disk=(validation.clamp_int(params['minDisk'], validation.MAX_INT)
                  if 'minDisk' in params else None),
        sort_key=params.get('sort_key', 'flavorid'), sort_dir=params.get('sort_dir', 'asc'),
        limit=limit, marker=params.get('marker'))
    return flavors, limit


def _show_extra_specs(req):
    return req.context.can(server_policies.FLAVOR_EXTRA_SPECS_INDEX, fatal=False)


@validation.query_schema(schemas.list_query, strict_from=mv.FULL_UPDATE_BODY)
def index(req, params):
    flavors, limit = _list(req, params)
    return wsgi.json_response(views.index(req, flavors, limit))


@validation.query_schema(schemas.list_query, strict_from=mv.FULL_UPDATE_BODY)
def detail(req, params):
    flavors, limit = _list(req, params)
    body = views.index(req, flavors, limit)
    extra = _show_extra_specs(req)
    body['flavors'] = [views.detail(req, f, extra) for f in flavors]
    return wsgi.json_response(body)


def show(req, flavor_id):
    flavor = req.app.compute_api.flavors.flavor_get(req.context, flavor_id)
    return wsgi.json_response({'flavor': views.detail(req, flavor, _show_extra_specs(req))})


def create(req):
    req.context.can(policies.CREATE, target={})
    return _create(req)


@validation.schema(schemas.create_v2_1, mv.MIN, mv.before(mv.FLAVOR_DESCRIPTION))
@validation.schema(schemas.create_v2_55, mv.FLAVOR_DESCRIPTION)
def _create(req, body):
    body = body['flavor']
    flavorid = body.get('id')
    flavor = req.app.compute_api.flavors.flavor_create(req.context, dict(
        flavorid=str(flavorid) if flavorid is not None else uuidutils.generate_uuid(),
        name=body['name'], vcpus=int(body['vcpus']), memory_mb=int(body['ram']),
        root_gb=int(body['disk']), ephemeral_gb=int(body.get('OS-FLV-EXT-DATA:ephemeral', 0)),
        swap=int(body.get('swap', 0) or 0), rxtx_factor=float(body.get('rxtx_factor', 1.0)),
        is_public=strutils.bool_from_string(body.get('os-flavor-access:is_public', True)),
        description=body.get('description')))
    return wsgi.json_response({'flavor': views.detail(req, flavor, _show_extra_specs(req))})


@validation.schema(schemas.update_v2_55, mv.FLAVOR_DESCRIPTION)
def update(req, flavor_id, body):
    req.context.can(extra_policies.UPDATE, target={})
    flavor = req.app.compute_api.flavors.flavor_update_description(
        req.context, flavor_id, body['flavor']['description'])
    return wsgi.json_response({'flavor': views.detail(req, flavor, _show_extra_specs(req))})


def delete(req, flavor_id):
    req.context.can(policies.DELETE, target={})
    req.app.compute_api.flavors.flavor_delete(req.context, flavor_id)
    return wsgi.empty_response(202)


