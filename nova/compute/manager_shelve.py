"""Compute manager: shelve (snapshot, stop), offload (free the host) and unshelve."""

import datetime
import logging

from oslo_utils import timeutils

from nova import context as nova_context
from nova import exception
from nova.compute import actions, power_state
from nova.compute import vm_states as vs
from nova.objects import image_meta as image_meta_obj
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)
SHELVE_KEYS = ('shelved_at', 'shelved_image_id', 'shelved_host')


class ShelveMixin:
    """Mixed into ComputeManager."""

    def shelve_instance(self, context, instance, image_id):
        with self._lock(instance.uuid):
            previous = instance.vm_state
            try:
                with actions.event(self.conductor_db, context, instance.uuid,
                                   'compute_shelve_instance',
                                   host=self.host):
                    self.conductor_db.instance_update(
                        instance.uuid, {'task_state': 'shelving_image_pending_upload'})
                    self.driver.power_off(instance, timeout=self.conf.shutdown_timeout,
                                          retry_interval=5)
                    self.conductor_db.instance_update(instance.uuid,
                                                      {'task_state': 'shelving_image_uploading'})
                    self._snapshot(context, instance, image_id)
            except Exception as exc:  # noqa: BLE001 - the server stays as it was.
                LOG.exception('Shelve of %s failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self._delete_image(context, image_id)
                self._finish_task(instance, previous if previous != vs.ACTIVE else vs.STOPPED)
                return
            self._mark_shelved(instance, image_id)
            if self.conf.shelved_offload_time == 0:
                self._shelve_offload(context, instance)

    def _mark_shelved(self, instance, image_id):
        row = self.conductor_db.instance_get(instance.uuid)
        sysmeta = dict(row['system_metadata'],
                       shelved_at=timeutils.utcnow().replace(microsecond=0).isoformat(),
                       shelved_image_id=image_id, shelved_host=self.host)
        row = self.conductor_db.instance_update(instance.uuid, {
            'vm_state': vs.SHELVED, 'task_state': None, 'system_metadata': sysmeta,
            'power_state': self._power_state(instance)})
        instance.refresh_from(row)

    def shelve_offload_instance(self, context, instance):
        with self._lock(instance.uuid):
            if instance.vm_state != vs.SHELVED:
                # Volume-backed shelve offloads at once, as upstream.
                self._mark_shelved(instance, None)
            self._shelve_offload(context, instance)

    def _shelve_offload(self, context, instance):
        try:
            with actions.event(self.conductor_db, context, instance.uuid,
                               'compute_shelve_offload_instance', host=self.host):
                self.conductor_db.instance_update(instance.uuid,
                                                  {'task_state': 'shelving_offloading'})
                bdi = self.block_device_info(context, instance)
                self.driver.destroy(context, instance, block_device_info=bdi,
                                    destroy_disks=True)
                self._park_volumes(context, instance)
                row = self.conductor_db.instance_get(instance.uuid)
                # Released before the state says so: whoever sees SHELVED_OFFLOADED
                # finds the room free.
                self._release(row['flavor'])
                self.conductor_db.instance_update(instance.uuid, {
                    'vm_state': vs.SHELVED_OFFLOADED, 'task_state': None, 'host': None,
                    'node': None, 'power_state': power_state.SHUTDOWN})
        except exception.InstanceNotFound:
            return
        except Exception as exc:  # noqa: BLE001 - still SHELVED, recorded.
            LOG.exception('Shelve offload of %s failed', instance.uuid)
            actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
            self._finish_task(instance, vs.SHELVED)

    def _park_volumes(self, context, instance):
        """Disconnect the volumes from this host but keep them reserved, as upstream:
        a new attachment without a connector replaces the connected one, so no
        other server can take a volume while this one is offloaded."""
        volume_context = self.volume_api.context_for(context, instance)
        for bdm in self.bdms(instance.uuid):
            if bdm['destination_type'] != 'volume' or not bdm['volume_id']:
                continue
            parked = self.volume_api.attachment_create(volume_context, bdm['volume_id'],
                                                       instance.uuid)
            if bdm['attachment_id']:
                try:
                    self.volume_api.attachment_delete(volume_context, bdm['attachment_id'])
                except exception.NotFound:
                    pass
            self.conductor_db.bdm_update(bdm['uuid'], {'attachment_id': parked['id'],
                                                       'connection_info': None})

    def unshelve_instance(self, context, instance):
        with self._lock(instance.uuid):
            image_id = (instance.system_metadata or {}).get('shelved_image_id')
            try:
                with actions.event(self.conductor_db, context, instance.uuid,
                                   'compute_unshelve_instance', host=self.host):
                    if instance.vm_state == vs.SHELVED:
                        self.driver.power_on(context, instance, None,
                                             block_device_info=self.block_device_info(
                                                 context, instance))
                    else:
                        self._spawn_unshelved(context, instance, image_id)
            except Exception as exc:  # noqa: BLE001 - back to where it was, recorded.
                LOG.exception('Unshelve of %s failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self._unshelve_failed(context, instance)
                return
            row = self.conductor_db.instance_get(instance.uuid)
            sysmeta = {k: v for k, v in row['system_metadata'].items()
                       if k not in SHELVE_KEYS}
            self.conductor_db.instance_update(instance.uuid, {
                'vm_state': vs.ACTIVE, 'task_state': None, 'system_metadata': sysmeta,
                'power_state': self._power_state(instance),
                'launched_at': timeutils.utcnow().replace(microsecond=0)})
            if image_id:
                self._delete_image(context, image_id)

    def _spawn_unshelved(self, context, instance, image_id):
        self.conductor_db.instance_update(instance.uuid, {'task_state': 'spawning'})
        image_meta = image_meta_obj.ImageMeta.from_instance(instance)
        if image_id:
            # The root disk comes from the shelve snapshot, not the original image.
            image_meta.id = image_id
            image_meta.disk_format = 'qcow2'
        self.prepare_volumes(context, instance)
        for bdm in self.bdms(instance.uuid):
            # Attached while offloaded: reserved, connected only now.
            if bdm['destination_type'] == 'volume' and bdm['attachment_id'] and \
                    not bdm['connection_info']:
                self.connect_volume(context, instance, bdm)
        bdi = self.block_device_info(context, instance)
        self._record_devices(instance, image_meta, bdi)
        bdi = self.block_device_info(context, instance)
        self.driver.spawn(context, instance, image_meta, injected_files=[],
                          admin_password=None, allocations=None, block_device_info=bdi)
        self.complete_volumes(context, instance)

    def _unshelve_failed(self, context, instance):
        if instance.vm_state == vs.SHELVED:
            self._finish_task(instance, vs.SHELVED)
            return
        try:
            self.driver.destroy(context, instance, destroy_disks=True,
                                block_device_info=self.block_device_info(context, instance))
            self._park_volumes(context, instance)
        except Exception:  # noqa: BLE001
            LOG.exception('Cleanup after the failed unshelve of %s failed', instance.uuid)
        self._release(instance.flavor.to_dict())
        self.conductor_db.instance_update(instance.uuid, {
            'vm_state': vs.SHELVED_OFFLOADED, 'task_state': None, 'host': None, 'node': None,
            'power_state': power_state.SHUTDOWN})

    def _delete_image(self, context, image_id):
        if not image_id:
            return
        try:
            self.image_api.delete(context, image_id)
        except Exception:  # noqa: BLE001 - a leftover image is not worth failing for.
            LOG.warning('Could not delete shelve image %s', image_id)

    def offload_shelved_instances(self):
        """Offload servers SHELVED longer than [DEFAULT] shelved_offload_time."""
        wait = self.conf.shelved_offload_time
        if wait <= 0:
            return
        ctx = nova_context.get_admin_context()
        cutoff = timeutils.utcnow().replace(tzinfo=None, microsecond=0) - \
            datetime.timedelta(seconds=wait)
        for row in self.conductor_db.instance_get_all({'host': self.host, 'vm_state': vs.SHELVED,
                                                       'task_state': None}):
            shelved_at = (row['system_metadata'] or {}).get('shelved_at')
            if not shelved_at or datetime.datetime.fromisoformat(shelved_at) > cutoff:
                continue
            try:
                row = self.conductor_db.instance_update(row['uuid'],
                                                        {'task_state': 'shelving_offloading'},
                                                        expected_task_state=[None],
                                                        expected_vm_state=[vs.SHELVED])
            except (exception.UnexpectedTaskStateError, exception.InstanceNotFound):
                continue
            self.conductor_db.action_start(ctx, row['uuid'], 'shelveOffload')
            inst = instance_obj.Instance.from_db(row)
            with self._lock(inst.uuid):
                self._shelve_offload(ctx, inst)

