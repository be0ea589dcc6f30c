"""Request schemas of os-server-groups, derived per microversion."""

import copy

from nova.api.schemas import types

create_v2_1 = {
    'type': 'object',
    'properties': {
        'server_group': {
            'type': 'object',
            'properties': {
                'name': types.name,
                # Exactly one policy, in a list, until 2.64 made it a string.
                'policies': {
                    'type': 'array',
                    'items': [{'type': 'string', 'enum': ['anti-affinity', 'affinity']}],
                    'uniqueItems': True, 'minItems': 1, 'maxItems': 1,
                    'additionalItems': False,
                },
            },
            'required': ['name', 'policies'],
            'additionalProperties': False,
        },
    },
    'required': ['server_group'],
    'additionalProperties': False,
}

# 2.15: the soft policies.
create_v2_15 = copy.deepcopy(create_v2_1)
create_v2_15['properties']['server_group']['properties']['policies']['items'][0][
    'enum'].extend(['soft-anti-affinity', 'soft-affinity'])

# 2.64: 'policy' (a string) and 'rules' replace 'policies'.
create_v2_64 = copy.deepcopy(create_v2_15)
_group = create_v2_64['properties']['server_group']
del _group['properties']['policies']
_group['required'] = ['name', 'policy']
_group['properties']['policy'] = {
    'type': 'string',
    'enum': ['anti-affinity', 'affinity', 'soft-anti-affinity', 'soft-affinity']}
_group['properties']['rules'] = {
    'type': 'object',
    'properties': {'max_server_per_host': types.positive_integer},
    'additionalProperties': False,
}

index_query = {'type': 'object', 'properties': {
    'all_projects': {'type': 'string'},
    'limit': {'type': 'string', 'pattern': '^[0-9]+$'},
    'offset': {'type': 'string', 'pattern': '^[0-9]+$'},
}}
