"""Request schemas of os-server-external-events, derived per microversion."""

import copy

from nova.api.schemas import types

create_v2_1 = {
    'type': 'object',
    'properties': {
        'events': {
            'type': 'array', 'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'server_uuid': types.uuid,
                    'name': {'type': 'string', 'enum': [
                        'network-changed', 'network-vif-plugged', 'network-vif-unplugged',
                        'network-vif-deleted']},
                    'status': {'type': 'string',
                               'enum': ['failed', 'completed', 'in-progress']},
                    'tag': {'type': 'string', 'maxLength': 255},
                },
                'required': ['server_uuid', 'name'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['events'],
    'additionalProperties': False,
}


def _with_event(schema, name):
    derived = copy.deepcopy(schema)
    derived['properties']['events']['items']['properties']['name']['enum'].append(name)
    return derived


# 2.51: volume-extended.
create_v2_51 = _with_event(create_v2_1, 'volume-extended')
# 2.76: power-update.
create_v2_76 = _with_event(create_v2_51, 'power-update')
# 2.82: accelerator-request-bound.
create_v2_82 = _with_event(create_v2_76, 'accelerator-request-bound')
# 2.93: volume-reimaged.
create_v2_93 = _with_event(create_v2_82, 'volume-reimaged')
