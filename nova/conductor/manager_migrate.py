"""Conductor: pick and claim a destination for a cold migration or a resize to another host."""

import logging

from nova import exception
from nova.compute import actions
from nova.conductor import rpc_target

LOG = logging.getLogger(__name__)


class MigrateConductor:
    """Cold migration and resize to another host: the destination picked and claimed."""

    target = rpc_target.TARGET

    def __init__(self, db, scheduler, compute_rpcapi):
        self.db = db
        self.scheduler = scheduler
        self.compute_rpcapi = compute_rpcapi

    def migrate_server(self, context, instance, migration_id, request_spec):
        """Claim the new flavor on another host, then hand the move to the source host.

        No host fits: the migration ends in 'error' with a fault and the
        server is left as it was, as upstream's conductor leaves it.
        """
        migration = self.db.migration_get(migration_id)
        flavor = migration['new_flavor']
        cold = migration['migration_type'] == 'migration'
        try:
            with actions.event(self.db, context, instance.uuid, 'conductor_migrate_server'):
                with actions.event(self.db, context, instance.uuid, 'cold_migrate'):
                    node = self._pick_destination(instance, flavor, request_spec, cold)
        except exception.NoValidHost as exc:
            LOG.info('No destination for %s: %s', instance.uuid, exc)
            self._migration_refused(instance, migration_id, exc)
            return
        try:
            self.db.migration_update(migration_id, {
                'dest_compute': node['host'], 'dest_node': node['hypervisor_hostname']},
                expected_status=('pre-migrating',))
        except exception.NovaException:
            # Deleted or changed meanwhile: give the room back and stop.
            self.scheduler.release(node['host'], flavor)
            return
        LOG.info('Migrating %s from %s to %s', instance.uuid, instance.host, node['host'])
        self.compute_rpcapi.resize_instance(context, instance, instance.host, migration_id)

    def _pick_destination(self, instance, flavor, request_spec, cold):
        try:
            return self.scheduler.select_and_claim(
                flavor, exclude=(instance.host,), force_host=request_spec.get('host'),
                image_props=request_spec.get('image_properties'),
                zone=request_spec.get('availability_zone'),
                group=request_spec.get('group'),
                exclude_instance=instance.uuid)
        except exception.NoValidHost:
            reason = 'No valid host found for cold migrate' if cold else \
                'No valid host found for resize'
            raise exception.NoValidHost(reason=reason) from None

    def _migration_refused(self, instance, migration_id, exc):
        actions.record_fault(self.db, instance.uuid, exc)
        self.db.migration_update(migration_id, {'status': 'error'})
        try:
            self.db.instance_update(instance.uuid, {'task_state': None},
                                    expected_task_state=['resize_prep'])
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            pass
