"""Live migration in the compute API: upstream's checks, then the attempt fails as recorded.

This service does not move a running guest between hosts. The request is checked as
upstream checks it (lock, state, named host) and then fails the way upstream's conductor
fails an attempt that finds no destination: a migration in 'error', the action's event
in 'Error', a fault, the server unchanged. Below 2.34 upstream runs those checks in the
request and answers 400; from 2.34 it answers 202 and fails afterwards.
"""

from nova import exception
from nova.compute import api_actions, api_resize
from nova.compute import vm_states as vs

ACTION = 'live-migration'
EVENT = 'conductor_live_migrate_instance'

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
    return exception.Invalid(reason='Migration pre-check error: this service does not '
                                    'live migrate servers between hosts.')


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
