"""Conductor: place a shelved-offloaded server on a host again, then cast its unshelve."""

import logging

from nova import exception
from nova import vm_states as vs
from nova.compute import actions
from nova.conductor import rpc_target

LOG = logging.getLogger(__name__)


class ShelveConductor:
    """Unshelve of a shelved-offloaded server: a host claimed, then the cast to it."""

    target = rpc_target.TARGET

    def __init__(self, db, scheduler, compute_rpcapi):
        self.db = db
        self.scheduler = scheduler
        self.compute_rpcapi = compute_rpcapi

    def unshelve_instance(self, context, instance, request_spec):
        flavor = instance.flavor.to_dict()
        try:
            with actions.event(self.db, context, instance.uuid,
                               'conductor_unshelve_instance'):
                node = self.scheduler.select_and_claim(
                    flavor, force_host=request_spec.get('force_host'),
                    zone=request_spec.get('availability_zone'))
        except exception.NoValidHost as exc:
            # Upstream leaves the server shelved offloaded, with a fault.
            actions.record_fault(self.db, instance.uuid, exc)
            self._unshelve_failed(instance)
            return
        try:
            row = self.db.instance_update(
                instance.uuid, {'host': node['host'], 'node': node['hypervisor_hostname'],
                                'availability_zone': self.scheduler.host_zone(node['host'])},
                expected_task_state=['unshelving'])
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            self.scheduler.release(node['host'], flavor)
            return
        instance.refresh_from(row)
        self.compute_rpcapi.unshelve_instance(context, instance, node['host'])

    def _unshelve_failed(self, instance):
        try:
            self.db.instance_update(instance.uuid, {'task_state': None,
                                                    'vm_state': vs.SHELVED_OFFLOADED})
        except exception.InstanceNotFound:
            pass
