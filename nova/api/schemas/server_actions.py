"""Request schemas of POST /servers/{id}/action, one per action key."""

import copy

from nova.api.schemas import servers, types

null_body = {'type': 'null'}

reboot = {
    'type': 'object',
    'properties': {'reboot': {
        'type': 'object',
        'properties': {'type': {'type': 'string',
                                'enum': ['HARD', 'Hard', 'hard', 'SOFT', 'Soft', 'soft']}},
        'required': ['type'], 'additionalProperties': False}},
    'required': ['reboot'], 'additionalProperties': False,
}

# 2.73: an optional reason.
lock_v2_73 = {
    'type': 'object',
    'properties': {'lock': {
        'type': ['object', 'null'],
        'properties': {'locked_reason': {'type': 'string', 'minLength': 1, 'maxLength': 255}},
        'additionalProperties': False}},
    'required': ['lock'], 'additionalProperties': False,
}

create_image = {
    'type': 'object',
    'properties': {'createImage': {
        'type': 'object',
        'properties': {'name': types.name, 'metadata': types.metadata},
        'required': ['name'], 'additionalProperties': False}},
    'required': ['createImage'], 'additionalProperties': False,
}

console_output = {
    'type': 'object',
    'properties': {'os-getConsoleOutput': {
        'type': 'object',
        'properties': {'length': {'type': ['integer', 'string', 'null'],
                                  'pattern': '^-?[0-9]+$', 'minimum': -1,
                                  'maximum': types.MAX_INT}},
        'additionalProperties': False}},
    'required': ['os-getConsoleOutput'], 'additionalProperties': False,
}

_rebuild_v2_1 = {
    'type': 'object',
    'properties': {
        'imageRef': {'type': 'string'}, 'name': types.name, 'adminPass': types.admin_password,
        'metadata': types.metadata, 'preserve_ephemeral': types.boolean,
        'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
        'accessIPv4': types.ipv4, 'accessIPv6': types.ipv6,
        'personality': types.personality,
    },
    'required': ['imageRef'], 'additionalProperties': False,
}
rebuild_v2_1 = {'type': 'object', 'properties': {'rebuild': _rebuild_v2_1},
                'required': ['rebuild'], 'additionalProperties': False}

# 2.19: description.
rebuild_v2_19 = copy.deepcopy(rebuild_v2_1)
rebuild_v2_19['properties']['rebuild']['properties']['description'] = types.description

# 2.54: key_name.
rebuild_v2_54 = copy.deepcopy(rebuild_v2_19)
rebuild_v2_54['properties']['rebuild']['properties']['key_name'] = {'type': ['string', 'null']}

# 2.57: user_data; personality removed.
rebuild_v2_57 = copy.deepcopy(rebuild_v2_54)
rebuild_v2_57['properties']['rebuild']['properties']['user_data'] = {
    'type': ['string', 'null'], 'format': 'base64', 'maxLength': 65535}
del rebuild_v2_57['properties']['rebuild']['properties']['personality']

# 2.63: trusted image certificates, as on create (null resets them).
rebuild_v2_63 = copy.deepcopy(rebuild_v2_57)
rebuild_v2_63['properties']['rebuild']['properties']['trusted_image_certificates'] = (
    copy.deepcopy(servers.create_v2_63['properties']['server']['properties'][
        'trusted_image_certificates']))

# 2.90: hostname.
rebuild_v2_90 = copy.deepcopy(rebuild_v2_63)
rebuild_v2_90['properties']['rebuild']['properties']['hostname'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255}


change_password = {
    'type': 'object',
    'properties': {'changePassword': {
        'type': 'object',
        'properties': {'adminPass': {'type': 'string'}},
        'required': ['adminPass'], 'additionalProperties': False}},
    'required': ['changePassword'], 'additionalProperties': False,
}
