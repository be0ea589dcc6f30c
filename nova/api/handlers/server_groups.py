"""Handlers of /os-server-groups: create, list, show, delete."""

from nova import exception
from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import server_groups as schemas
from nova.api.views import server_groups as views
from nova.policies import server_groups as policies


def _get(req, group_id, policy):
    ctx = req.context
    group = req.app.compute_api.server_groups.server_group_get(ctx, group_id)
    target = {'project_id': group['project_id']}
    # Another project's group answers as an absent one (upstream says 403,
    # which tells that the id exists): doc/source/user/cross-project.rst.
    if group['project_id'] != ctx.project_id and not ctx.can(policy, target=target,
                                                             fatal=False):
        raise exception.InstanceGroupNotFound(group_uuid=group_id)
    ctx.can(policy, target=target)
    return group


def show(req, server_group_id):
    group = _get(req, server_group_id, policies.SHOW)
    return wsgi.json_response({'server_group': views.group(req, group)})


def delete(req, server_group_id):
    group = _get(req, server_group_id, policies.DELETE)
    req.app.compute_api.server_groups.server_group_delete(req.context, group)
    return wsgi.empty_response(204)


@validation.query_schema(schemas.index_query, strict_from=mv.FULL_UPDATE_BODY)
def index(req, params):
    ctx = req.context
    ctx.can(policies.INDEX, target={'project_id': ctx.project_id})
    all_projects = 'all_projects' in params
    if all_projects:
        ctx.can(policies.INDEX_ALL, target={'project_id': ctx.project_id})
    max_limit = req.app.conf.api.max_limit
    # Offset pagination, as upstream's common.limited: 0 or absent means max_limit.
    limit = min(int(params.get('limit') or max_limit), max_limit)
    groups = req.app.compute_api.server_groups.server_group_list(
        ctx, all_projects=all_projects, limit=limit, offset=int(params.get('offset') or 0))
    return wsgi.json_response({'server_groups': [views.group(req, g) for g in groups]})


@validation.schema(schemas.create_v2_1, max_version=mv.before(mv.SOFT_AFFINITY))
@validation.schema(schemas.create_v2_15, mv.SOFT_AFFINITY, mv.before(mv.SERVER_GROUP_POLICY))
@validation.schema(schemas.create_v2_64, mv.SERVER_GROUP_POLICY)
def create(req, body):
    ctx = req.context
    ctx.can(policies.CREATE, target={'project_id': ctx.project_id, 'user_id': ctx.user_id})
    spec = body['server_group']
    if req.is_at_least(mv.SERVER_GROUP_POLICY):
        policy = spec['policy']
        rules = {k: int(v) for k, v in (spec.get('rules') or {}).items()}
    else:
        policy, rules = spec['policies'][0], {}
    group = req.app.compute_api.server_groups.server_group_create(ctx, spec['name'], policy, rules)
    return wsgi.json_response({'server_group': views.group(req, group)})
