"""Handlers of /os-quota-class-sets/{id}: the limits of a quota class ("default")."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import quotas as schemas
from nova.api.views import quotas as views
from nova.policies import quota_class_sets as policies


def show(req, class_name):
    req.context.can(policies.SHOW, target={'quota_class': class_name})
    values = req.app.compute_api.quota.class_limits(class_name)
    return wsgi.json_response(views.quota_class_set(req, values, class_name))


@validation.schema(schemas.class_update_v2_1, mv.MIN, mv.before(mv.QUOTA_CLASS_SERVER_GROUPS))
@validation.schema(schemas.class_update_v2_50, mv.QUOTA_CLASS_SERVER_GROUPS,
                   mv.before(mv.PERSONALITY_REMOVED))
@validation.schema(schemas.class_update_v2_57, mv.PERSONALITY_REMOVED)
def update(req, class_name, body):
    ctx = req.context
    ctx.can(policies.UPDATE, target={'quota_class': class_name})
    values = body['quota_class_set']
    if 'networks' in values:
        raise wsgi.fault(400, 'The networks quota has been removed')
    engine = req.app.compute_api.quota
    engine.update_class(ctx, class_name, {k: int(v) for k, v in values.items()})
    # No id in the update response, as upstream.
    return wsgi.json_response(views.quota_class_set(req, engine.class_limits(class_name)))
