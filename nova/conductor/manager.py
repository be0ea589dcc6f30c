"""Conductor: picks and claims a host for each new instance, then casts to its compute."""

import logging

import oslo_messaging as messaging

from nova import exception, failpoint
from nova import vm_states as vs
from nova.compute import actions
from nova.conductor import (
    compute_db,
    manager_live_migrate,
    manager_migrate,
    manager_shelve,
    reconcile,
)
from nova.conductor import scheduler as scheduler_mod

LOG = logging.getLogger(__name__)


class ConductorManager(reconcile.LostBuildsMixin, manager_shelve.ShelveMixin,
                       manager_migrate.MigrateMixin, manager_live_migrate.LiveMigrateMixin,
                       compute_db.ComputeDBMixin):
    target = messaging.Target(version='1.5')

    def __init__(self, conf, db, compute_rpcapi, host_verifier=None):
        self.conf = conf
        self.db = db
        self.compute_rpcapi = compute_rpcapi
        self.scheduler = scheduler_mod.Scheduler(conf, db)
        self.host_scoped_db = compute_db.HostScopedDB(db, conf.default_availability_zone)
        # Checks the compute hosts' signatures (nova.conductor.host_auth); None trusts them.
        self.host_verifier = host_verifier

    def build_instances(self, context, instances, image, request_spec):
        for instance in instances:
            try:
                self._schedule_one(context, instance, image, request_spec)
            except Exception:  # noqa: BLE001 - one bad instance must not stop the rest.
                LOG.exception('Scheduling %s failed', instance.uuid)

    def _schedule_one(self, context, instance, image, request_spec):
        flavor = instance.flavor.to_dict()
        try:
            with actions.event(self.db, context, instance.uuid,
                               'conductor_schedule_and_build_instances'):
                failpoint.hit('schedule.before_claim')
                node = self.scheduler.select_and_claim(
                    flavor, force_host=request_spec.get('force_host'),
                    image_props=(image or {}).get('properties'),
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
        instance.refresh_from(row)
        LOG.info('Instance %s scheduled to host %s', instance.uuid, node['host'])
        self.compute_rpcapi.build_and_run_instance(context, instance, node['host'], image,
                                                   request_spec)

    def _set_error(self, instance, exc):
        actions.record_fault(self.db, instance.uuid, exc)
        try:
            self.db.instance_update(instance.uuid, {'vm_state': vs.ERROR, 'task_state': None})
        except exception.InstanceNotFound:
            pass
