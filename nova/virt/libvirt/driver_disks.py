"""Libvirt driver: an instance's disks on this host, its files and its volume connections."""

import logging
import os

from nova import exception
from nova.virt import configdrive, image_verification
from nova.virt.libvirt import imagebackend
from nova.virt.libvirt import volume as libvirt_volume
from nova.virt.libvirt.guest_config import (
    BootFiles,
    image_attr,
    kernel_cmdline,
    volume_connection_infos,
)

LOG = logging.getLogger(__name__)


class LibvirtDisks:
    """Creates the files of a disk mapping in the instance directory (root
    overlay, ephemeral, swap, config drive, kernel and ramdisk) and
    connects or disconnects its volumes on this host."""

    def __init__(self, core):
        self._core = core

    def create_root_disk(self, context, instance, image_meta):
        image_id = image_attr(image_meta, 'id') or instance.image_ref
        if not image_id:
            raise exception.InstanceDeployFailure(
                reason='no image to build the root disk from, and no '
                       'volume with boot_index 0')
        try:
            imagebackend.create_root_disk(
                context, self._core.image_cache, image_id,
                self._core.instance_disk_path(instance),
                instance.flavor.root_gb,
                image_attr(image_meta, 'disk_format'),
                verify=image_verification.verifier(self._core.conf, instance))
        except imagebackend.ProcessError as exc:
            raise exception.InstanceDeployFailure(
                reason=exc.format_message())

    def create_local_disks(self, instance, disk_mapping, block_device_info):
        """Ephemeral and swap files, formatted when the host has the tools
        (see imagebackend.create_ephemeral_disk)."""
        bdi = block_device_info or {}
        inst_dir = self._core.instance_dir(instance)
        cache = self._core.image_cache
        default_fs = self._core.conf.libvirt.default_ephemeral_format
        ephemerals = {e.get('num', 0): e for e in bdi.get('ephemerals') or ()}
        try:
            for name in disk_mapping:
                path = os.path.join(inst_dir, name)
                if name == 'disk.local':
                    imagebackend.create_ephemeral_disk(
                        cache, path, instance.flavor.ephemeral_gb,
                        default_fs, 'ephemeral0')
                elif name.startswith('disk.eph'):
                    num = int(name[8:])
                    eph = ephemerals[num]
                    # A mapping without a size takes the flavor's.
                    imagebackend.create_ephemeral_disk(
                        cache, path,
                        eph.get('size') or instance.flavor.ephemeral_gb,
                        eph.get('guest_format') or default_fs,
                        'ephemeral%d' % num)
                elif name == 'disk.swap':
                    swap = bdi.get('swap') or {}
                    imagebackend.create_swap_disk(
                        cache, path, swap.get('swap_size') or instance.flavor.swap)
        except imagebackend.ProcessError as exc:
            raise exception.InstanceDeployFailure(
                reason=exc.format_message())

    def create_config_drive(self, instance, injected_files, admin_password,
                            name='disk.config', network_info=None):
        # network_info None: the instance's network info cache.
        files = configdrive.metadata_files(instance, injected_files,
                                           admin_password, network_info=network_info,
                                           conf=self._core.conf)
        path = os.path.join(self._core.instance_dir(instance), name)
        configdrive.make_drive(files, path, self._core.settings.config_drive_format)
        return path

    def fetch_boot_files(self, context, instance, image_meta, disk_mapping):
        """Kernel/ramdisk images named by the image (AMI-style), or None."""
        props = image_meta.properties
        kernel_id = props.get('kernel_id') or getattr(instance, 'kernel_id',
                                                      None)
        if not kernel_id:
            return None
        ramdisk_id = props.get('ramdisk_id') or getattr(
            instance, 'ramdisk_id', None)
        inst_dir = self._core.instance_dir(instance)
        kernel = imagebackend.copy_from_cache(
            context, self._core.image_cache, kernel_id,
            os.path.join(inst_dir, 'kernel'))
        ramdisk = None
        if ramdisk_id:
            ramdisk = imagebackend.copy_from_cache(
                context, self._core.image_cache, ramdisk_id,
                os.path.join(inst_dir, 'ramdisk'))
        return BootFiles(kernel=kernel, ramdisk=ramdisk,
                         cmdline=kernel_cmdline(props, disk_mapping))

    # ------------------------------------------------------------ volumes
    def connect_volumes(self, instance, block_device_info):
        for conn in volume_connection_infos(block_device_info).values():
            libvirt_volume.get_volume_driver(conn).connect_volume(conn,
                                                                  instance)

    def disconnect_volumes(self, instance, block_device_info):
        for conn in volume_connection_infos(block_device_info).values():
            try:
                libvirt_volume.get_volume_driver(conn).disconnect_volume(
                    conn, instance)
            except exception.NovaException:
                LOG.exception('Could not disconnect a volume of %s',
                              instance.uuid)
