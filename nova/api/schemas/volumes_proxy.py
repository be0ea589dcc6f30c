"""Request schemas of the volume proxy os-volumes / os-snapshots (up to 2.35)."""

from nova.api.schemas import types

create_volume = {
    'type': 'object',
    'properties': {'volume': {
        'type': 'object',
        'properties': {
            'volume_type': {'type': 'string'}, 'metadata': {'type': 'object'},
            'snapshot_id': {'type': 'string'},
            'size': {'type': ['integer', 'string'], 'pattern': '^[0-9]+$', 'minimum': 1,
                     'maximum': 0x7FFFFFFF},
            'availability_zone': {'type': 'string'},
            'display_name': {'type': 'string'}, 'display_description': {'type': 'string'},
        },
        'required': ['size'], 'additionalProperties': False}},
    'required': ['volume'], 'additionalProperties': False,
}

create_snapshot = {
    'type': 'object',
    'properties': {'snapshot': {
        'type': 'object',
        'properties': {
            'volume_id': {'type': 'string'}, 'force': types.boolean,
            'display_name': {'type': 'string'}, 'display_description': {'type': 'string'},
        },
        'required': ['volume_id'], 'additionalProperties': False}},
    'required': ['snapshot'], 'additionalProperties': False,
}

list_query = {'type': 'object', 'properties': {
    'limit': {'type': 'string', 'pattern': '^[0-9]+$'},
    'offset': {'type': 'string', 'pattern': '^[0-9]+$'},
}}
