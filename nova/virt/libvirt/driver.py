"""Libvirt compute driver: builds its parts and answers the ComputeDriver interface with them."""

import os
import threading

from nova.virt import bus_table, driver
from nova.virt import instance_events as events_mod
from nova.virt.libvirt import host as libvirt_host
from nova.virt.libvirt import imagebackend
from nova.virt.libvirt.diagnostics import LibvirtDiagnostics
from nova.virt.libvirt.driver_build import LibvirtBuild
from nova.virt.libvirt.driver_consoles import LibvirtConsoles
from nova.virt.libvirt.driver_core import LibvirtCore
from nova.virt.libvirt.driver_definition import LibvirtDefinition
from nova.virt.libvirt.driver_disks import LibvirtDisks
from nova.virt.libvirt.driver_interfaces import LibvirtInterfaces
from nova.virt.libvirt.driver_lifecycle import LibvirtLifecycle
from nova.virt.libvirt.driver_live_migrate import LibvirtLiveMigrate
from nova.virt.libvirt.driver_node import LibvirtNode
from nova.virt.libvirt.driver_password import LibvirtPassword
from nova.virt.libvirt.driver_power import LibvirtPower
from nova.virt.libvirt.driver_rescue import LibvirtRescue
from nova.virt.libvirt.driver_resize import LibvirtResize
from nova.virt.libvirt.driver_volume_snapshots import LibvirtVolumeSnapshots
from nova.virt.libvirt.driver_volumes import LibvirtVolumes
from nova.virt.libvirt.vif import LibvirtVifs


class LibvirtDriver(driver.ComputeDriver):
    """ComputeDriver on libvirt (qemu:///system, or test:///default).

    ``conf`` is a ConfigOpts with the [DEFAULT] paths and [libvirt] groups
    registered; ``image_fetcher(context, image_id, dest_path)`` writes an
    image's bytes to a file; ``image_authorizer(context, image_id)`` raises
    ImageNotFound when the caller may not read an image the host has cached.
    ``host`` may be injected (tests). ``instance_events``
    (nova.virt.instance_events.InstanceEvents) is shared with the compute
    manager, which delivers the network-vif-plugged events a spawn waits
    for; ``tap_namespace``: where taps of ``vif_type`` ``tap`` ports are
    made (else [libvirt] tap_namespace).

    The driver is the composition root of its parts, one per operation
    family (``build``, ``power``, ``volumes``, ``rescue``...), each handed
    the shared ``core`` and the other parts it calls; the interface methods
    below delegate to them, one line each.
    """

    capabilities = {
        'supports_pause': True,
        'supports_suspend': True,
        'supports_console_output': True,
        'supports_attach_volume': True,
        'supports_snapshot': True,
        # Set per instance in __init__: qemu/kvm only.
        'supports_stable_rescue': False,
        'supports_bfv_rescue': False,
    }

    def __init__(self, conf, image_fetcher, host=None, image_authorizer=None,
                 soft_reboot_wait=120, shutdown_poll_interval=0.1,
                 instances_path=None, nodename=None, placement_lock=None,
                 connection_uri=None, instance_events=None, tap_namespace=None):
        self.conf = conf
        self.instance_events = instance_events or events_mod.InstanceEvents()
        virt_type = conf.libvirt.virt_type
        # connection_uri: an all-in-one extra compute host on a libvirtd of its own.
        self.host = host or libvirt_host.Host(libvirt_host.uri_for_virt_type(
            virt_type, connection_uri or conf.libvirt.connection_uri))
        # The all-in-one's extra compute hosts share the libvirtd: each keeps
        # its own instance directory and reports its own node name.
        instances_path = instances_path or conf.instances_path
        self.image_cache = imagebackend.ImageCache(
            os.path.join(instances_path, '_base'), image_fetcher,
            authorize=image_authorizer)
        stable = virt_type in bus_table.STABLE_RESCUE_VIRT_TYPES
        # virt_type (and machine_type, in init_host) reach the node record,
        # where the API applies the static bus rules before accepting a boot.
        self.capabilities = dict(type(self).capabilities,
                                 supports_stable_rescue=stable,
                                 supports_bfv_rescue=stable,
                                 virt_type=virt_type)

        core = self.core = LibvirtCore(conf, self.host, instances_path, self.image_cache)
        self.consoles = LibvirtConsoles(core)
        self.disks = LibvirtDisks(core)
        # Shared by drivers on one libvirtd in one process: a serial port or
        # host CPU is picked and taken by one spawn at a time across them all.
        # The guests' NICs: interface config objects for the definition,
        # os-vif/tap plugs for build (before the domain starts), power
        # (again before a start), resize and the interface hot-plug.
        self.vifs = LibvirtVifs(core, tap_namespace or conf.libvirt.tap_namespace)
        self.definition = LibvirtDefinition(core, self.disks, self.consoles,
                                            placement_lock or threading.Lock(), self.vifs)
        self.build = LibvirtBuild(core, self.disks, self.definition, self.vifs,
                                  self.instance_events)
        self.power = LibvirtPower(core, self.build, self.vifs, soft_reboot_wait,
                                  shutdown_poll_interval)
        self.interfaces = LibvirtInterfaces(core, self.vifs)
        self.resize = LibvirtResize(core, self.power, self.disks, self.definition, self.vifs)
        self.live_migrate = LibvirtLiveMigrate(core, self.consoles, self.vifs)
        self.volumes = LibvirtVolumes(core)
        self.volume_snapshots = LibvirtVolumeSnapshots(core)
        # Not "rescue": that name is the interface method below.
        self.rescuer = LibvirtRescue(core, self.disks)
        self.lifecycle = LibvirtLifecycle(core)
        self.diagnostics = LibvirtDiagnostics(core)
        self.password = LibvirtPassword(core)
        self.node = LibvirtNode(core, self.definition, self.rescuer, self.lifecycle,
                                self.capabilities, nodename)

    # ------------------------------------------------------------- host
    def init_host(self, host):
        return self.node.init_host(host)

    def cleanup_host(self, host):
        return self.node.cleanup_host(host)

    def get_available_resource(self, nodename=None):
        return self.node.get_available_resource(nodename)

    def get_host_uptime(self):
        return self.node.get_host_uptime()

    def list_instances(self):
        return self.node.list_instances()

    def list_instance_uuids(self):
        return self.node.list_instance_uuids()

    # -------------------------------------------------------- lifecycle
    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None):
        return self.build.spawn(context, instance, image_meta, injected_files,
                                admin_password, allocations, network_info,
                                block_device_info)

    def cleanup_evacuated(self, instance, network_info=None):
        return self.build.cleanup_evacuated(instance, network_info)

    def destroy(self, context, instance, network_info=None,
                block_device_info=None, destroy_disks=True):
        return self.build.destroy(context, instance, network_info, block_device_info,
                                  destroy_disks)

    def reboot(self, context, instance, network_info, reboot_type,
               block_device_info=None, bad_volumes_callback=None,
               accel_info=None):
        return self.power.reboot(context, instance, network_info, reboot_type,
                                 block_device_info, bad_volumes_callback, accel_info)

    def power_off(self, instance, timeout=0, retry_interval=0):
        return self.power.power_off(instance, timeout, retry_interval)

    def power_on(self, context, instance, network_info,
                 block_device_info=None, accel_info=None):
        return self.power.power_on(context, instance, network_info, block_device_info,
                                   accel_info)

    def pause(self, instance):
        return self.power.pause(instance)

    def unpause(self, instance):
        return self.power.unpause(instance)

    def suspend(self, context, instance):
        return self.power.suspend(context, instance)

    def resume(self, context, instance, network_info, block_device_info=None):
        return self.power.resume(context, instance, network_info, block_device_info)

    def get_info(self, instance, use_cache=True):
        return self.power.get_info(instance, use_cache)

    def get_numa_topology(self, instance):
        return self.diagnostics.get_numa_topology(instance)

    def get_device_metadata(self, instance, bdms):
        return self.diagnostics.get_device_metadata(instance, bdms)

    def start_lifecycle_events(self, callback, on_reconnect=None):
        return self.lifecycle.start_lifecycle_events(callback, on_reconnect)

    def stop_lifecycle_events(self):
        return self.lifecycle.stop_lifecycle_events()

    def list_own_domains(self, name_template):
        return self.lifecycle.list_own_domains(name_template)

    # ---------------------------------------------------------- volumes
    def get_device_names(self, instance, image_meta, block_device_info=None):
        return self.definition.device_names(instance, image_meta, block_device_info)

    def get_next_volume_device(self, instance, image_meta=None, bus=None,
                               device_type='disk', requested=None, in_use=()):
        return self.volumes.get_next_volume_device(instance, image_meta, bus, device_type,
                                                   requested, in_use)

    def attach_volume(self, context, connection_info, instance, mountpoint,
                      disk_bus=None, device_type=None, encryption=None):
        return self.volumes.attach_volume(context, connection_info, instance, mountpoint,
                                          disk_bus, device_type, encryption)

    def detach_volume(self, context, connection_info, instance, mountpoint,
                      encryption=None):
        return self.volumes.detach_volume(context, connection_info, instance, mountpoint,
                                          encryption)

    def guest_volume_disks(self, instance):
        return self.volumes.guest_volume_disks(instance)

    def snapshot(self, context, instance, dest_path):
        return self.volumes.snapshot(context, instance, dest_path)

    def volume_snapshot_create(self, context, instance, volume_id, create_info):
        return self.volume_snapshots.volume_snapshot_create(context, instance, volume_id,
                                                            create_info)

    def volume_snapshot_delete(self, context, instance, volume_id, snapshot_id,
                               delete_info):
        return self.volume_snapshots.volume_snapshot_delete(context, instance, volume_id,
                                                            snapshot_id, delete_info)

    # ------------------------------------------------------- interfaces
    def attach_interface(self, context, instance, image_meta, vif):
        return self.interfaces.attach_interface(context, instance, image_meta, vif)

    def detach_interface(self, context, instance, vif):
        return self.interfaces.detach_interface(context, instance, vif)

    # ----------------------------------------------------------- rescue
    def validate_rescue_request(self, instance, image_meta, volume_backed=False):
        return self.rescuer.validate_rescue_request(instance, image_meta, volume_backed)

    def rescue(self, context, instance, network_info, image_meta,
               rescue_password, block_device_info=None):
        return self.rescuer.rescue(context, instance, network_info, image_meta,
                                   rescue_password, block_device_info)

    def unrescue(self, context, instance, network_info=None):
        return self.rescuer.unrescue(context, instance, network_info)

    def has_rescue_state(self, instance):
        return self.rescuer.has_rescue_state(instance)

    def is_rescued(self, instance):
        return self.rescuer.is_rescued(instance)

    # ------------------------------------------------------------ query
    def get_console_output(self, context, instance):
        return self.consoles.get_console_output(context, instance)

    def get_instance_disk_path(self, instance):
        return self.core.instance_disk_path(instance)

    def get_diagnostics(self, instance):
        return self.diagnostics.get_diagnostics(instance)

    def get_instance_diagnostics(self, instance):
        return self.diagnostics.get_instance_diagnostics(instance)

    # --------------------------------------------------------- consoles
    def get_vnc_console(self, context, instance):
        return self.consoles.get_vnc_console(context, instance)

    def get_spice_console(self, context, instance):
        return self.consoles.get_spice_console(context, instance)

    def get_serial_console(self, context, instance):
        return self.consoles.get_serial_console(context, instance)

    def set_admin_password(self, instance, new_pass):
        return self.password.set_admin_password(instance, new_pass)

    # ----------------------------------------------------- resize, moves
    def migrate_disk_and_power_off(self, context, instance, flavor, timeout=0,
                                   retry_interval=0, block_device_info=None,
                                   keep_for_another_host=False):
        return self.resize.migrate_disk_and_power_off(
            context, instance, flavor, timeout, retry_interval, block_device_info,
            keep_for_another_host)

    def moved_instance_dir(self, instance):
        return self.resize.moved_instance_dir(instance)

    def receive_instance_files(self, context, instance, disk_dir):
        return self.resize.receive_instance_files(context, instance, disk_dir)

    def finish_migration(self, context, instance, image_meta, block_device_info=None,
                         power_on=True, connect_volumes=False):
        return self.resize.finish_migration(context, instance, image_meta,
                                            block_device_info, power_on, connect_volumes)

    def confirm_migration(self, context, migration, instance, network_info=None,
                          another_host=False):
        return self.resize.confirm_migration(context, migration, instance, network_info,
                                             another_host)

    def finish_revert_migration(self, context, instance, image_meta,
                                block_device_info=None, power_on=True,
                                connect_volumes=False):
        return self.resize.finish_revert_migration(context, instance, image_meta,
                                                   block_device_info, power_on,
                                                   connect_volumes)

    # --------------------------------------------------- live migration
    def live_migration_target(self, instance):
        return self.live_migrate.live_migration_target(instance)

    def check_live_migration_source(self, instance, target, block_device_info=None):
        return self.live_migrate.check_live_migration_source(instance, target,
                                                             block_device_info)

    def pre_live_migration(self, context, instance, source_dir, disks, network_info=None):
        return self.live_migrate.pre_live_migration(context, instance, source_dir, disks,
                                                    network_info)

    def connect_live_migration_volumes(self, instance, connection_infos):
        return self.live_migrate.connect_live_migration_volumes(instance, connection_infos)

    def disconnect_live_migration_volumes(self, instance, connection_infos):
        return self.live_migrate.disconnect_live_migration_volumes(instance,
                                                                   connection_infos)

    def rollback_live_migration_at_destination(self, context, instance, network_info=None,
                                               source_site=None):
        return self.live_migrate.rollback_live_migration_at_destination(
            context, instance, network_info, source_site)

    def live_migration(self, context, instance, target, progress=None):
        return self.live_migrate.live_migration(context, instance, target, progress)

    def live_migration_abort(self, instance):
        return self.live_migrate.live_migration_abort(instance)

    def live_migration_force_complete(self, instance):
        return self.live_migrate.live_migration_force_complete(instance)

    def live_migration_resume(self, instance):
        return self.live_migrate.live_migration_resume(instance)

    def cleanup_after_live_migration(self, context, instance, target=None):
        return self.live_migrate.cleanup_after_live_migration(context, instance, target)
