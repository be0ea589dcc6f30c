"""Libvirt driver: build a guest (spawn), destroy it, define it again when its domain is gone."""

import logging
import os
import shutil

from nova import exception
from nova.objects import image_meta as image_meta_obj
from nova.virt.libvirt import device_metadata, vtpm
from nova.virt.libvirt.driver_lifecycle import owns_files

LOG = logging.getLogger(__name__)


class LibvirtBuild:
    """Spawn and destroy; ``guest_or_recreate`` for the power calls.

    ``disks`` (LibvirtDisks) makes the instance's files and connects its
    volumes; ``definition`` (LibvirtDefinition) maps its disks, builds and
    defines its domain; ``vifs`` (vif.LibvirtVifs) plugs its ports before
    the guest starts and unplugs them when it is destroyed;
    ``instance_events`` (nova.virt.instance_events.InstanceEvents) brings
    the network-vif-plugged events a new guest waits for, paused.
    """

    def __init__(self, core, disks, definition, vifs, instance_events):
        self._core = core
        self._disks = disks
        self._definition = definition
        self._vifs = vifs
        self._events = instance_events

    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None):
        definition = self._definition
        network_info = self._vifs.network_info(instance, network_info)
        disk_mapping = definition.disk_mapping(instance, image_meta, block_device_info)
        inst_dir = self._core.instance_dir(instance)
        created_dir = not os.path.isdir(inst_dir)
        guest = None
        plugged = False
        wait = self._vifs.plug_wait(network_info)
        # Before the plug: Neutron may report a port plugged at once.
        waiter = self._events.prepare(instance.uuid, wait.events) if wait.events else None
        try:
            os.makedirs(inst_dir, exist_ok=True)
            if 'disk' in disk_mapping:
                self._disks.create_root_disk(context, instance, image_meta)
            self._disks.create_local_disks(instance, disk_mapping, block_device_info)
            tagged = (block_device_info or {}).get('tagged_mappings') or []
            # A config drive lists the tagged devices at the addresses the
            # definition gives them (upstream's order): written once defined.
            drive_after_define = 'disk.config' in disk_mapping and (
                tagged or device_metadata.tagged_vifs(network_info))
            if 'disk.config' in disk_mapping and not drive_after_define:
                self._disks.create_config_drive(instance, injected_files,
                                                admin_password, network_info=network_info)
            self._disks.connect_volumes(instance, block_device_info)
            boot_files = self._disks.fetch_boot_files(context, instance, image_meta,
                                                      disk_mapping)
            # Every port plugged before the domain starts, as upstream does.
            plugged = True
            self._vifs.plug(instance, network_info)
            with definition.placement():
                xml = definition.guest_xml(instance, image_meta, disk_mapping,
                                           boot_files, block_device_info,
                                           host_info=definition.host_info(),
                                           network_info=network_info)
                guest = self._core.host.define_guest(xml)
                if drive_after_define:
                    instance.device_metadata = device_metadata.of_domain_xml(
                        guest.get_xml_desc(), network_info, tagged,
                        instance.root_device_name)
                    self._disks.create_config_drive(instance, injected_files, admin_password,
                                                    network_info=network_info)
                # Paused until Neutron says the ports are wired: a guest must
                # not ask for its DHCP lease before it can get one.
                guest.launch(pause=waiter is not None)
            if waiter is not None:
                self._await_plugged(instance, guest, waiter, wait)
        except Exception:
            if waiter is not None:
                waiter.cancel()
            # Leave nothing half-built: the manager can retry or reschedule.
            self._rollback_spawn(guest, inst_dir if created_dir else None)
            if plugged:
                self._vifs.unplug(instance, network_info)
            raise
        LOG.info('Spawned %s (%s)', instance.uuid, instance.name)

    def _await_plugged(self, instance, guest, waiter, wait):
        """Resume the paused guest once its network-vif-plugged events came;
        [DEFAULT] vif_plugging_is_fatal decides what a timeout or a failed
        event does."""
        missing = waiter.wait(wait.timeout)
        ports = sorted(tag for _name, tag in missing)
        failed = sorted(tag for _name, tag in waiter.failed)
        if failed and wait.fatal:
            raise exception.VirtualInterfacePlugFailed(ports=', '.join(failed),
                                                       instance_uuid=instance.uuid)
        if ports:
            if wait.fatal:
                raise exception.VirtualInterfacePlugTimeout(
                    ports=', '.join(ports), instance_uuid=instance.uuid,
                    timeout=wait.timeout)
            LOG.warning('No network-vif-plugged for ports %s of %s within %d s; '
                        'starting it anyway', ', '.join(ports), instance.uuid, wait.timeout)
        if failed:
            LOG.warning('The network service failed to plug ports %s of %s; starting it '
                        'anyway', ', '.join(failed), instance.uuid)
        guest.resume()

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
        # Once the guest no longer runs: its taps and switch ports go.
        self._vifs.unplug(instance, self._vifs.network_info(instance, network_info))
        self._disks.disconnect_volumes(instance, block_device_info)
        if destroy_disks:
            inst_dir = self._core.instance_dir(instance)
            try:
                shutil.rmtree(inst_dir)
            except FileNotFoundError:
                pass

    def cleanup_evacuated(self, instance, network_info):
        """What a server evacuated away from this host left here: its guest, taps, files.

        A guest whose files are not in this host's instance directory is
        another host's (hosts sharing one libvirtd, as the all-in-one's extra
        compute hosts do): it stays, and so do its taps and vTPM state; only
        this host's instance directory goes. Volumes are not disconnected
        through the volume service: their attachments already belong to the
        new host.
        """
        try:
            guest = self._core.guest(instance)
        except exception.InstanceNotFound:
            guest = None
        ours = guest is None or owns_files(guest.get_xml_desc(inactive=True),
                                           self._core.instances_path, instance.uuid)
        if guest is not None and ours:
            guest.poweroff()
            guest.undefine()
            vtpm.unlink_state(instance.uuid)
        if ours:
            self._vifs.unplug(instance, network_info or [])
        shutil.rmtree(self._core.instance_dir(instance), ignore_errors=True)
        return ours

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
