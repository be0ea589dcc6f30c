"""Libvirt driver: resize in place (grow the root disk, redefine) and moves between hosts."""

import logging
import os
import shutil

from nova import exception
from nova.virt.libvirt import imagebackend, vtpm

LOG = logging.getLogger(__name__)

BACKUP_SUFFIX = '.resize-backup'
MOVED_SUFFIX = '_resize'
GiB = 1024 ** 3


class LibvirtResize:
    """Resize and cold moves between hosts.

    ``power`` (LibvirtPower) shuts the guest down cleanly; ``disks``
    (LibvirtDisks) connects and disconnects its volumes; ``definition``
    (LibvirtDefinition) defines it again for its new flavor; ``vifs``
    (vif.LibvirtVifs) plugs its ports on the host it starts on.
    """

    def __init__(self, core, power, disks, definition, vifs):
        self._core = core
        self._power = power
        self._disks = disks
        self._definition = definition
        self._vifs = vifs

    def _resize_backup_path(self, instance):
        return self._core.instance_disk_path(instance) + BACKUP_SUFFIX

    def moved_instance_dir(self, instance):
        """Where the source keeps a guest's files while it runs on another host."""
        return self._core.instance_dir(instance) + MOVED_SUFFIX

    def migrate_disk_and_power_off(self, context, instance, flavor, timeout=0,
                                   retry_interval=0, block_device_info=None,
                                   keep_for_another_host=False):
        """Stop the guest and keep a copy of its root disk for a revert.

        The copy is of the qcow2 overlay only (the image cache holds the
        base), so it is as small as what the guest wrote. For another host
        (``keep_for_another_host``) the domain goes from this host, its VIFs
        are unplugged, its volumes disconnected and its directory becomes ``<uuid>_resize``,
        which the destination copies and a confirm deletes, as upstream.
        """
        try:
            guest = self._core.guest(instance)
        except exception.InstanceNotFound:
            guest = None
        if guest is not None:
            if timeout and guest.is_active():
                self._power.clean_shutdown(guest, timeout, retry_interval)
            guest.poweroff()
        if keep_for_another_host:
            if guest is not None:
                guest.undefine()
            # Its ports are bound to the destination next: no tap stays here.
            self._vifs.unplug(instance, self._vifs.network_info(instance))
            self._disks.disconnect_volumes(instance, block_device_info)
            inst_dir, moved = self._core.instance_dir(instance), self.moved_instance_dir(instance)
            shutil.rmtree(moved, ignore_errors=True)
            if os.path.isdir(inst_dir):
                os.rename(inst_dir, moved)
            return
        disk = self._core.instance_disk_path(instance)
        if os.path.exists(disk):
            shutil.copy2(disk, self._resize_backup_path(instance))

    def receive_instance_files(self, context, instance, disk_dir):
        """Copy a guest's files from the source's ``disk_dir`` into this host's directory.

        ``disk_dir`` must be readable here: shared storage, or both hosts on
        one machine. Overlays are pointed at this host's image cache (the
        base is linked or copied into it when this host lacks it).
        """
        if not os.path.isdir(disk_dir):
            raise exception.MigrationError(
                reason='the source host\'s instance directory %s is not reachable from '
                       'this host: moving a server between hosts needs shared storage '
                       'for the instances path, or both hosts on one machine' % disk_dir)
        inst_dir = self._core.instance_dir(instance)
        os.makedirs(inst_dir, exist_ok=True)
        for name in sorted(os.listdir(disk_dir)):
            src, dest = os.path.join(disk_dir, name), os.path.join(inst_dir, name)
            if name == vtpm.STATE_DIR and os.path.isdir(src):
                # The vTPM's state travels with the disks.
                shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)
            elif os.path.isfile(src):
                shutil.copy2(src, dest)
                if name.startswith('disk'):
                    imagebackend.rebase_on_cache(dest, self._core.image_cache.base_dir)

    def finish_migration(self, context, instance, image_meta, block_device_info=None,
                         power_on=True, connect_volumes=False):
        """Grow the root disk to the (new) flavor of ``instance`` and redefine the guest.

        ``connect_volumes``: the guest arrives from another host, its volumes
        are not connected here yet.
        """
        disk = self._core.instance_disk_path(instance)
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
        if connect_volumes:
            self._disks.connect_volumes(instance, block_device_info)
        self._redefine(context, instance, image_meta, block_device_info, power_on)

    def _redefine(self, context, instance, image_meta, block_device_info, power_on):
        """The domain XML from the instance as it is now (vcpus, memory), then start it."""
        guest = self._definition.define(context, instance, image_meta, block_device_info)
        if power_on:
            self._vifs.plug(instance, self._vifs.network_info(instance))
            guest.launch()
        return guest

    def confirm_migration(self, context, migration, instance, network_info=None,
                          another_host=False):
        """The resize stays: drop the saved root disk (or the directory kept for a move)."""
        if another_host:
            shutil.rmtree(self.moved_instance_dir(instance), ignore_errors=True)
            return
        try:
            os.unlink(self._resize_backup_path(instance))
        except FileNotFoundError:
            pass

    def finish_revert_migration(self, context, instance, image_meta,
                                block_device_info=None, power_on=True, connect_volumes=False):
        """Back to the saved root disk (or kept directory) and the old flavor, then start."""
        try:
            self._core.guest(instance).poweroff()
        except exception.InstanceNotFound:
            pass
        moved = self.moved_instance_dir(instance)
        if os.path.isdir(moved):
            inst_dir = self._core.instance_dir(instance)
            shutil.rmtree(inst_dir, ignore_errors=True)
            os.rename(moved, inst_dir)
        backup = self._resize_backup_path(instance)
        if os.path.exists(backup):
            os.replace(backup, self._core.instance_disk_path(instance))
        if connect_volumes:
            self._disks.connect_volumes(instance, block_device_info)
        self._redefine(context, instance, image_meta, block_device_info, power_on)
