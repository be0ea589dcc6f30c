"""Live migration in the compute API: upstream's checks, then the conductor's attempt.

The request is checked as upstream checks it (lock, state, named host). With no other
compute host, or the server's own host named, it fails here the way upstream's
conductor fails such an attempt: a migration in 'error', the action's event in 'Error',
a fault, the server unchanged. Otherwise the conductor picks (or takes the named) host,
claims it and asks both hosts (nova.conductor.manager_live_migrate); a refusal is
recorded the same way. Below 2.34 the request waits for those checks and answers 400
on a refusal; from 2.34 it answers 202 and fails afterwards.
"""

from nova import exception
from nova.compute import api_core, api_handoff, api_resize
from nova.objects import instance as instance_obj

ACTION = 'live-migration'
EVENT = 'conductor_live_migrate_instance'
# The conductor and compute RPC version live migration needs.
LIVE_RPC = '1.5'
# Statuses of a live migration under way, as upstream's server migrations list them.
IN_PROGRESS = ('queued', 'preparing', 'running', 'post-migrating')


def failure_reason(instance, host, compute_hosts):
    """The error upstream's conductor would raise for this request here."""
    if host == instance['host']:
        return exception.Invalid(
            reason='Unable to migrate instance (%s) to current host (%s).'
                   % (instance['uuid'], host))
    others = [h for h in compute_hosts if h != instance['host']]
    if not others:
        return exception.NoValidHost(reason='There are not enough hosts available.')
    return None


class LiveMigrateAPI:
    """Live migration: the attempt, the migration under way, aborting or forcing its end."""

    def __init__(self, db, conductor_api, compute_rpcapi):
        self._db = db
        self._conductor_api = conductor_api
        self._compute_rpcapi = compute_rpcapi
        self._handoff = api_handoff.HandoffAPI(db)

    def live_migrate(self, context, instance, host=None, async_=True):
        """Check, record the failed attempt; raise (400) when not async_."""
        api_core.check_locked(context, instance)
        api_core.check_state(instance, api_core.SPECS['os-migrateLive'])
        if host is not None and self._db.compute_node_get(host) is None:
            raise exception.Invalid(reason='Compute host %s could not be found.' % host)
        hosts = [svc['host'] for svc in self._db.service_get_all(binary='nova-compute')]
        exc = failure_reason(instance, host, hosts)
        if exc is None:
            return self._live_migrate_to_another_host(context, instance, host, async_)
        migration = self._live_migration_record(context, instance, host, 'error')
        self._db.action_start(context, instance['uuid'], ACTION)
        message = exc.format_message()
        event_id = self._db.event_start(instance['uuid'], context.request_id, EVENT)
        self._db.event_finish(event_id, 'Error', traceback=message)
        self._db.fault_create(instance['uuid'], 500, message, details=message)
        if not async_:
            raise exception.Invalid(reason=message)
        return migration

    def _live_migration_record(self, context, instance, host, status):
        """The migration row of this attempt (the flavor unchanged on both sides)."""
        flavor = instance['flavor']
        snapshot = api_resize.flavor_snapshot(flavor)
        return self._db.migration_create({
            'instance_uuid': instance['uuid'], 'status': status,
            'migration_type': 'live-migration', 'source_compute': instance['host'],
            'source_node': instance['node'], 'dest_compute': host,
            'old_instance_type_id': flavor.get('id'),
            'new_instance_type_id': flavor.get('id'), 'old_flavor': snapshot,
            'new_flavor': snapshot, 'user_id': context.user_id,
            'project_id': context.project_id})

    def _live_migrate_to_another_host(self, context, instance, host, async_):
        for client, topic in ((self._conductor_api.client, 'conductor'),
                              (self._compute_rpcapi.client, 'compute')):
            if not client.can_send_version(LIVE_RPC):
                exc = exception.RPCVersionPinned(
                    what='Live migration', topic=topic, needed=LIVE_RPC,
                    pin=client.version_cap)
                exc.code = 409
                raise exc
        migration = self._live_migration_record(context, instance, host, 'accepted')
        spec = api_core.SPECS['os-migrateLive']
        try:
            row = self._db.instance_update(
                instance['uuid'], {'task_state': 'migrating'}, expected_task_state=[None],
                expected_vm_state=list(spec.vm_states))
        except exception.UnexpectedTaskStateError:
            self._db.migration_update(migration['id'], {'status': 'error'})
            api_core.check_state(self._db.instance_get(instance['uuid']), spec)
            raise
        except Exception:
            self._db.migration_update(migration['id'], {'status': 'error'})
            raise
        action_id = self._db.action_start(context, instance['uuid'], ACTION)
        self._db.console_token_destroy_for_instance(instance['uuid'])
        inst = instance_obj.Instance.from_db(row)
        claim = api_handoff.Claim(instance['uuid'], ACTION, task_state='migrating',
                                  restore={'task_state': None}, action_id=action_id,
                                  undo=[lambda: self._db.migration_update(
                                      migration['id'], {'status': 'error'})])
        with self._handoff.sending(context, claim, 'nova-conductor'):
            error = self._conductor_api.live_migrate_instance(
                context, inst, migration['id'], host, wait=not async_)
        if async_:
            return migration
        if error:
            raise exception.Invalid(reason=error)
        return migration

    # -- /servers/{id}/migrations: the live migration under way -----------------------
    def live_migrations_in_progress(self, context, instance):
        row = self._db.migration_get_by_instance_and_status(instance['uuid'], IN_PROGRESS)
        if row is None or row['migration_type'] != 'live-migration':
            return []
        return [row]

    def live_migration_in_progress(self, context, instance, migration_id):
        """The server's live migration ``migration_id`` while under way; 404 otherwise."""
        for row in self.live_migrations_in_progress(context, instance):
            if row['id'] == migration_id:
                return row
        raise exception.NotFound('In-progress live migration %s is not found for server %s.'
                                 % (migration_id, instance['uuid']))

    def _own_migration(self, instance, migration_id, action, what, allowed):
        """The server's migration for ``what``: 404 unknown, 400 not live or wrong status."""
        api_core.check_state(instance, api_core.ActionSpec(
            action, None, ('migrating',), None))
        try:
            row = self._db.migration_get(migration_id)
        except exception.NotFound:
            row = None
        if row is None or row['instance_uuid'] != instance['uuid']:
            raise exception.NotFound('Migration %s for instance %s could not be found.'
                                     % (migration_id, instance['uuid']))
        if row['migration_type'] != 'live-migration':
            raise exception.Invalid(reason='Migration %s for instance %s is not a live '
                                           'migration.' % (migration_id, instance['uuid']))
        if row['status'] not in allowed:
            raise exception.Invalid(
                reason='Migration %s state of instance %s is %s. Cannot %s while the '
                       'migration is in this state.'
                       % (migration_id, instance['uuid'], row['status'], what))
        return row

    def live_migration_abort(self, context, instance, migration_id, cancel_queued=False):
        """Stop the move (2.24); ``cancel_queued`` (2.65) also one not running yet."""
        allowed = ('running', 'queued', 'preparing') if cancel_queued else ('running',)
        row = self._own_migration(instance, migration_id, 'live_migrate_abort',
                                  'abort live migration', allowed)
        if row['status'] in ('queued', 'preparing'):
            try:
                self._db.migration_update(migration_id, {'status': 'cancelled'},
                                          expected_status=('queued', 'preparing'))
                return
            except exception.Conflict:
                row = self._db.migration_get(migration_id)
                if row['status'] != 'running':
                    raise exception.Invalid(
                        reason='Migration %s state of instance %s is %s. Cannot abort live '
                               'migration while the migration is in this state.'
                               % (migration_id, instance['uuid'], row['status'])) from None
        self._db.action_start(context, instance['uuid'], 'live_migration_cancel')
        self._compute_rpcapi.live_migration_abort(context, instance_obj.Instance.from_db(
            instance), row['source_compute'], migration_id)

    def live_migration_force_complete(self, context, instance, migration_id):
        """Pause the guest so that the move ends (2.22); it resumes on the destination."""
        row = self._own_migration(instance, migration_id, 'live_migrate_force_complete',
                                  'force complete', ('running',))
        self._db.action_start(context, instance['uuid'], 'live_migration_force_complete')
        self._compute_rpcapi.live_migration_force_complete(
            context, instance_obj.Instance.from_db(instance), row['source_compute'],
            migration_id)
