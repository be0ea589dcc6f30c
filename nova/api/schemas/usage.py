"""Query schemas of os-simple-tenant-usage."""

query_v2_1 = {'type': 'object', 'properties': {
    'start': {'type': 'string'}, 'end': {'type': 'string'}, 'detailed': {'type': 'string'}}}
# 2.40: marker/limit pagination.
query_v2_40 = {'type': 'object', 'properties': dict(
    query_v2_1['properties'], limit={'type': 'string', 'pattern': '^[0-9]+$'},
    marker={'type': 'string'})}
