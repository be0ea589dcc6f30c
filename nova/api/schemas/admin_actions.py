"""Request schemas of os-resetState, createBackup, restore and forceDelete."""

from nova.api.schemas import types

reset_state = {
    'type': 'object',
    'properties': {'os-resetState': {
        'type': 'object',
        'properties': {'state': {'type': 'string', 'enum': ['active', 'error']}},
        'required': ['state'], 'additionalProperties': False}},
    'required': ['os-resetState'], 'additionalProperties': False,
}

create_backup = {
    'type': 'object',
    'properties': {'createBackup': {
        'type': 'object',
        'properties': {
            'name': types.name,
            'backup_type': {'type': 'string'},
            'rotation': types.non_negative_integer,
            'metadata': types.metadata,
        },
        'required': ['name', 'backup_type', 'rotation'], 'additionalProperties': False}},
    'required': ['createBackup'], 'additionalProperties': False,
}

# restore and forceDelete take null (or anything) as their value, as upstream.
restore = {'type': 'object', 'properties': {'restore': {}}, 'required': ['restore'],
           'additionalProperties': False}
force_delete = {'type': 'object', 'properties': {'forceDelete': {}},
                'required': ['forceDelete'], 'additionalProperties': False}

inject_network_info = {'type': 'object', 'properties': {'injectNetworkInfo': {}},
                       'required': ['injectNetworkInfo'], 'additionalProperties': False}
