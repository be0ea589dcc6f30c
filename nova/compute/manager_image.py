"""Compute manager: image-related actions (snapshot to the image service, rebuild)."""

import logging
import os
import tempfile

from oslo_utils import timeutils

from nova import exception, failpoint
from nova import vm_states as vs
from nova.compute import actions, personality
from nova.notifications import action as notify
from nova.objects import image_meta as image_meta_obj

LOG = logging.getLogger(__name__)


class ImageMixin:
    """Mixed into ComputeManager; needs self.image_api."""

    @notify.instance_action('snapshot', 'InstanceActionSnapshotPayload',
                            notify.snapshot_extras)
    def snapshot_instance(self, context, instance, image_id):
        with self._lock(instance.uuid):
            try:
                with actions.event(self.conductor_db, context, instance.uuid,
                                   'compute_snapshot_instance', host=self.host):
                    self._snapshot(context, instance, image_id)
            except Exception as exc:  # noqa: BLE001 - a failed snapshot keeps the server.
                LOG.exception('Snapshot of %s failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                try:
                    self.image_api.delete(context, image_id)
                except Exception:  # noqa: BLE001
                    LOG.warning('Could not delete failed snapshot image %s', image_id)
            self._finish_task(instance, None)

    def _snapshot(self, context, instance, image_id):
        workdir = os.path.join(self.conf.instances_path, 'snapshots')
        os.makedirs(workdir, exist_ok=True)
        fd, path = tempfile.mkstemp(dir=workdir, suffix='.qcow2')
        os.close(fd)
        try:
            self.driver.snapshot(context, instance, path)
            failpoint.hit('snapshot.after_copy')
            self.image_api.upload(context, image_id, path)
        finally:
            if os.path.exists(path):
                os.unlink(path)

    @notify.instance_action('rebuild', 'InstanceActionRebuildPayload')
    def rebuild_instance(self, context, instance, image, admin_password=None,
                         injected_files=None, reimage_boot_volume=False):
        with self._lock(instance.uuid):
            was_stopped = instance.power_state != 1 and instance.vm_state == vs.STOPPED
            try:
                with actions.event(self.conductor_db, context, instance.uuid,
                                   'compute_rebuild_instance', host=self.host):
                    bdi = self.block_device_info(context, instance)
                    self.driver.destroy(context, instance, block_device_info=bdi,
                                        destroy_disks=True)
                    if reimage_boot_volume:
                        self.reimage_root_volume(context, instance, image['id'])
                        bdi = self.block_device_info(context, instance)
                    self.conductor_db.instance_update(instance.uuid,
                                                      {'task_state': 'rebuild_spawning'})
                    image_meta = image_meta_obj.ImageMeta.from_instance(instance)
                    self.driver.spawn(context, instance, image_meta,
                                      injected_files=personality.decoded(injected_files),
                                      admin_password=admin_password, allocations=None,
                                      block_device_info=bdi)
                    if was_stopped:
                        self.driver.power_off(instance)
            except Exception as exc:  # noqa: BLE001 - recorded; the guest is gone.
                LOG.exception('Rebuild of %s failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self._set_state(instance, vs.ERROR)
                return
            self._set_state(instance, vs.STOPPED if was_stopped else vs.ACTIVE,
                            launched_at=timeutils.utcnow().replace(microsecond=0))

    def _set_state(self, instance, vm_state, **extra):
        values = dict(extra, vm_state=vm_state, task_state=None,
                      power_state=self._power_state(instance))
        try:
            self.conductor_db.instance_update(instance.uuid, values)
        except exception.InstanceNotFound:
            pass
