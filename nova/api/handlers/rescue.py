"""The rescue and unrescue server actions (2.87 volume-backed, 2.106 property overrides)."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import rescue as schemas
from nova.policies import server_actions as policies


@validation.schema(schemas.rescue_v2_1, mv.MIN, mv.before(mv.RESCUE_PROPS_OVERRIDE))
@validation.schema(schemas.rescue_v2_106, mv.RESCUE_PROPS_OVERRIDE)
def rescue(req, server_id, body):
    spec = body['rescue'] or {}
    ctx = req.context
    instance = req.app.compute_api.servers.get(ctx, server_id)
    target = {'project_id': instance['project_id'], 'user_id': instance['user_id']}
    ctx.can(policies.RESCUE, target=target)
    if 'image_props_override' in spec:
        ctx.can(policies.RESCUE_IMAGE_PROPS_OVERRIDE, target=target)
    password = req.app.compute_api.rescue.rescue(
        ctx, instance, rescue_image_ref=spec.get('rescue_image_ref'),
        password=spec.get('adminPass'), overrides=spec.get('image_props_override'),
        allow_volume_backed=req.is_at_least(mv.RESCUE_VOLUME_BACKED))
    return wsgi.json_response({'adminPass': password} if password is not None else {})


@validation.schema(schemas.unrescue)
def unrescue(req, server_id, body):
    instance = req.app.compute_api.servers.get(req.context, server_id)
    req.context.can(policies.UNRESCUE, target={
        'project_id': instance['project_id'], 'user_id': instance['user_id']})
    req.app.compute_api.rescue.unrescue(req.context, instance)
    return wsgi.empty_response(202)
