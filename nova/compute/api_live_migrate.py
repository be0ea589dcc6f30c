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
from nova.compute import api_actions, api_resize
from nova.compute import vm_states as vs
from nova.objects import instance as instance_obj

ACTION = 'live-migration'
EVENT = 'conductor_live_migrate_instance'
# The conductor and compute RPC version live migration needs.
LIVE_RPC = '1.5'

# Upstream's states: live migrate from ACTIVE or PAUSED, no task running.
api_actions.SPECS['os-migrateLive'] = api_actions.ActionSpec(
    'os-migrateLive', (vs.ACTIVE, vs.PAUSED), (None,), None)


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


class LiveMigrateMixin:
    """Mixed into compute.api.API."""

    def live_migrate(self, context, instance, host=None, async_=True):
        """Check, record the failed attempt; raise (400) when not async_."""
        self.check_locked(context, instance)
        api_actions.check_state(instance, api_actions.SPECS['os-migrateLive'])
        if host is not None and self.db.compute_node_get(host) is None:
            raise exception.Invalid(reason='Compute host %s could not be found.' % host)
        hosts = [svc['host'] for svc in self.db.service_get_all(binary='nova-compute')]
        exc = failure_reason(instance, host, hosts)
        if exc is None:
            return self._live_migrate_to_another_host(context, instance, host, async_)
        flavor = instance['flavor']
        snapshot = api_resize.flavor_snapshot(flavor)
        migration = self.db.migration_create({
            'instance_uuid': instance['uuid'], 'status': 'error',
            'migration_type': 'live-migration', 'source_compute': instance['host'],
            'source_node': instance['node'], 'dest_compute': host,
            'old_instance_type_id': flavor.get('id'),
            'new_instance_type_id': flavor.get('id'), 'old_flavor': snapshot,
            'new_flavor': snapshot, 'user_id': context.user_id,
            'project_id': context.project_id})
        self.db.action_start(context, instance['uuid'], ACTION)
        message = exc.format_message()
        event_id = self.db.event_start(instance['uuid'], context.request_id, EVENT)
        self.db.event_finish(event_id, 'Error', traceback=message)
        self.db.fault_create(instance['uuid'], 500, message, details=message)
        if not async_:
            raise exception.Invalid(reason=message)
        return migration

    def _live_migrate_to_another_host(self, context, instance, host, async_):
        for client, topic in ((self.conductor_api.client, 'conductor'),
                              (self.compute_rpcapi.client, 'compute')):
            if not client.can_send_version(LIVE_RPC):
                exc = exception.RPCVersionPinned(
                    what='Live migration', topic=topic, needed=LIVE_RPC,
                    pin=client.version_cap)
                exc.code = 409
                raise exc
        flavor = instance['flavor']
        snapshot = api_resize.flavor_snapshot(flavor)
        migration = self.db.migration_create({
            'instance_uuid': instance['uuid'], 'status': 'accepted',
            'migration_type': 'live-migration', 'source_compute': instance['host'],
            'source_node': instance['node'], 'dest_compute': host,
            'old_instance_type_id': flavor.get('id'),
            'new_instance_type_id': flavor.get('id'), 'old_flavor': snapshot,
            'new_flavor': snapshot, 'user_id': context.user_id,
            'project_id': context.project_id})
        spec = api_actions.SPECS['os-migrateLive']
        try:
            row = self.db.instance_update(
                instance['uuid'], {'task_state': 'migrating'}, expected_task_state=[None],
                expected_vm_state=list(spec.vm_states))
        except exception.UnexpectedTaskStateError:
            self.db.migration_update(migration['id'], {'status': 'error'})
            api_actions.check_state(self.db.instance_get(instance['uuid']), spec)
            raise
        except Exception:
            self.db.migration_update(migration['id'], {'status': 'error'})
            raise
        self.db.action_start(context, instance['uuid'], ACTION)
        inst = instance_obj.Instance.from_db(row)
        if async_:
            self.conductor_api.live_migrate_instance(context, inst, migration['id'], host)
            return migration
        error = self.conductor_api.live_migrate_instance(context, inst, migration['id'], host,
                                                         wait=True)
        if error:
            raise exception.Invalid(reason=error)
        return migration
