"""Handlers of /servers/{id}/migrations: the live migration under way, its abort and completion."""

from nova import exception
from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.handlers import migrations
from nova.api.schemas import server_migrations as schemas
from nova.policies import live_migrate as policies
from nova.policies import usage as usage_policies


def _instance(req, server_id, policy):
    instance = req.app.compute_api.servers.get(req.context, server_id)
    req.context.can(policy, target={'project_id': instance['project_id']})
    return instance


def _id(server_id, migration_id):
    try:
        return int(migration_id)
    except ValueError:
        raise exception.NotFound('Migration %s for instance %s could not be found.'
                                 % (migration_id, server_id)) from None


def _view(req, migration):
    """One in-progress live migration as upstream's server migrations show it."""
    view = {k: migration[k] for k in ('id', 'status', 'source_node', 'source_compute',
                                      'dest_node', 'dest_compute', 'dest_host')}
    view['server_uuid'] = migration['instance_uuid']
    view['created_at'] = migrations._time(migration['created_at'])
    view['updated_at'] = migrations._time(migration['updated_at'])
    # libvirt's job counters are not kept on the migration record.
    for what in ('memory', 'disk'):
        for part in ('total', 'processed', 'remaining'):
            view['%s_%s_bytes' % (what, part)] = None
    if req.is_at_least(mv.MIGRATIONS_PAGINATION):
        view['uuid'] = migration['uuid']
    if req.is_at_least(mv.MIGRATIONS_USER_FILTERS):
        view['user_id'] = migration['user_id']
        view['project_id'] = migration['project_id']
    return view


def index(req, server_id):
    instance = _instance(req, server_id, usage_policies.SERVER_MIGRATIONS)
    rows = req.app.compute_api.live_migration.live_migrations_in_progress(req.context, instance)
    return wsgi.json_response({'migrations': [_view(req, row) for row in rows]})


def show(req, server_id, migration_id):
    instance = _instance(req, server_id, policies.SERVER_MIGRATION_SHOW)
    row = req.app.compute_api.live_migration.live_migration_in_progress(
        req.context, instance, _id(server_id, migration_id))
    return wsgi.json_response({'migration': _view(req, row)})


def delete(req, server_id, migration_id):
    instance = _instance(req, server_id, policies.SERVER_MIGRATION_DELETE)
    req.app.compute_api.live_migration.live_migration_abort(
        req.context, instance, _id(server_id, migration_id),
        cancel_queued=req.is_at_least(mv.LIVE_MIGRATE_ABORT_QUEUED))
    return wsgi.empty_response(202)


@validation.schema(schemas.force_complete, mv.LIVE_MIGRATE_FORCE_COMPLETE)
def action(req, server_id, migration_id, body):
    instance = _instance(req, server_id, policies.SERVER_MIGRATION_FORCE)
    req.app.compute_api.live_migration.live_migration_force_complete(req.context, instance,
                                                                     _id(server_id, migration_id))
    return wsgi.empty_response(202)
