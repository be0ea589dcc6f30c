"""Request bodies of the evacuate server action, per microversion (upstream's)."""

import copy

from nova.api.schemas import types

_host = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': '^[a-zA-Z0-9-._]*$'}


def _body(properties, required=()):
    return {'type': 'object',
            'properties': {'evacuate': {
                'type': 'object', 'properties': properties, 'required': list(required),
                'additionalProperties': False}},
            'required': ['evacuate'], 'additionalProperties': False}


evacuate = _body({'host': _host, 'onSharedStorage': types.boolean,
                  'adminPass': types.admin_password}, ['onSharedStorage'])
# 2.14: onSharedStorage gone (the host finds out); the password is always set.
evacuate_v2_14 = _body({'host': _host, 'adminPass': types.admin_password})
# 2.29: force (skip the scheduler's checks of the named host); 2.68 takes it away.
evacuate_v2_29 = copy.deepcopy(evacuate_v2_14)
evacuate_v2_29['properties']['evacuate']['properties']['force'] = types.boolean
evacuate_v2_68 = evacuate_v2_14
