"""Query schemas of GET /servers/{id}/os-instance-actions."""

# 2.58: pagination and changes-since; unknown parameters are refused.
list_query_v2_58 = {'type': 'object', 'properties': {
    'limit': {'type': 'string', 'pattern': '^[0-9]+$'},
    'marker': {'type': 'string'},
    'changes-since': {'type': 'string', 'format': 'date-time'},
}}
# 2.66: changes-before.
list_query_v2_66 = {'type': 'object', 'properties': dict(
    list_query_v2_58['properties'],
    **{'changes-before': {'type': 'string', 'format': 'date-time'}})}
