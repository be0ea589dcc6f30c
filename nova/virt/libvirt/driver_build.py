"""Libvirt driver: build a guest (spawn), destroy it, define it again when its domain is gone."""

import logging
import os
import shutil

from nova import exception
from nova.objects import image_meta as image_meta_obj
from nova.virt.libvirt import vtpm

LOG = logging.getLogger(__name__)


class LibvirtBuild:
    """Spawn and destroy; ``guest_or_recreate`` for the power calls.

    ``disks`` (LibvirtDisks) makes the instance's files and connects its
    volumes; ``definition`` (LibvirtDefinition) maps its disks, builds and
    defines its domain.
    """

    def __init__(self, core, disks, definition):
        self._core = core
        self._disks = disks
        self._definition = definition

    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None):
        definition = self._definition
        disk_mapping = definition.disk_mapping(instance, image_meta, block_device_info)
        inst_dir = self._core.instance_dir(instance)
        created_dir = not os.path.isdir(inst_dir)
        guest = None
        try:
            os.makedirs(inst_dir, exist_ok=True)
            if 'disk' in disk_mapping:
                self._disks.create_root_disk(context, instance, image_meta)
            self._disks.create_local_disks(instance, disk_mapping, block_device_info)
            if 'disk.config' in disk_mapping:
                self._disks.create_config_drive(instance, injected_files,
                                                admin_password, network_info=network_info)
            self._disks.connect_volumes(instance, block_device_info)
            boot_files = self._disks.fetch_boot_files(context, instance, image_meta,
                                                      disk_mapping)
            # VIF plugging (nova/virt/libvirt/vif.py, os-vif) goes here: every
            # port plugged before the domain starts, as upstream does.
            with definition.placement():
                xml = definition.guest_xml(instance, image_meta, disk_mapping,
                                           boot_files, block_device_info,
                                           host_info=definition.host_info())
                guest = self._core.host.define_guest(xml)
                guest.launch()
        except Exception:
            # Leave nothing half-built: the manager can retry or reschedule.
            self._rollback_spawn(guest, inst_dir if created_dir else None)
            raise
        LOG.info('Spawned %s (%s)', instance.uuid, instance.name)

    def _rollback_spawn(self, guest, inst_dir):
        try:
            if guest is not None:
                guest.poweroff()
                guest.undefine()
        except exception.NovaException:
            LOG.exception('Could not remove the domain of a failed spawn')
        if inst_dir:
            shutil.rmtree(inst_dir, ignore_errors=True)

    def destroy(self, context, instance, network_info=None,
                block_device_info=None, destroy_disks=True):
        try:
            guest = self._core.guest(instance)
        except exception.InstanceNotFound:
            guest = None
        if guest is not None:
            guest.poweroff()
            guest.undefine()
        # The vTPM state (if any) goes with the instance directory below.
        vtpm.unlink_state(instance.uuid)
        # VIF unplugging (nova/virt/libvirt/vif.py) goes here, once the
        # guest no longer runs.
        self._disks.disconnect_volumes(instance, block_device_info)
        if destroy_disks:
            inst_dir = self._core.instance_dir(instance)
            try:
                shutil.rmtree(inst_dir)
            except FileNotFoundError:
                pass

    # ------------------------------------------------------------ recreate
    def guest_or_recreate(self, context, instance, block_device_info=None):
        """The instance's domain; when it is gone, define it again from the
        instance's data (flavor, image metadata with overrides, block device
        mappings, config drive) as upstream's hard reboot does."""
        try:
            return self._core.guest(instance)
        except exception.InstanceNotFound:
            pass
        LOG.warning('Domain of %s is missing; recreating it from the instance data',
                    instance.uuid)
        return self._recreate_guest(context, instance, block_device_info)

    def _recreate_guest(self, context, instance, block_device_info):
        image_meta = image_meta_obj.ImageMeta.from_instance(instance)
        disk_mapping = self._definition.disk_mapping(instance, image_meta,
                                                     block_device_info)
        inst_dir = self._core.instance_dir(instance)
        os.makedirs(inst_dir, exist_ok=True)
        # Disks still on the host are reused as they are (their data is the
        # guest's); only missing files are made again.
        missing = {name: info for name, info in disk_mapping.items()
                   if not os.path.exists(os.path.join(inst_dir, name))}
        if 'disk' in missing:
            self._disks.create_root_disk(context, instance, image_meta)
        self._disks.create_local_disks(instance, {n: i for n, i in missing.items()
                                                  if n not in ('disk', 'disk.config')},
                                       block_device_info)
        if 'disk.config' in missing:
            self._disks.create_config_drive(instance, [], None)
        self._disks.connect_volumes(instance, block_device_info)
        return self._definition.define(context, instance, image_meta, block_device_info,
                                       disk_mapping)
