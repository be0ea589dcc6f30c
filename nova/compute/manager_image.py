"""Compute manager: image-related actions (snapshot to the image service, rebuild)."""

import logging
import os
import tempfile

from oslo_utils import timeutils

from nova import failpoint
from nova import vm_states as vs
from nova.compute import actions, manager_core, personality
from nova.notifications import action as notify
from nova.objects import image_meta as image_meta_obj

LOG = logging.getLogger(__name__)


class ImageManager:
    """Snapshots to the image service (also shelve's and backup's) and rebuilds."""

    target = manager_core.RPC_TARGET

    def __init__(self, core, image_api, volumes):
        self.core = core
        self.conf = core.conf
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        self.image_api = image_api
        # Rebuilds of a volume-backed server re-image its root volume.
        self._volumes = volumes

    @notify.instance_action('snapshot', 'InstanceActionSnapshotPayload',
                            notify.snapshot_extras)
    def snapshot_instance(self, context, instance, image_id):
        with self.core.lock(instance.uuid):
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_snapshot_instance', host=self.host):
                    self.snapshot(context, instance, image_id)
            except Exception as exc:  # noqa: BLE001 - a failed snapshot keeps the server.
                LOG.exception('Snapshot of %s failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                try:
                    self.image_api.delete(context, image_id)
                except Exception:  # noqa: BLE001
                    LOG.warning('Could not delete failed snapshot image %s', image_id)
            self.core.finish_task(instance, None)

    def snapshot(self, context, instance, image_id):
        """Copy the guest's root disk and upload it as ``image_id`` (no state change)."""
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
        with self.core.lock(instance.uuid):
            was_stopped = instance.power_state != 1 and instance.vm_state == vs.STOPPED
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_rebuild_instance', host=self.host):
                    bdi = self.core.block_device_info(context, instance)
                    self.driver.destroy(context, instance, block_device_info=bdi,
                                        destroy_disks=True)
                    if reimage_boot_volume:
                        self._volumes.reimage_root_volume(context, instance, image['id'])
                        bdi = self.core.block_device_info(context, instance)
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
                self.core.set_state(instance, vs.ERROR)
                return
            self.core.set_state(instance, vs.STOPPED if was_stopped else vs.ACTIVE,
                                launched_at=timeutils.utcnow().replace(microsecond=0))
            self.core.record_guest(instance)
