"""Evacuate in the compute API: upstream's checks (its host is down), then the conductor."""

from nova import exception
from nova.compute import api_core, api_resize

# The conductor and compute RPC versions evacuation needs.
CONDUCTOR_RPC = '1.7'
COMPUTE_RPC = '1.8'


class EvacuateAPI:
    """Rebuild a server on another host when its own host's compute service is down.

    The migration record (type ``evacuation``) is also what the old host
    looks for when its compute service comes back: the guest and files it
    left there are removed then (nova.compute.manager_evacuate).
    """

    def __init__(self, db, conductor_api, compute_rpcapi, core, admin):
        self._db = db
        self._conductor_api = conductor_api
        self._compute_rpcapi = compute_rpcapi
        self._core = core
        self._admin = admin

    def evacuate(self, context, instance, host=None, admin_password=None, force=False,
                 stopped=False):
        """Check as upstream, record the migration, claim the task, cast to the conductor.

        ``stopped`` (2.95): the server arrives stopped; before, it arrives
        in the state it had (STOPPED stays STOPPED, ACTIVE or ERROR is ACTIVE).
        """
        if host is not None and self._db.compute_node_get(host) is None:
            raise exception.NotFound('Compute host %s not found.' % host)
        if host is not None and host == instance['host']:
            raise exception.Invalid(reason="The target host can't be the same one.")
        api_core.check_state(instance, api_core.SPECS['evacuate'])
        source = instance['host']
        service = next((s for s in self._db.service_get_all(binary='nova-compute')
                        if s['host'] == source), None)
        if service is not None and self._admin.service_is_up(service):
            raise exception.Invalid(reason='Compute service of %s is still in use.' % source)
        self._check_rpc()
        flavor = instance['flavor']
        snapshot = api_resize.flavor_snapshot(flavor)
        migration = self._db.migration_create({
            'instance_uuid': instance['uuid'], 'status': 'accepted',
            'migration_type': 'evacuation', 'source_compute': source,
            'source_node': instance['node'], 'dest_compute': host,
            'old_instance_type_id': flavor.get('id'), 'new_instance_type_id': flavor.get('id'),
            'old_flavor': snapshot, 'new_flavor': snapshot,
            'user_id': context.user_id, 'project_id': context.project_id})
        spec = api_resize.move_spec(self._db, instance, host)
        spec.update(force=bool(force), admin_password=admin_password, stopped=bool(stopped))
        with self._core.action(
                context, instance, 'evacuate', service='nova-conductor',
                undo=[lambda: self._db.migration_update(migration['id'],
                                                        {'status': 'error'})]) as inst:
            self._conductor_api.evacuate_server(context, inst, migration['id'], spec)
        return migration

    def _check_rpc(self):
        """409 before anything is written when an [upgrade_levels] pin forbids it."""
        for client, topic, needed in ((self._conductor_api.client, 'conductor', CONDUCTOR_RPC),
                                      (self._compute_rpcapi.client, 'compute', COMPUTE_RPC)):
            if not client.can_send_version(needed):
                exc = exception.RPCVersionPinned(what='Evacuation', topic=topic, needed=needed,
                                                 pin=client.version_cap)
                exc.code = 409
                raise exc
