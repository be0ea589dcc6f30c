"""Conductor: pick and claim a new host for a server whose host is down, then cast to it."""

import logging

from nova import exception
from nova.compute import actions
from nova.conductor import rpc_target

LOG = logging.getLogger(__name__)


class EvacuateConductor:
    """Evacuation: a destination picked and claimed, then the rebuild cast to it."""

    target = rpc_target.TARGET

    def __init__(self, db, scheduler, compute_rpcapi):
        self.db = db
        self.scheduler = scheduler
        self.compute_rpcapi = compute_rpcapi

    def evacuate_server(self, context, instance, migration_id, request_spec):
        """No host fits: the migration ends in 'error' and the server stays as it was
        (its task cleared, a fault recorded), as upstream's conductor leaves it."""
        flavor = instance.flavor.to_dict()
        try:
            with actions.event(self.db, context, instance.uuid, 'conductor_rebuild_server'):
                node = self.scheduler.select_and_claim(
                    flavor, exclude=(instance.host,), force_host=request_spec.get('host'),
                    image_props=request_spec.get('image_properties'),
                    zone=None if request_spec.get('host') else
                    request_spec.get('availability_zone'),
                    group=request_spec.get('group'), exclude_instance=instance.uuid)
        except exception.NoValidHost as exc:
            LOG.info('No host to evacuate %s to: %s', instance.uuid, exc)
            self._refused(instance, migration_id, exc)
            return
        try:
            self.db.migration_update(migration_id, {
                'dest_compute': node['host'], 'dest_node': node['hypervisor_hostname'],
                'status': 'pre-migrating'}, expected_status=('accepted',))
        except exception.NovaException:
            # Deleted meanwhile: give the room back and stop.
            self.scheduler.release(node['host'], flavor)
            return
        LOG.info('Evacuating %s from %s to %s', instance.uuid, instance.host, node['host'])
        self.compute_rpcapi.evacuate_instance(
            context, instance, node['host'], migration_id,
            admin_password=request_spec.get('admin_password'),
            stopped=request_spec.get('stopped', False))

    def _refused(self, instance, migration_id, exc):
        actions.record_fault(self.db, instance.uuid, exc)
        self.db.migration_update(migration_id, {'status': 'error'})
        try:
            self.db.instance_update(instance.uuid, {'task_state': None},
                                    expected_task_state=['rebuilding'])
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            pass
