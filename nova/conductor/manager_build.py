"""Conductor: picks and claims a host for each new instance, then casts its build there."""

import logging
import time

from nova import exception, failpoint, outage
from nova import vm_states as vs
from nova.compute import actions
from nova.conductor import rpc_target
from nova.image import sysmeta

LOG = logging.getLogger(__name__)
# Seconds between the tries to give back a claim the database did not take
# back at once (it restarts): about a minute in all.
RELEASE_RETRY = (1, 2, 4, 8, 15, 30)


class BuildConductor:
    """Schedules the instances of a create request, one host claimed for each."""

    target = rpc_target.TARGET

    def __init__(self, db, scheduler, compute_rpcapi):
        self.db = db
        self.scheduler = scheduler
        self.compute_rpcapi = compute_rpcapi

    def build_instances(self, context, instances, request_spec, image=None):
        """``image``: sent by senders before RPC 1.6 and not read. The image
        properties hosts are filtered on are the instance's own (its system
        metadata holds the image's, with the boot-time overrides merged)."""
        for instance in instances:
            try:
                self._schedule_one(context, instance, request_spec)
            except Exception as exc:  # noqa: BLE001 - one bad instance must not stop the rest.
                if outage.database_unavailable(exc):
                    # The lost build is failed by the lost-builds periodic.
                    LOG.warning('Scheduling %s stopped: the database is unavailable (%s)',
                                instance.uuid, exc.__class__.__name__)
                else:
                    LOG.exception('Scheduling %s failed', instance.uuid)

    def _schedule_one(self, context, instance, request_spec):
        flavor = instance.flavor.to_dict()
        image_props = sysmeta.sysmeta_to_image(instance.system_metadata)['properties']
        try:
            with actions.event(self.db, context, instance.uuid,
                               'conductor_schedule_and_build_instances'):
                failpoint.hit('schedule.before_claim')
                node = self.scheduler.select_and_claim(
                    flavor, force_host=request_spec.get('force_host'),
                    image_props=image_props,
                    zone=request_spec.get('availability_zone'),
                    group=request_spec.get('group'),
                    same_host=request_spec.get('same_host') or (),
                    different_host=request_spec.get('different_host') or ())
        except exception.NoValidHost as exc:
            self._set_error(instance, exc)
            return
        failpoint.hit('schedule.after_claim')
        try:
            # The server shows the zone of the host it landed on, as upstream.
            row = self.db.instance_update(
                instance.uuid, {'host': node['host'], 'node': node['hypervisor_hostname'],
                                'availability_zone': self.scheduler.host_zone(node['host'])},
                expected_task_state=[vs.SCHEDULING])
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            # Deleted while we scheduled: give the room back and stop.
            self.scheduler.release(node['host'], flavor)
            return
        except Exception:
            # The database went away between the claim and the placement: the
            # room goes back once it answers again, or no build ever uses it.
            self._release_when_back(node['host'], flavor)
            raise
        instance.refresh_from(row)
        LOG.info('Instance %s scheduled to host %s', instance.uuid, node['host'])
        self.compute_rpcapi.build_and_run_instance(context, instance, node['host'],
                                                   request_spec)

    def _release_when_back(self, host, flavor):
        for delay in (0,) + RELEASE_RETRY:
            time.sleep(delay)
            try:
                self.scheduler.release(host, flavor)
                return
            except Exception as exc:  # noqa: BLE001 - tried again below.
                if not outage.database_unavailable(exc):
                    LOG.exception('Could not give back the claim on %s', host)
                    return
        LOG.error('Could not give back a claim on %s: the database stayed unavailable; '
                  "the host's usage is recounted when its compute service restarts", host)

    def _set_error(self, instance, exc):
        actions.record_fault(self.db, instance.uuid, exc)
        try:
            self.db.instance_update(instance.uuid, {'vm_state': vs.ERROR, 'task_state': None})
        except exception.InstanceNotFound:
            pass
