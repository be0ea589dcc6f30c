"""Query schemas of GET /os-migrations."""

_filters = {k: {'type': 'string'} for k in (
    'hidden', 'host', 'instance_uuid', 'source_compute', 'status', 'migration_type')}
query_v2_1 = {'type': 'object', 'properties': _filters}
# 2.59: paging and changes-since, and unknown parameters are refused.
query_v2_59 = {'type': 'object', 'properties': dict(
    _filters, limit={'type': 'string', 'pattern': '^[0-9]+$'}, marker={'type': 'string'},
    **{'changes-since': {'type': 'string', 'format': 'date-time'}})}
# 2.66: changes-before.
query_v2_66 = {'type': 'object', 'properties': dict(
    query_v2_59['properties'], **{'changes-before': {'type': 'string',
                                                      'format': 'date-time'}})}
# 2.80: user_id and project_id filters.
query_v2_80 = {'type': 'object', 'properties': dict(
    query_v2_66['properties'], user_id={'type': 'string'}, project_id={'type': 'string'})}
