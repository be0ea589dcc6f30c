"""The compute driver interface the compute manager programs against."""

import dataclasses

from nova import exception


@dataclasses.dataclass(frozen=True)
class InstanceInfo:
    """What the hypervisor says about one guest (a nova.power_state)."""

    state: int
    internal_id: object = None


class ComputeDriver:
    """Base class: every hypervisor driver implements these methods.

    ``instance`` arguments are Instance objects (uuid, name, flavor,
    image_ref, ...); ``image_meta`` is an ImageMeta.  Methods a driver does
    not support raise NotImplementedError so the manager can say so.

    The manager also calls these when a driver has them (it looks them up
    first, and treats a missing one as "not supported"):
    ``start_lifecycle_events(callback, on_reconnect)``,
    ``stop_lifecycle_events()``, ``list_own_domains(name_template)``,
    ``set_admin_password(instance, new_pass)``, and
    ``get_vnc_console``/``get_spice_console``/``get_serial_console(context,
    instance)``.
    """

    capabilities = {
        'supports_pause': False,
        'supports_suspend': False,
        'supports_console_output': False,
        'supports_attach_volume': False,
        'supports_snapshot': False,
        # Rescue keeps every disk and boots hw_rescue_bus/hw_rescue_device
        # media first; and rescue of volume-backed instances (2.87).
        'supports_stable_rescue': False,
        'supports_bfv_rescue': False,
    }

    # ------------------------------------------------------------- host
    def init_host(self, host):
        """Prepare the driver on service start (connect, check the host)."""
        raise NotImplementedError()

    def cleanup_host(self, host):
        """Release what init_host acquired (on service stop)."""

    def get_available_resource(self, nodename=None):
        """Host inventory and usage.

        Returns a dict with vcpus, memory_mb, local_gb, vcpus_used,
        memory_mb_used, local_gb_used, hypervisor_type,
        hypervisor_version, hypervisor_hostname and cpu_info (JSON text).
        """
        raise NotImplementedError()

    # -------------------------------------------------------- lifecycle
    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None):
        """Create the disks, define and start the guest."""
        raise NotImplementedError()

    def cleanup_evacuated(self, instance, network_info=None):
        """Remove what a server evacuated to another host left here (guest, VIFs, files),
        nothing another host uses; False when the guest found is another host's."""
        raise NotImplementedError()

    def destroy(self, context, instance, network_info=None,
                block_device_info=None, destroy_disks=True):
        """Stop and undefine the guest; remove its disks if asked.

        Must succeed when the guest or its files are already gone.
        """
        raise NotImplementedError()

    def reboot(self, context, instance, network_info, reboot_type,
               block_device_info=None, bad_volumes_callback=None,
               accel_info=None):
        """Reboot; reboot_type is 'SOFT' (guest-cooperative) or 'HARD'."""
        raise NotImplementedError()

    def power_off(self, instance, timeout=0, retry_interval=0):
        """Stop the guest; with timeout > 0 ask it to shut down first."""
        raise NotImplementedError()

    def power_on(self, context, instance, network_info,
                 block_device_info=None, accel_info=None):
        """Start a stopped guest."""
        raise NotImplementedError()

    def pause(self, instance):
        """Freeze the guest's vCPUs in memory."""
        raise NotImplementedError()

    def unpause(self, instance):
        raise NotImplementedError()

    def suspend(self, context, instance):
        """Save the guest's memory to disk and stop it."""
        raise NotImplementedError()

    def resume(self, context, instance, network_info,
               block_device_info=None):
        """Restore a suspended guest."""
        raise NotImplementedError()

    # ---------------------------------------------------------- volumes
    def get_device_names(self, instance, image_meta, block_device_info=None):
        """Device names spawn will give the root, ephemeral, swap and
        volume disks: ``{'root_device_name', 'ephemerals': {num: dev},
        'swap': dev, 'volumes': {volume_id: dev}}``; raises Invalid when
        requested names conflict.  Changes nothing."""
        raise NotImplementedError()

    def get_next_volume_device(self, instance, image_meta=None, bus=None,
                               device_type='disk', requested=None, in_use=()):
        """'/dev/<name>' the next attached volume gets (``requested`` if
        free, Invalid if taken); names in ``in_use`` count as taken."""
        raise NotImplementedError()

    def attach_volume(self, context, connection_info, instance, mountpoint,
                      disk_bus=None, device_type=None, encryption=None):
        """Attach persistently, hot-plugging into a running guest; returns
        the device name used."""
        raise NotImplementedError()

    def detach_volume(self, context, connection_info, instance, mountpoint,
                      encryption=None):
        """Detach from the definition and from a running guest."""
        raise NotImplementedError()

    def attach_interface(self, context, instance, image_meta, vif):
        """Plug a port (a network model VIF) and add its NIC to the definition
        and the running guest; undone on failure."""
        raise NotImplementedError()

    def detach_interface(self, context, instance, vif):
        """Take a port's NIC out of the definition and the running guest, then unplug it."""
        raise NotImplementedError()

    def guest_volume_disks(self, instance):
        """{volume id: device name} of the volumes the guest has (crash
        reconciliation compares it with the block device mappings)."""
        raise NotImplementedError()

    def volume_snapshot_create(self, context, instance, volume_id, create_info):
        """Assisted snapshot: the attached volume continues in a new overlay
        ``create_info['new_file']``; returns the file the guest now writes to."""
        raise NotImplementedError()

    def volume_snapshot_delete(self, context, instance, volume_id, snapshot_id,
                               delete_info):
        """Merge a volume snapshot's file as ``delete_info`` says; returns the
        file the guest writes to."""
        raise NotImplementedError()

    def snapshot(self, context, instance, dest_path):
        """Write the root disk to ``dest_path`` as a standalone image;
        returns {'path', 'disk_format', 'container_format', 'size'}."""
        raise NotImplementedError()

    # ----------------------------------------------------- resize, moves
    def migrate_disk_and_power_off(self, context, instance, flavor, timeout=0,
                                   retry_interval=0, block_device_info=None,
                                   keep_for_another_host=False):
        """Stop the guest and keep what a revert needs; with
        ``keep_for_another_host`` its files stay for the destination."""
        raise NotImplementedError()

    def moved_instance_dir(self, instance):
        """Where the source keeps the files of a guest moving to another host."""
        raise NotImplementedError()

    def receive_instance_files(self, context, instance, disk_dir):
        """Copy a moving guest's files from the source's ``disk_dir``."""
        raise NotImplementedError()

    def finish_migration(self, context, instance, image_meta, block_device_info=None,
                         power_on=True, connect_volumes=False):
        """Define the guest for its new flavor (and start it)."""
        raise NotImplementedError()

    def confirm_migration(self, context, migration, instance, network_info=None,
                          another_host=False):
        """The resize or move stays: drop what a revert would have used."""
        raise NotImplementedError()

    def finish_revert_migration(self, context, instance, image_meta,
                                block_device_info=None, power_on=True,
                                connect_volumes=False):
        """Back to the old flavor and disks (and start the guest)."""
        raise NotImplementedError()

    # --------------------------------------------------- live migration
    def live_migration_target(self, instance):
        """What a source needs to reach this host (the destination's answer)."""
        raise NotImplementedError()

    def check_live_migration_source(self, instance, target, block_device_info=None):
        """MigrationPreCheckError unless the guest can go live to ``target``;
        returns what the destination prepares from."""
        raise NotImplementedError()

    def pre_live_migration(self, context, instance, source_dir, disks):
        """Prepare this host (the destination) for the arriving guest."""
        raise NotImplementedError()

    def connect_live_migration_volumes(self, instance, connection_infos):
        """Connect the volumes the guest arrives with."""
        raise NotImplementedError()

    def disconnect_live_migration_volumes(self, instance, connection_infos):
        """Let go of volume connections this host no longer uses."""
        raise NotImplementedError()

    def rollback_live_migration_at_destination(self, context, instance):
        """The move failed: nothing of the guest stays on this destination."""
        raise NotImplementedError()

    def live_migration(self, context, instance, target, progress=None):
        """Move the running guest to ``target``; blocks until done."""
        raise NotImplementedError()

    def live_migration_abort(self, instance):
        raise NotImplementedError()

    def live_migration_force_complete(self, instance):
        raise NotImplementedError()

    def live_migration_resume(self, instance):
        """Run a guest that arrived paused."""
        raise NotImplementedError()

    def cleanup_after_live_migration(self, context, instance):
        """The guest runs elsewhere now: remove its files here."""
        raise NotImplementedError()

    # ----------------------------------------------------------- rescue
    def validate_rescue_request(self, instance, image_meta, volume_backed=False):
        """Raise Invalid if this host cannot rescue ``instance`` with the
        rescue image ``image_meta``; changes nothing.  ``volume_backed``:
        the compute manager's decision from the block device mappings."""
        raise NotImplementedError()

    def rescue(self, context, instance, network_info, image_meta,
               rescue_password, block_device_info=None):
        """Boot the rescue image; on failure the guest is left as before."""
        raise NotImplementedError()

    def unrescue(self, context, instance, network_info=None):
        """Return to the exact pre-rescue guest, started."""
        raise NotImplementedError()

    def has_rescue_state(self, instance):
        """True when a rescue began and no unrescue finished (what
        unrescue restores is still saved)."""
        raise NotImplementedError()

    def is_rescued(self, instance):
        """True when a rescue finished: the rescue guest is defined and running.

        A driver that cannot tell answers False: the reconciliation then rolls
        an unreported rescue back instead of recording it.
        """
        return False

    # ------------------------------------------------------------ query
    def get_info(self, instance, use_cache=True):
        """InstanceInfo for the guest; InstanceNotFound if it is absent."""
        raise NotImplementedError()

    def get_numa_topology(self, instance):
        """The guest's NUMA cells as placed (numa_record's shape), None without NUMA."""
        return None

    def get_device_metadata(self, instance, bdms):
        """The guest's tagged devices (the metadata "devices" list), given its BDM rows."""
        return []

    def instance_exists(self, instance):
        try:
            self.get_info(instance)
        except exception.InstanceNotFound:
            return False
        return True

    def list_instances(self):
        """Hypervisor names of the guests on this host."""
        raise NotImplementedError()

    def list_instance_uuids(self):
        """UUIDs of the guests on this host."""
        raise NotImplementedError()

    def get_host_uptime(self):
        """The host's uptime line, as the uptime command prints it."""
        raise NotImplementedError()

    def get_console_output(self, context, instance):
        """Tail of the guest's serial console log, as bytes."""
        raise NotImplementedError()

    def get_instance_disk_path(self, instance):
        """Host path of the instance's root disk (may not exist yet)."""
        raise NotImplementedError()

    def get_diagnostics(self, instance):
        """The hypervisor-specific statistics dict of a running guest (before 2.48)."""
        raise NotImplementedError()

    def get_instance_diagnostics(self, instance):
        """The standard diagnostics dict of a running guest (2.48)."""
        raise NotImplementedError()
