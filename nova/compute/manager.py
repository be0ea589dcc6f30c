"""Compute manager: runs on each hypervisor host and drives the virt driver."""

import logging

import oslo_messaging as messaging
from oslo_concurrency import lockutils
from oslo_utils import timeutils

from nova import exception, failpoint, power_state
from nova import vm_states as vs
from nova.compute import (
    actions,
    manager_admin,
    manager_consoles,
    manager_image,
    manager_live_migrate,
    manager_migrate,
    manager_password,
    manager_power,
    manager_reconcile,
    manager_rescue,
    manager_resize,
    manager_shelve,
    manager_volume_snapshots,
    manager_volumes,
    personality,
)
from nova.compute import manager_lifecycle as lifecycle
from nova.compute import resources as usage
from nova.notifications import action as notify
from nova.objects import image_meta as image_meta_obj

LOG = logging.getLogger(__name__)

class ComputeManager(manager_power.PowerMixin, manager_image.ImageMixin,
                     manager_volumes.VolumesMixin, manager_rescue.RescueMixin,
                     manager_admin.AdminMixin, manager_reconcile.ReconcileMixin,
                     lifecycle.LifecycleMixin, manager_consoles.ConsolesMixin,
                     manager_password.PasswordMixin, manager_resize.ResizeMixin,
                     manager_migrate.MigrateMixin, manager_live_migrate.LiveMigrateMixin,
                     manager_shelve.ShelveMixin,
                     manager_volume_snapshots.VolumeSnapshotsMixin):
    target = messaging.Target(version='1.5')

    def __init__(self, conf, db, driver, host=None, image_api=None, volume_api=None,
                 compute_rpcapi=None):
        self.conf = conf
        # Casts to the other host of a migration (nova.compute.manager_migrate).
        self.compute_rpcapi = compute_rpcapi
        self.volume_api = volume_api
        self.image_api = image_api
        self.conductor_db = db
        self.driver = driver
        self.host = host or conf.host
        # oslo.concurrency keeps a semaphore only while someone holds it.
        self._semaphores = lockutils.Semaphores()

    def _lock(self, uuid):
        """One operation at a time per instance on this host (a semaphore)."""
        return lockutils.internal_lock(uuid, semaphores=self._semaphores)

    # -- start-up and periodic work ---------------------------------------
    def init_host(self):
        self.driver.init_host(self.host)
        # Every row this host reads or writes comes through the conductor.
        self.conductor_db.wait_until_ready()
        # Listen before the start-up sync, so no change falls in between.
        self.start_lifecycle_events()
        self.update_available_resource()
        self._reconcile_on_start()
        self._recount_usage()

    def get_host_uptime(self, context):
        return self.driver.get_host_uptime()

    def update_available_resource(self):
        resources = dict(self.driver.get_available_resource())
        resources.update(
            cpu_allocation_ratio=self.conf.cpu_allocation_ratio,
            ram_allocation_ratio=self.conf.ram_allocation_ratio,
            disk_allocation_ratio=self.conf.disk_allocation_ratio,
            reserved_memory_mb=self.conf.reserved_host_memory_mb,
            reserved_disk_mb=self.conf.reserved_host_disk_mb)
        resources.setdefault('hypervisor_hostname', self.host)
        resources['capabilities'] = _capabilities(resources, self.driver)
        self.conductor_db.compute_node_update(self.host, resources)

    def _recount_usage(self):
        """Host usage from the instances actually here: no leaked claim survives a restart.

        Only at start-up: later, claims in flight (a host chosen, the
        instance not yet pointing at it) would be lost by a recount.
        """
        used = [0, 0, 0]
        # Whole seconds, as the migration rows' updated_at (abort_migration).
        self.usage_recounted_at = timeutils.utcnow().replace(tzinfo=None, microsecond=0)
        rows = self.conductor_db.instance_get_all({'host': self.host})
        extra, leaving = self.migration_usage({row['uuid'] for row in rows})
        flavors = [row['flavor'] for row in rows if row['flavor'] and row['uuid'] not in leaving]
        for flavor in flavors + extra:
            for i, amount in enumerate(usage.requested_resources(flavor)):
                used[i] += amount
        self.conductor_db.compute_node_set_usage(self.host, *used)

    def _reconcile_on_start(self):
        """Finish or roll back what a crash interrupted (manager_reconcile)."""
        self.reconcile_instances(startup=True)
        self.sync_power_states()

    # -- build ---------------------------------------------------------------
    @notify.instance_action('create', 'InstanceCreatePayload')
    def build_and_run_instance(self, context, instance, image, request_spec,
                               admin_password=None):
        with self._lock(instance.uuid):
            self._build(context, instance, image, admin_password,
                        injected_files=(request_spec or {}).get('injected_files'))

    def _build(self, context, instance, image, admin_password, injected_files=None):
        try:
            row = self.conductor_db.instance_update(instance.uuid, {'task_state': vs.SPAWNING},
                                                    expected_task_state=[vs.SCHEDULING])
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            # Deleted meanwhile: the delete path releases the claim.
            LOG.info('Instance %s went away before the build started', instance.uuid)
            return
        instance.refresh_from(row)
        LOG.info('Building instance %s', instance.uuid)
        try:
            with actions.event(self.conductor_db, context, instance.uuid,
                               'compute_build_and_run_instance', host=self.host):
                # Compare-and-swap: a delete arriving meanwhile wins.
                self.conductor_db.instance_update(instance.uuid,
                                                  {'task_state': vs.BLOCK_DEVICE_MAPPING},
                                                  expected_task_state=[vs.SPAWNING])
                self.prepare_volumes(context, instance)
                self.conductor_db.instance_update(instance.uuid, {'task_state': vs.SPAWNING},
                                                  expected_task_state=[vs.BLOCK_DEVICE_MAPPING])
                image_meta = image_meta_obj.ImageMeta.from_instance(instance)
                bdi = self.block_device_info(context, instance)
                # Names first (a conflict fails before any disk exists); spawn
                # computes the same mapping.
                self._record_devices(instance, image_meta, bdi)
                self.driver.spawn(context, instance, image_meta,
                                  injected_files=personality.decoded(injected_files),
                                  admin_password=admin_password, allocations=None,
                                  block_device_info=bdi)
                failpoint.hit('build.after_spawn')
                self.complete_volumes(context, instance)
        except Exception as exc:  # noqa: BLE001 - any failure is recorded, not raised.
            if not self._deleted_meanwhile(instance):
                LOG.exception('Build of %s failed', instance.uuid)
            self._build_failed(context, instance, exc)
            return
        now = timeutils.utcnow().replace(microsecond=0)
        try:
            self.conductor_db.instance_update(instance.uuid, {
                'vm_state': vs.ACTIVE, 'task_state': None, 'launched_at': now,
                'power_state': self.driver.get_info(instance).state},
                expected_task_state=[vs.SPAWNING])
            LOG.info('Instance %s built and running', instance.uuid)
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            # Deleted while spawning; the delete path cleans up the guest.
            LOG.info('Instance %s was deleted during spawn', instance.uuid)

    def _record_devices(self, instance, image_meta, bdi):
        """Keep the device names the driver chose, so they survive reboots."""
        names = self.driver.get_device_names(instance, image_meta, bdi)
        if names.get('root_device_name'):
            self.conductor_db.instance_update(instance.uuid,
                                              {'root_device_name': names['root_device_name']})
        by_key = dict(names.get('volumes') or {})
        ephemerals = names.get('ephemerals') or {}
        index = 0
        for bdm in self.bdms(instance.uuid):
            if bdm['destination_type'] != 'local' or bdm['source_type'] != 'blank':
                continue
            if bdm['guest_format'] == 'swap':
                by_key[bdm['uuid']] = names.get('swap')
            else:
                by_key[bdm['uuid']] = ephemerals.get(index)
                index += 1
        self.record_device_names(instance, {k: v for k, v in by_key.items() if v})

    def _deleted_meanwhile(self, instance):
        """True when this instance itself is gone or being deleted."""
        try:
            return self.conductor_db.instance_get(instance.uuid)['task_state'] == vs.DELETING
        except exception.InstanceNotFound:
            return True

    def _build_failed(self, context, instance, exc):
        if self._deleted_meanwhile(instance):
            # Deleted during the build: the delete path cleans up; not a failure.
            LOG.info('Instance %s was deleted during its build', instance.uuid)
            self.driver.destroy(context, instance, destroy_disks=True)
            return
        actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
        try:
            self.driver.destroy(context, instance, destroy_disks=True,
                                block_device_info=self.block_device_info(context, instance))
        except Exception:  # noqa: BLE001
            LOG.exception('Cleanup after failed build of %s failed', instance.uuid)
        try:
            # Leave the volumes available for the user, not stuck attaching.
            self.disconnect_volumes(context, instance)
        except Exception:  # noqa: BLE001
            LOG.exception('Volume cleanup after failed build of %s failed', instance.uuid)
        # The claim stays with the instance until it is deleted, like upstream
        # keeps an ERROR instance on its host; delete releases it exactly once.
        try:
            self.conductor_db.instance_update(instance.uuid, {'vm_state': vs.ERROR,
                                                              'task_state': None,
                                                              'power_state': power_state.NOSTATE})
        except exception.InstanceNotFound:
            pass

    def _release(self, flavor):
        self.conductor_db.compute_node_release(self.host, *usage.requested_resources(flavor))

    # -- delete --------------------------------------------------------------
    @notify.instance_action('delete')
    def terminate_instance(self, context, instance):
        with self._lock(instance.uuid):
            try:
                row = self.conductor_db.instance_get(instance.uuid)
            except exception.InstanceNotFound:
                return
            with actions.event(self.conductor_db, context, instance.uuid,
                               'compute_terminate_instance',
                               host=self.host):
                self._terminate(context, row)

    def _terminate(self, context, row):
        instance = _obj(row)
        self.drop_resize_on_delete(context, row)
        self.driver.destroy(context, instance, destroy_disks=True,
                            block_device_info=self.block_device_info(context, instance))
        failpoint.hit('delete.after_destroy')
        self.disconnect_volumes(context, instance, delete_volumes=True)
        self.conductor_db.instance_destroy(row['uuid'])
        self._release(row['flavor'])


def _capabilities(resources, driver):
    """What the scheduler's image-property filter needs to know about this host."""
    import json
    cpu_info = resources.get('cpu_info') or '{}'
    if isinstance(cpu_info, str):
        cpu_info = json.loads(cpu_info)
    from oslo_utils import netutils
    caps = {'arch': cpu_info.get('arch'), 'hypervisor_type': resources.get('hypervisor_type'),
            'cpus': resources.get('vcpus'), 'hugepages': resources.get('hugepages'),
            # Shown by os-hypervisors (cpu_info, host_ip) as upstream does.
            'cpu_info': cpu_info, 'host_ip': netutils.get_my_ipv4()}
    caps.update({k: v for k, v in getattr(driver, 'capabilities', {}).items()
                 if isinstance(v, (bool, int, str))})
    return caps


def _obj(row):
    from nova.objects import instance as instance_obj
    return instance_obj.Instance.from_db(row)
