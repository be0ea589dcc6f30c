"""The rescue and unrescue server actions (2.87 volume-backed, 2.106 property overrides)."""

import copy

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.policies import server_actions as policies

_rescue_v2_1 = {
    'type': 'object',
    'properties': {'rescue': {
        'type': ['object', 'null'],
        'properties': {'adminPass': {'type': 'string'},
                       'rescue_image_ref': {'type': 'string', 'format': 'uuid'}},
        'additionalProperties': False}},
    'required': ['rescue'], 'additionalProperties': False,
}
# 2.106: image_props_override for this rescue only.
_rescue_v2_106 = copy.deepcopy(_rescue_v2_1)
_rescue_v2_106['properties']['rescue']['properties']['image_props_override'] = {
    'type': 'object',
    'patternProperties': {r'^[a-zA-Z0-9_:.\-]{1,255}$': {'type': 'string', 'maxLength': 255}},
    'additionalProperties': False,
}
# tempest (and so other clients) send {"unrescue": {}}; upstream takes any value.
_unrescue = {'type': 'object', 'properties': {'unrescue': {'type': ['null', 'object']}},
             'required': ['unrescue'], 'additionalProperties': False}


def rescue(req, server_id, body):
    schema = _rescue_v2_106 if req.is_at_least(mv.RESCUE_PROPS_OVERRIDE) else _rescue_v2_1
    validation.validate(schema, body)
    spec = body['rescue'] or {}
    ctx = req.context
    instance = req.app.compute_api.get(ctx, server_id)
    target = {'project_id': instance['project_id'], 'user_id': instance['user_id']}
    ctx.can(policies.RESCUE, target=target)
    if 'image_props_override' in spec:
        ctx.can(policies.RESCUE_IMAGE_PROPS_OVERRIDE, target=target)
    password = req.app.compute_api.rescue(
        ctx, instance, rescue_image_ref=spec.get('rescue_image_ref'),
        password=spec.get('adminPass'), overrides=spec.get('image_props_override'),
        allow_volume_backed=req.is_at_least(mv.RESCUE_VOLUME_BACKED))
    return wsgi.json_response({'adminPass': password} if password is not None else {})


def unrescue(req, server_id, body):
    validation.validate(_unrescue, body)
    instance = req.app.compute_api.get(req.context, server_id)
    req.context.can(policies.UNRESCUE, target={
        'project_id': instance['project_id'], 'user_id': instance['user_id']})
    req.app.compute_api.unrescue(req.context, instance)
    return wsgi.empty_response(202)
