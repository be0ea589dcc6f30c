"""Request schemas of the rescue and unrescue server actions."""

import copy

rescue_v2_1 = {
    'type': 'object',
    'properties': {'rescue': {
        'type': ['object', 'null'],
        'properties': {'adminPass': {'type': 'string'},
                       'rescue_image_ref': {'type': 'string', 'format': 'uuid'}},
        'additionalProperties': False}},
    'required': ['rescue'], 'additionalProperties': False,
}
# 2.106: image_props_override for this rescue only.
rescue_v2_106 = copy.deepcopy(rescue_v2_1)
rescue_v2_106['properties']['rescue']['properties']['image_props_override'] = {
    'type': 'object',
    'patternProperties': {r'^[a-zA-Z0-9_:.\-]{1,255}$': {'type': 'string', 'maxLength': 255}},
    'additionalProperties': False,
}
# tempest (and so other clients) send {"unrescue": {}}; upstream takes any value.
unrescue = {'type': 'object', 'properties': {'unrescue': {'type': ['null', 'object']}},
             'required': ['unrescue'], 'additionalProperties': False}
