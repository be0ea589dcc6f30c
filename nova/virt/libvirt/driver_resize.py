"""Libvirt driver: same-host resize (grow the root disk, redefine) with a saved copy for revert."""

import logging
import os
import shutil

from nova import exception
from nova.virt.libvirt import imagebackend

LOG = logging.getLogger(__name__)

BACKUP_SUFFIX = '.resize-backup'
GiB = 1024 ** 3


class ResizeMixin:
    """Mixed into LibvirtDriver."""

    def _resize_backup_path(self, instance):
        return self.get_instance_disk_path(instance) + BACKUP_SUFFIX

    def migrate_disk_and_power_off(self, context, instance, flavor, timeout=0,
                                   retry_interval=0):
        """Stop the guest and keep a copy of its root disk for a revert.

        The copy is of the qcow2 overlay only (the image cache holds the
        base), so it is as small as what the guest wrote.
        """
        try:
            guest = self._guest(instance)
        except exception.InstanceNotFound:
            guest = None
        if guest is not None:
            if timeout and guest.is_active():
                self._clean_shutdown(guest, timeout, retry_interval)
            guest.poweroff()
        disk = self.get_instance_disk_path(instance)
        if os.path.exists(disk):
            shutil.copy2(disk, self._resize_backup_path(instance))

    def finish_migration(self, context, instance, image_meta, block_device_info=None,
                         power_on=True):
        """Grow the root disk to the (new) flavor of ``instance`` and redefine the guest."""
        disk = self.get_instance_disk_path(instance)
        root_gb = instance.flavor.root_gb
        if root_gb and os.path.exists(disk):
            current = imagebackend.qemu_img_info(disk).get('virtual-size', 0)
            wanted = root_gb * GiB
            if wanted > current:
                try:
                    imagebackend.execute('qemu-img', 'resize', '-q', '-f', 'qcow2', disk,
                                         str(wanted))
                except imagebackend.ProcessError as exc:
                    raise exception.HypervisorError(reason=exc.format_message())
        self._redefine(context, instance, image_meta, block_device_info, power_on)

    def _redefine(self, context, instance, image_meta, block_device_info, power_on):
        """The domain XML from the instance as it is now (vcpus, memory), then start it."""
        disk_mapping = self.get_disk_mapping(instance, image_meta, block_device_info)
        boot_files = self._fetch_boot_files(context, instance, image_meta, disk_mapping)
        with self._placement_lock:
            xml = self.get_guest_xml(instance, image_meta, disk_mapping, boot_files,
                                     block_device_info, host_info=self.host_info())
            guest = self.host.define_guest(xml)
        if power_on:
            guest.launch()
        return guest

    def confirm_migration(self, context, migration, instance, network_info=None):
        """The resize stays: drop the saved root disk."""
        try:
            os.unlink(self._resize_backup_path(instance))
        except FileNotFoundError:
            pass

    def finish_revert_migration(self, context, instance, image_meta,
                                block_device_info=None, power_on=True):
        """Back to the saved root disk and the (old) flavor ``instance`` carries again."""
        try:
            self._guest(instance).poweroff()
        except exception.InstanceNotFound:
            pass
        backup = self._resize_backup_path(instance)
        if os.path.exists(backup):
            os.replace(backup, self.get_instance_disk_path(instance))
        self._redefine(context, instance, image_meta, block_device_info, power_on)
