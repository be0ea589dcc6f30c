"""Request schemas of os-assisted-volume-snapshots (upstream's, per microversion)."""

import copy

create_v2_1 = {
    'type': 'object',
    'properties': {
        'snapshot': {
            'type': 'object',
            'properties': {
                'volume_id': {'type': 'string', 'minLength': 1},
                'create_info': {
                    'type': 'object',
                    'properties': {
                        'snapshot_id': {'type': 'string', 'minLength': 1},
                        'type': {'type': 'string', 'enum': ['qcow2']},
                        'new_file': {'type': 'string', 'minLength': 1},
                        'id': {'type': 'string', 'minLength': 1},
                    },
                    'required': ['snapshot_id', 'type', 'new_file'],
                    'additionalProperties': False,
                },
            },
            'required': ['volume_id', 'create_info'],
            'additionalProperties': False,
        },
    },
    'required': ['snapshot'],
    'additionalProperties': False,
}

# Unknown query parameters are ignored before 2.75.
delete_query_v2_1 = {
    'type': 'object',
    'properties': {'delete_info': {'type': 'string'}},
}
# 2.75: unknown query parameters are refused (validation's strict_from).
delete_query_v2_75 = copy.deepcopy(delete_query_v2_1)
