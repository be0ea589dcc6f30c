"""Compute manager: same-host resize, confirm, revert and auto-confirm, with claim moves."""

import datetime
import logging

from oslo_utils import timeutils

from nova import context as nova_context
from nova import exception
from nova import vm_states as vs
from nova.compute import actions, manager_core
from nova.compute import resources as usage
from nova.objects import image_meta as image_meta_obj
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)
OLD_VM_STATE = 'old_vm_state'
RESIZE_TASKS = ('resize_prep', 'resize_migrating', 'resize_migrated', 'resize_finish')


def flavor_values(flavor):
    """Instance columns that follow the flavor."""
    return {'flavor': flavor, 'vcpus': flavor['vcpus'], 'memory_mb': flavor['memory_mb'],
            'root_gb': flavor['root_gb'], 'ephemeral_gb': flavor['ephemeral_gb']}


def image_meta(instance):
    """The image metadata the instance boots with (from its system metadata)."""
    return image_meta_obj.ImageMeta.from_instance(instance)


def crosses_hosts(migration):
    """Whether a migration moves the server to another host (else: resize in place)."""
    return migration['dest_compute'] not in (None, migration['source_compute'])


class ResizeManager:
    """Resize on this host, confirm, revert and auto-confirm, with the claims they move.

    A move to another host is ``migrate``'s (``nova.compute.manager_migrate``):
    confirm and revert of one hand over to it.
    """

    target = manager_core.RPC_TARGET

    def __init__(self, core, migrate, compute_rpcapi):
        self.core = core
        self.conf = core.conf
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        self._migrate = migrate
        self.compute_rpcapi = compute_rpcapi

    def prep_resize(self, context, instance, migration_id):
        """Claim the new flavor, then resize in place (this host is the destination)."""
        with self.core.lock(instance.uuid):
            migration = self.conductor_db.migration_get(migration_id)
            new = migration['new_flavor']
            old_vm_state = instance.vm_state
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_prep_resize',
                                   host=self.host):
                    if not self.conf.allow_resize_to_same_host:
                        # No other host to move to: what upstream's scheduler says.
                        raise exception.NoValidHost(reason='No valid host found for resize')
                    if not self.conductor_db.compute_node_claim(
                            self.host, *usage.requested_resources(new)):
                        raise exception.NoValidHost(reason='No valid host found for resize')
                    self.conductor_db.migration_update(migration_id, {'status': 'migrating'})
            except Exception as exc:  # noqa: BLE001 - nothing changed yet: report and stop.
                LOG.info('Resize of %s refused: %s', instance.uuid, exc)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self.conductor_db.migration_update(migration_id, {'status': 'error'})
                self.core.finish_task(instance, old_vm_state)
                return
            try:
                self._resize_in_place(context, instance, migration, old_vm_state)
            except Exception as exc:  # noqa: BLE001 - rolled back below, recorded.
                LOG.exception('Resize of %s failed; reverting to the old flavor', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self._undo_resize(context, instance, migration, old_vm_state, 'error')

    def _resize_in_place(self, context, instance, migration, old_vm_state):
        uuid = instance.uuid
        with self.core.event(context, uuid, 'compute_resize_instance',
                           host=self.host):
            self.conductor_db.instance_update(uuid, {'task_state': 'resize_migrating'})
            self.driver.migrate_disk_and_power_off(context, instance, migration['new_flavor'],
                                                   timeout=self.conf.shutdown_timeout,
                                                   retry_interval=5)
            self.conductor_db.migration_update(migration['id'], {'status': 'post-migrating'})
            self.conductor_db.instance_update(uuid, {'task_state': 'resize_migrated'})
        with self.core.event(context, uuid, 'compute_finish_resize',
                           host=self.host):
            sysmeta = dict(instance.system_metadata or {}, **{OLD_VM_STATE: old_vm_state})
            row = self.conductor_db.instance_update(uuid,
                                                    dict(flavor_values(migration['new_flavor']),
                                                         task_state='resize_finish',
                                                         system_metadata=sysmeta))
            instance.refresh_from(row)
            self.driver.finish_migration(context, instance, image_meta(instance),
                                         self.core.block_device_info(context, instance),
                                         power_on=old_vm_state != vs.STOPPED)
            self.core.record_guest(instance)
            self.conductor_db.migration_update(migration['id'], {'status': 'finished'})
            self.conductor_db.instance_update(uuid, {
                'vm_state': vs.RESIZED, 'task_state': None,
                'power_state': self.core.power_state(instance)})

    def _undo_resize(self, context, instance, migration, old_vm_state, status):
        """Old flavor back on the instance and the guest; release the new claim."""
        row = self.conductor_db.instance_update(instance.uuid,
                                                flavor_values(migration['old_flavor']))
        instance.refresh_from(row)
        self.driver.finish_revert_migration(context, instance, image_meta(instance),
                                            self.core.block_device_info(context, instance),
                                            power_on=old_vm_state != vs.STOPPED)
        self.core.record_guest(instance)
        self.conductor_db.compute_node_release(
            self.host, *usage.requested_resources(migration['new_flavor']))
        self.conductor_db.migration_update(migration['id'], {'status': status})
        sysmeta = {k: v for k, v in (instance.system_metadata or {}).items()
                   if k != OLD_VM_STATE}
        self.conductor_db.instance_update(instance.uuid, {
            'vm_state': old_vm_state, 'task_state': None, 'system_metadata': sysmeta,
            'power_state': self.core.power_state(instance)})

    def confirm_resize(self, context, instance, migration_id):
        with self.core.lock(instance.uuid):
            migration = self.conductor_db.migration_get(migration_id)
            if crosses_hosts(migration) and \
                    migration['source_compute'] != self.host:
                # The auto-confirm of the destination: the source has the work.
                self.compute_rpcapi.confirm_resize(context, instance,
                                                   migration['source_compute'], migration_id)
                return
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_confirm_resize',
                                   host=self.host):
                    if crosses_hosts(migration):
                        self._migrate.confirm_on_source(context, instance, migration)
                    else:
                        self._confirm(context, instance, migration)
                if crosses_hosts(migration):
                    self.conductor_db.migration_update(migration_id, {'status': 'confirmed'})
            except Exception as exc:  # noqa: BLE001 - recorded; still VERIFY_RESIZE.
                LOG.exception('Confirming the resize of %s failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self.conductor_db.migration_update(migration_id, {'status': 'error'})

    def _confirm(self, context, instance, migration):
        self.driver.confirm_migration(context, migration, instance)
        self.conductor_db.compute_node_release(
            self.host, *usage.requested_resources(migration['old_flavor']))
        self.conductor_db.migration_update(migration['id'], {'status': 'confirmed'})
        row = self.conductor_db.instance_get(instance.uuid)
        sysmeta = dict(row['system_metadata'])
        old_vm_state = sysmeta.pop(OLD_VM_STATE, vs.ACTIVE)
        self.conductor_db.instance_update(instance.uuid, {
            'vm_state': vs.STOPPED if old_vm_state == vs.STOPPED else vs.ACTIVE,
            'task_state': None, 'system_metadata': sysmeta,
            'power_state': self.core.power_state(instance)})

    def revert_resize(self, context, instance, migration_id):
        with self.core.lock(instance.uuid):
            migration = self.conductor_db.migration_get(migration_id)
            old_vm_state = (instance.system_metadata or {}).get(OLD_VM_STATE, vs.ACTIVE)
            try:
                if crosses_hosts(migration):
                    self._migrate.revert_on_destination(context, instance, migration)
                    return
                with self.core.event(context, instance.uuid,
                                   'compute_revert_resize',
                                   host=self.host):
                    pass
                with self.core.event(context, instance.uuid,
                                   'compute_finish_revert_resize', host=self.host):
                    self._undo_resize(context, instance, migration, old_vm_state, 'reverted')
            except Exception as exc:  # noqa: BLE001 - recorded; the server is in ERROR.
                LOG.exception('Reverting the resize of %s failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self.conductor_db.migration_update(migration_id, {'status': 'error'})
                self.conductor_db.instance_update(instance.uuid, {'vm_state': vs.ERROR,
                                                                  'task_state': None})

    def drop_resize_on_delete(self, context, row):
        """Deleting a server in VERIFY_RESIZE confirms first, as upstream: one claim is left."""
        if row['vm_state'] != vs.RESIZED:
            return
        migration = self.conductor_db.migration_get_by_instance_and_status(
            row['uuid'], ('finished', 'confirming', 'reverting'))
        if migration is None:
            return
        if crosses_hosts(migration):
            # The source keeps the old guest's files and claim: it lets them go.
            self.conductor_db.migration_update(migration['id'], {'status': 'confirming'})
            self.compute_rpcapi.confirm_resize(context, instance_obj.Instance.from_db(row),
                                               migration['source_compute'], migration['id'])
            return
        self.driver.confirm_migration(context, migration, instance_obj.Instance.from_db(row))
        self.conductor_db.compute_node_release(
            self.host, *usage.requested_resources(migration['old_flavor']))
        self.conductor_db.migration_update(migration['id'], {'status': 'confirmed'})

    def reconcile_resize(self, context, row):
        """After a restart: finish or undo a resize the crash interrupted.

        Returns True when ``row`` was one (handled here).
        """
        task = row['task_state']
        if task not in RESIZE_TASKS and task != 'resize_reverting':
            return False
        migration = self.conductor_db.migration_get_by_instance_and_status(
            row['uuid'], ('pre-migrating', 'migrating', 'post-migrating', 'reverting'))
        instance = instance_obj.Instance.from_db(row)
        if migration is not None and crosses_hosts(migration):
            self._migrate.reconcile_migration(context, instance, migration)
            return True
        old_vm_state = (row['system_metadata'] or {}).get(OLD_VM_STATE) or (
            row['vm_state'] if row['vm_state'] != vs.RESIZED else vs.ACTIVE)
        if migration is None or migration['status'] == 'pre-migrating':
            if migration is not None:
                self.conductor_db.migration_update(migration['id'], {'status': 'error'})
            self.core.finish_task(instance, None)
        else:
            done = 'reverted' if migration['status'] == 'reverting' else 'error'
            self._undo_resize(context, instance, migration, old_vm_state, done)
        return True

    def poll_unconfirmed_resizes(self):
        """Confirm resizes left in VERIFY_RESIZE longer than [DEFAULT] resize_confirm_window."""
        window = self.conf.resize_confirm_window
        if window <= 0:
            return
        ctx = nova_context.get_admin_context()
        cutoff = timeutils.utcnow().replace(tzinfo=None, microsecond=0) - \
            datetime.timedelta(seconds=window)
        for migration in self.conductor_db.migrations_finished_before(self.host, cutoff):
            try:
                row = self.conductor_db.instance_get(migration['instance_uuid'])
                if row['vm_state'] != vs.RESIZED or row['task_state'] is not None:
                    continue
                self.conductor_db.migration_update(migration['id'], {'status': 'confirming'},
                                                   expected_status=('finished',))
            except (exception.InstanceNotFound, exception.Conflict):
                continue
            self.conductor_db.action_start(ctx, row['uuid'], 'confirmResize')
            self.confirm_resize(ctx, instance_obj.Instance.from_db(row), migration['id'])
