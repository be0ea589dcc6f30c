"""Handler of GET /os-migrations (resizes, migrations and live migrations)."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import migrations as schemas
from nova.api.views import common
from nova.compute import api_live_migrate
from nova.policies import usage as policies


@validation.query_schema(schemas.query_v2_1, max_version=mv.before(mv.MIGRATIONS_PAGINATION))
@validation.query_schema(schemas.query_v2_59, mv.MIGRATIONS_PAGINATION,
                         mv.before(mv.CHANGES_BEFORE), strict_from=mv.MIGRATIONS_PAGINATION)
@validation.query_schema(schemas.query_v2_66, mv.CHANGES_BEFORE,
                         mv.before(mv.MIGRATIONS_USER_FILTERS), strict_from=mv.CHANGES_BEFORE)
@validation.query_schema(schemas.query_v2_80, mv.MIGRATIONS_USER_FILTERS,
                         strict_from=mv.MIGRATIONS_USER_FILTERS)
def index(req, params):
    req.context.can(policies.MIGRATIONS, target={})
    filters = {k: params[k] for k in ('host', 'instance_uuid', 'source_compute', 'status',
                                      'migration_type', 'user_id', 'project_id') if k in params}
    # The schemas below 2.59 and 2.66 drop these unread, as upstream.
    filters.update(validation.changes_window(params))
    if 'hidden' in params:
        filters['hidden'] = params['hidden'].lower() in ('1', 'true', 'yes', 'on')
    else:
        filters['hidden'] = False
    paged = req.is_at_least(mv.MIGRATIONS_PAGINATION)
    limit = int(params['limit']) if paged and 'limit' in params else None
    marker = params.get('marker') if paged else None
    migrations = req.app.compute_api.resize.migration_list(req.context, filters, limit=limit,
                                                           marker=marker)
    body = {'migrations': [_view(req, m) for m in migrations]}
    if paged and limit is not None and migrations and len(migrations) == limit:
        body['migrations_links'] = [{
            'rel': 'next',
            'href': req.url_for('os-migrations') + '?limit=%d&marker=%s' % (
                limit, migrations[-1]['uuid'])}]
    return wsgi.json_response(body)


def _time(value):
    return value.strftime('%Y-%m-%dT%H:%M:%S.%f') if value is not None else None


def _view(req, migration):
    """One migration as upstream shows it at the request's microversion."""
    view = {k: migration[k] for k in (
        'id', 'status', 'instance_uuid', 'source_node', 'source_compute', 'dest_node',
        'dest_compute', 'dest_host', 'old_instance_type_id', 'new_instance_type_id')}
    view['created_at'] = _time(migration['created_at'])
    view['updated_at'] = _time(migration['updated_at'])
    if req.is_at_least(mv.MIGRATION_IDS):
        view['migration_type'] = migration['migration_type']
        # An in-progress live migration links to the server's migration.
        if migration['migration_type'] == 'live-migration' and \
                migration['status'] in api_live_migrate.IN_PROGRESS:
            view['links'] = common.links(req, 'servers', '%s/migrations/%s' % (
                migration['instance_uuid'], migration['id']))
    if req.is_at_least(mv.MIGRATIONS_PAGINATION):
        view['uuid'] = migration['uuid']
    if req.is_at_least(mv.MIGRATIONS_USER_FILTERS):
        view['user_id'] = migration['user_id']
        view['project_id'] = migration['project_id']
    return view
