"""Request schemas of os-keypairs, per microversion."""

import copy

from nova.api.schemas import types

# Upstream's safe characters: letters, digits, '_', '-' and space (2.92 adds '@' and '.'),
# with no leading or trailing whitespace.
_NAME_20 = {'allOf': [types.name, {'type': 'string', 'pattern': r'^[a-zA-Z0-9 _-]+$'}]}
_NAME_292 = {'allOf': [types.name, {'type': 'string', 'pattern': r'^[a-zA-Z0-9 @._-]+$'}]}

create_v2_1 = {
    'type': 'object',
    'properties': {
        'keypair': {
            'type': 'object',
            'properties': {
                'name': _NAME_20,
                'public_key': {'type': 'string'},
            },
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['keypair'],
    'additionalProperties': False,
}

# 2.2: key type.
create_v2_2 = copy.deepcopy(create_v2_1)
create_v2_2['properties']['keypair']['properties']['type'] = {
    'type': 'string', 'enum': ['ssh', 'x509']}

# 2.10: admins create key pairs for other users.
create_v2_10 = copy.deepcopy(create_v2_2)
create_v2_10['properties']['keypair']['properties']['user_id'] = {'type': 'string'}

# 2.92: import only (public_key required); '@' and '.' allowed in names.
create_v2_92 = copy.deepcopy(create_v2_10)
create_v2_92['properties']['keypair']['properties']['name'] = _NAME_292
create_v2_92['properties']['keypair']['required'] = ['name', 'public_key']

show_query_v2_1 = {'type': 'object', 'properties': {}}
# 2.10: user_id.
show_query_v2_10 = {'type': 'object', 'properties': {'user_id': {'type': 'string'}}}

index_query_v2_1 = show_query_v2_1
index_query_v2_10 = show_query_v2_10
# 2.35: pagination.
index_query_v2_35 = copy.deepcopy(index_query_v2_10)
index_query_v2_35['properties'].update({
    'limit': {'type': 'string', 'pattern': '^[0-9]+$'},
    'marker': {'type': 'string'},
})
