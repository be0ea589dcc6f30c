"""Compute manager: diagnostics, backups with rotation, soft delete, restore and reclaim."""

import datetime
import logging

from oslo_utils import timeutils

from nova import context as nova_context
from nova import exception, power_state
from nova import vm_states as vs
from nova.compute import actions, manager_core, manager_interfaces
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)


class AdminManager:
    """Diagnostics, backups with rotation, soft delete and restore, and power-update events."""

    target = manager_core.RPC_TARGET

    def __init__(self, core, image_api, images, build, interfaces):
        self.core = core
        self.conf = core.conf
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        self.image_api = image_api
        # A backup is a snapshot (notified as one); a reclaim is a delete.
        self._images = images
        self._build = build
        # network-* events: the ports of the server (manager_interfaces).
        self._interfaces = interfaces

    def get_diagnostics(self, context, instance, standard=False):
        state = self.core.power_state(instance)
        if state != power_state.RUNNING:
            raise exception.InstanceInvalidState(
                action='get_diagnostics', instance_uuid=instance.uuid, attr='power state',
                state=power_state.STATE_MAP.get(state, 'pending'))
        if standard:
            return self.driver.get_instance_diagnostics(instance)
        return self.driver.get_diagnostics(instance)

    def backup_instance(self, context, instance, image_id, backup_type, rotation):
        """A snapshot typed 'backup', then the oldest backups beyond ``rotation`` go."""
        self._images.snapshot_instance(context, instance, image_id)
        try:
            self._rotate_backups(context, instance, backup_type, rotation)
        except Exception:  # noqa: BLE001 - the new backup stands; rotation retries next time.
            LOG.exception('Rotating the %s backups of %s failed', backup_type, instance.uuid)

    def _rotate_backups(self, context, instance, backup_type, rotation):
        images = self.image_api.list(context, image_type='backup', backup_type=backup_type,
                                     instance_uuid=instance.uuid, sort_key='created_at',
                                     sort_dir='desc')
        for image in images[rotation:]:
            LOG.info('Deleting backup %s of %s (rotation %d)', image['id'], instance.uuid,
                     rotation)
            try:
                self.image_api.delete(context, image['id'])
            except exception.ImageNotFound:
                pass

    def soft_delete_instance(self, context, instance):
        with self.core.lock(instance.uuid):
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_soft_delete_instance', host=self.host):
                    self.driver.power_off(instance, timeout=self.conf.shutdown_timeout,
                                          retry_interval=5)
            except Exception as exc:  # noqa: BLE001 - recorded; still deletable/restorable.
                LOG.exception('Soft delete of %s failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
            self._set_soft_state(instance, vs.SOFT_DELETED, [vs.SOFT_DELETING])

    def restore_instance(self, context, instance):
        with self.core.lock(instance.uuid):
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_restore_instance', host=self.host):
                    self.driver.power_on(context, instance, None,
                                         block_device_info=self.core.block_device_info(
                                             context, instance))
            except Exception as exc:  # noqa: BLE001 - recorded; the server stays stopped.
                LOG.exception('Restore of %s failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self._set_soft_state(instance, vs.STOPPED, [vs.RESTORING])
                return
            self._set_soft_state(instance, vs.ACTIVE, [vs.RESTORING])

    def _set_soft_state(self, instance, vm_state, expected):
        try:
            self.conductor_db.instance_update(instance.uuid, {
                'vm_state': vm_state, 'task_state': None,
                'power_state': self.core.power_state(instance)}, expected_task_state=expected)
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            # A forceDelete won meanwhile: it owns the instance now.
            LOG.info('Instance %s changed while its soft delete/restore ran', instance.uuid)

    def reclaim_queued_deletes(self):
        """Delete this host's SOFT_DELETED servers older than reclaim_instance_interval."""
        interval = self.conf.reclaim_instance_interval
        if interval <= 0:
            return
        # As the database stores it: naive UTC, whole seconds.
        cutoff = timeutils.utcnow().replace(microsecond=0) - datetime.timedelta(seconds=interval)
        ctx = nova_context.get_admin_context()
        for row in self.conductor_db.instance_get_all({'host': self.host,
                                                       'vm_state': vs.SOFT_DELETED,
                                                       'task_state': None}):
            if row['deleted_at'] is None or row['deleted_at'] > cutoff:
                continue
            try:
                # Claim it first: a restore or forceDelete arriving now must not race us.
                self.conductor_db.instance_update(row['uuid'], {'task_state': vs.DELETING},
                                                  expected_task_state=[None],
                                                  expected_vm_state=[vs.SOFT_DELETED])
            except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
                continue
            LOG.info('Reclaiming soft-deleted instance %s', row['uuid'])
            self._build.terminate_instance(ctx, instance_obj.Instance.from_db(row))

    def external_instance_event(self, context, instance, events):
        """Events from other services: power-update (the hypervisor's view wins)
        and Neutron's network-* events (manager_interfaces); without host-side
        volume resizing here, the others change nothing."""
        for event in events:
            LOG.info('Received event %s:%s for instance %s', event['name'],
                     event.get('tag'), instance.uuid)
            if event['name'] == 'power-update':
                self._power_update(instance, event.get('tag'))
            elif event['name'] in manager_interfaces.NETWORK_EVENTS:
                self._interfaces.handle_event(context, instance, event)

    def _power_update(self, instance, tag):
        if tag not in ('POWER_ON', 'POWER_OFF'):
            LOG.warning('Ignoring power-update with tag %s for %s', tag, instance.uuid)
            return
        state = self.core.power_state(instance)
        values = {'power_state': state}
        if tag == 'POWER_OFF' and state != power_state.RUNNING:
            values['vm_state'] = vs.STOPPED
        elif tag == 'POWER_ON' and state == power_state.RUNNING:
            values['vm_state'] = vs.ACTIVE
        try:
            self.conductor_db.instance_update(instance.uuid, values, expected_task_state=[None],
                                              expected_vm_state=[vs.ACTIVE, vs.STOPPED])
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            LOG.info('Instance %s is busy; power-update ignored', instance.uuid)
