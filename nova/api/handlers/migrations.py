"""Handlers of GET /os-migrations and /servers/{id}/migrations: this service never migrates."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.policies import usage as policies

_filters = {k: {'type': 'string'} for k in (
    'hidden', 'host', 'instance_uuid', 'source_compute', 'status', 'migration_type')}
_query_v2_1 = {'type': 'object', 'properties': _filters}
# 2.59: paging and changes-since, and unknown parameters are refused.
_query_v2_59 = {'type': 'object', 'properties': dict(
    _filters, limit={'type': 'string', 'pattern': '^[0-9]+$'}, marker={'type': 'string'},
    **{'changes-since': {'type': 'string', 'format': 'date-time'}})}
# 2.66: changes-before.
_query_v2_66 = {'type': 'object', 'properties': dict(
    _query_v2_59['properties'], **{'changes-before': {'type': 'string',
                                                      'format': 'date-time'}})}
# 2.80: user_id and project_id filters.
_query_v2_80 = {'type': 'object', 'properties': dict(
    _query_v2_66['properties'], user_id={'type': 'string'}, project_id={'type': 'string'})}


@validation.query_schema(_query_v2_1, max_version=(2, 58))
@validation.query_schema(_query_v2_59, mv.MIGRATIONS_PAGINATION, (2, 65), strict_from=(2, 59))
@validation.query_schema(_query_v2_66, (2, 66), (2, 79), strict_from=(2, 66))
@validation.query_schema(_query_v2_80, (2, 80), strict_from=(2, 80))
def index(req, params):
    req.context.can(policies.MIGRATIONS, target={})
    marker = params.get('marker')
    if marker is not None and req.is_at_least(mv.MIGRATIONS_PAGINATION):
        # No migration exists, so no marker can name one.
        raise wsgi.fault(400, 'Marker %s could not be found.' % marker)
    return wsgi.json_response({'migrations': []})


def server_index(req, server_id):
    instance = req.app.compute_api.get(req.context, server_id)
    req.context.can(policies.SERVER_MIGRATIONS, target={'project_id': instance['project_id']})
    return wsgi.json_response({'migrations': []})
