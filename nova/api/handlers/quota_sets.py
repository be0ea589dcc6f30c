"""Handlers of /os-quota-sets/{project_id}: show, detail, defaults, update and delete."""

from oslo_utils import strutils

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import quotas as schemas
from nova.api.views import quotas as views
from nova.policies import quota_sets as policies

_query = validation.query_schema(schemas.query_v2_1, strict_from=mv.FULL_UPDATE_BODY)


def _engine(req):
    return req.app.compute_api.quota


@_query
def show(req, project_id, params):
    req.context.can(policies.SHOW, target={'project_id': project_id})
    values = _engine(req).get_quotas(project_id, params.get('user_id'))
    return wsgi.json_response(views.quota_set(req, values, project_id))


@_query
def detail(req, project_id, params):
    req.context.can(policies.DETAIL, target={'project_id': project_id})
    values = _engine(req).get_quotas(project_id, params.get('user_id'), usages=True)
    return wsgi.json_response(views.quota_set(req, values, project_id))


def defaults(req, project_id):
    req.context.can(policies.DEFAULTS, target={'project_id': project_id})
    return wsgi.json_response(views.quota_set(req, _engine(req).defaults(), project_id))


@validation.schema(schemas.update_v2_1, mv.MIN, mv.before(mv.NETWORK_QUOTAS_REMOVED))
@validation.schema(schemas.update_v2_36, mv.NETWORK_QUOTAS_REMOVED,
                   mv.before(mv.PERSONALITY_REMOVED))
@validation.schema(schemas.update_v2_57, mv.PERSONALITY_REMOVED)
@_query
def update(req, project_id, body, params):
    ctx = req.context
    ctx.can(policies.UPDATE, target={'project_id': project_id})
    user_id = params.get('user_id')
    quota_set = body['quota_set']
    # Only nova-network ever used it; the schema takes it so the refusal is explicit.
    if 'networks' in quota_set:
        raise wsgi.fault(400, 'The networks quota has been removed')
    force = strutils.bool_from_string(quota_set.get('force', False))
    values = {k: int(v) for k, v in quota_set.items() if k != 'force'}
    _engine(req).update(ctx, project_id, values, user_id=user_id, force=force)
    # No id in the update response, as upstream.
    return wsgi.json_response(views.quota_set(req, _engine(req).get_quotas(project_id,
                                                                           user_id)))


@_query
def delete(req, project_id, params):
    ctx = req.context
    ctx.can(policies.DELETE, target={'project_id': project_id})
    _engine(req).delete(ctx, project_id, user_id=params.get('user_id'))
    return wsgi.empty_response(202)
