"""Client side of the compute RPC API: calls go to the instance's host."""

from nova import rpc
from nova.image import sysmeta

TOPIC = 'compute'
# The first version of: resize and shelve; moves between two hosts; live
# migration; build_and_run_instance without an image.
RESIZE = '1.2'
MOVE = '1.3'
LIVE = '1.5'
BUILD_WITHOUT_IMAGE = '1.6'
INTERFACES = '1.7'
EVACUATE = '1.8'


class ComputeAPI:
    """Version history:

    * 1.0 - Initial version: build_and_run_instance, terminate_instance,
            power_action, get_console_output, snapshot_instance,
            rebuild_instance.
    * 1.0 - (same major) get_diagnostics, backup_instance, soft_delete_instance,
            restore_instance, external_instance_event added while 1.x is
            unreleased.
    * 1.1 - get_host_uptime (os-hypervisors uptime).
    * 1.1 - (same minor) get_console_connect_info (remote consoles),
            set_admin_password (changePassword).
    * 1.2 - prep_resize, confirm_resize, revert_resize, shelve_instance,
            shelve_offload_instance, unshelve_instance.
    * 1.3 - resize_instance, finish_resize, finish_revert_resize,
            abort_migration: cold migration and resize between two hosts.
    * 1.4 - rebuild_instance(reimage_boot_volume=True): the root volume of a
            volume-backed server re-imaged by the volume service (2.93).
    * 1.4 - (same minor, added while 1.4 is unreleased) volume_snapshot_create,
            volume_snapshot_delete (assisted volume snapshots).
    * 1.5 - check_can_live_migrate_destination, check_can_live_migrate_source,
            pre_live_migration, live_migration, post_live_migration_at_destination,
            rollback_live_migration_at_destination, live_migration_abort,
            live_migration_force_complete: live migration between hosts.
    * 1.6 - build_and_run_instance(instance, request_spec, admin_password=None):
            no ``image``; the host reads the image metadata from the instance's
            system metadata (as it did before). A 1.6 host still takes a 1.0
            message with ``image`` (and does not read it).
    * 1.7 - attach_interface(instance, network_id, port_id, requested_ip, tag) -> vif dict
            (call, timeout [DEFAULT] rpc_response_timeout); detach_interface(instance,
            port_id) (cast).
    * 1.8 - evacuate_instance(instance, migration_id, admin_password, stopped): to the
            new host of a server whose host is down (rebuilt there from its image).

    ``[upgrade_levels] compute`` caps the version sent: a message that needs a
    newer version than the pin is not sent (oslo.messaging raises
    RPCVersionCapError), so an older host never receives a call it cannot read.
    Pinned below 1.6, build_and_run_instance goes as 1.0 with the ``image``
    argument those hosts require (rebuilt from the instance's system metadata).
    """

    VERSION = '1.8'

    def __init__(self, conf):
        self.conf = conf
        self.client = rpc.get_client(conf, TOPIC, self.VERSION,
                                     version_cap=conf.upgrade_levels.compute)

    def _prepare(self, host, version='1.0', timeout=None):
        return self.client.prepare(server=host, version=version, timeout=timeout)

    def build_and_run_instance(self, context, instance, host, request_spec,
                               admin_password=None):
        if self.client.can_send_version(BUILD_WITHOUT_IMAGE):
            self._prepare(host, version=BUILD_WITHOUT_IMAGE).cast(
                context, 'build_and_run_instance', instance=instance,
                request_spec=request_spec, admin_password=admin_password)
            return
        self._prepare(host).cast(context, 'build_and_run_instance', instance=instance,
                                 image=sysmeta.sysmeta_to_image(instance.system_metadata),
                                 request_spec=request_spec, admin_password=admin_password)

    def terminate_instance(self, context, instance, host):
        self._prepare(host).cast(context, 'terminate_instance', instance=instance)

    def power_action(self, context, instance, host, action, **kwargs):
        self._prepare(host).cast(context, 'power_action', instance=instance, action=action,
                                 **kwargs)

    def get_console_output(self, context, instance, host):
        return self._prepare(host, timeout=30).call(context, 'get_console_output',
                                                    instance=instance)

    def get_host_uptime(self, context, host):
        return self._prepare(host, version='1.1', timeout=30).call(context, 'get_host_uptime')

    def snapshot_instance(self, context, instance, host, image_id):
        self._prepare(host).cast(context, 'snapshot_instance', instance=instance,
                                 image_id=image_id)

    def rebuild_instance(self, context, instance, host, image, admin_password=None,
                         injected_files=None, reimage_boot_volume=False):
        # Only sent when there are files: older hosts do not take the argument.
        extra = {'injected_files': injected_files} if injected_files else {}
        version = '1.0'
        if reimage_boot_volume:
            extra['reimage_boot_volume'] = True
            version = '1.4'
        self._prepare(host, version=version).cast(
            context, 'rebuild_instance', instance=instance, image=image,
            admin_password=admin_password, **extra)

    def reserve_device_name(self, context, instance, host, requested=None, bus=None,
                            bdm=None):
        """The next device name; with ``bdm`` values, the uuid of the BDM recorded with it."""
        kwargs = {'bdm': bdm} if bdm is not None else {}
        return self._prepare(host, timeout=30).call(
            context, 'reserve_device_name', instance=instance, requested=requested, bus=bus,
            **kwargs)

    def attach_volume(self, context, instance, host, bdm_uuid):
        self._prepare(host).cast(context, 'attach_volume', instance=instance,
                                 bdm_uuid=bdm_uuid)

    def detach_volume(self, context, instance, host, volume_id):
        self._prepare(host).cast(context, 'detach_volume', instance=instance,
                                 volume_id=volume_id)

    def validate_rescue(self, context, instance, host, rescue_image):
        return self._prepare(host, timeout=30).call(
            context, 'validate_rescue', instance=instance, rescue_image=rescue_image)

    def rescue_instance(self, context, instance, host, rescue_image, password):
        self._prepare(host).cast(context, 'rescue_instance', instance=instance,
                                 rescue_image=rescue_image, rescue_password=password)

    def unrescue_instance(self, context, instance, host):
        self._prepare(host).cast(context, 'unrescue_instance', instance=instance)

    def get_diagnostics(self, context, instance, host, standard=False):
        return self._prepare(host, timeout=30).call(
            context, 'get_diagnostics', instance=instance, standard=standard)

    def backup_instance(self, context, instance, host, image_id, backup_type, rotation):
        self._prepare(host).cast(context, 'backup_instance', instance=instance,
                                 image_id=image_id, backup_type=backup_type,
                                 rotation=rotation)

    def soft_delete_instance(self, context, instance, host):
        self._prepare(host).cast(context, 'soft_delete_instance', instance=instance)

    def restore_instance(self, context, instance, host):
        self._prepare(host).cast(context, 'restore_instance', instance=instance)

    def attach_interface(self, context, instance, host, network_id=None, port_id=None,
                         requested_ip=None, tag=None):
        return self._prepare(host, version=INTERFACES).call(
            context, 'attach_interface', instance=instance, network_id=network_id,
            port_id=port_id, requested_ip=requested_ip, tag=tag)

    def detach_interface(self, context, instance, host, port_id):
        self._prepare(host, version=INTERFACES).cast(
            context, 'detach_interface', instance=instance, port_id=port_id)

    def external_instance_event(self, context, instance, host, events):
        self._prepare(host).cast(context, 'external_instance_event', instance=instance,
                                 events=events)

    def get_console_connect_info(self, context, instance, host, console_type):
        """{'host', 'port', 'internal_access_path'} of the guest's console (SPICE: +tls_port)."""
        return self._prepare(host, timeout=30).call(
            context, 'get_console_connect_info', instance=instance, console_type=console_type)

    def set_admin_password(self, context, instance, host, new_pass):
        # A call, as upstream: the API answers 409/501 when the agent cannot do it.
        return self._prepare(host, timeout=60).call(
            context, 'set_admin_password', instance=instance, new_pass=new_pass)

    def volume_snapshot_create(self, context, instance, host, volume_id, create_info):
        self._prepare(host, version='1.4').cast(
            context, 'volume_snapshot_create', instance=instance, volume_id=volume_id,
            create_info=create_info)

    def volume_snapshot_delete(self, context, instance, host, volume_id, snapshot_id,
                               delete_info):
        self._prepare(host, version='1.4').cast(
            context, 'volume_snapshot_delete', instance=instance, volume_id=volume_id,
            snapshot_id=snapshot_id, delete_info=delete_info)

    # -- resize on one host (1.2) ----------------------------------------------------
    def prep_resize(self, context, instance, host, migration_id):
        self._prepare(host, version=RESIZE).cast(context, 'prep_resize', instance=instance,
                                                 migration_id=migration_id)

    def confirm_resize(self, context, instance, host, migration_id):
        self._prepare(host, version=RESIZE).cast(context, 'confirm_resize', instance=instance,
                                                 migration_id=migration_id)

    def revert_resize(self, context, instance, host, migration_id):
        self._prepare(host, version=RESIZE).cast(context, 'revert_resize', instance=instance,
                                                 migration_id=migration_id)

    # -- between two hosts (1.3) -----------------------------------------------------
    def resize_instance(self, context, instance, host, migration_id):
        """To the source: stop the guest and hand its disks to the destination."""
        self._prepare(host, version=MOVE).cast(context, 'resize_instance', instance=instance,
                                               migration_id=migration_id)

    def finish_resize(self, context, instance, host, migration_id, disk_dir):
        """To the destination: take the disks from ``disk_dir`` and start the guest."""
        self._prepare(host, version=MOVE).cast(context, 'finish_resize', instance=instance,
                                               migration_id=migration_id, disk_dir=disk_dir)

    def finish_revert_resize(self, context, instance, host, migration_id, status):
        """To the source: the guest back from the disks it kept; migration ends ``status``."""
        self._prepare(host, version=MOVE).cast(context, 'finish_revert_resize',
                                               instance=instance, migration_id=migration_id,
                                               status=status)

    def abort_migration(self, context, instance, host, migration_id):
        """To the destination: the move stopped before it arrived; free its claim."""
        self._prepare(host, version=MOVE).cast(context, 'abort_migration', instance=instance,
                                               migration_id=migration_id)

    # -- shelve (1.2) ----------------------------------------------------------------
    def shelve_instance(self, context, instance, host, image_id):
        self._prepare(host, version=RESIZE).cast(context, 'shelve_instance', instance=instance,
                                                 image_id=image_id)

    def shelve_offload_instance(self, context, instance, host):
        self._prepare(host, version=RESIZE).cast(context, 'shelve_offload_instance',
                                                 instance=instance)

    def unshelve_instance(self, context, instance, host):
        self._prepare(host, version=RESIZE).cast(context, 'unshelve_instance', instance=instance)

    # -- evacuate (1.8) ---------------------------------------------------------------
    def evacuate_instance(self, context, instance, host, migration_id, admin_password=None,
                          stopped=False):
        self._prepare(host, version=EVACUATE).cast(
            context, 'evacuate_instance', instance=instance, migration_id=migration_id,
            admin_password=admin_password, stopped=stopped)

    # -- live migration (1.5) --------------------------------------------------------
    def check_can_live_migrate_destination(self, context, instance, host):
        """To the destination: how to reach it ({'error': message} when it cannot take it)."""
        return self._prepare(host, version=LIVE, timeout=60).call(
            context, 'check_can_live_migrate_destination', instance=instance)

    def check_can_live_migrate_source(self, context, instance, host, target):
        """To the source: can the guest go to ``target``? What to prepare there."""
        return self._prepare(host, version=LIVE, timeout=60).call(
            context, 'check_can_live_migrate_source', instance=instance, target=target)

    def pre_live_migration(self, context, instance, host, source):
        """To the destination: the instance directory ready to receive the guest."""
        return self._prepare(host, version=LIVE, timeout=300).call(
            context, 'pre_live_migration', instance=instance, source=source)

    def live_migration(self, context, instance, host, migration_id, target, source):
        """To the source: move the guest to ``target``, then hand it over."""
        self._prepare(host, version=LIVE).cast(
            context, 'live_migration', instance=instance, migration_id=migration_id,
            target=target, source=source)

    def post_live_migration_at_destination(self, context, instance, host, migration_id,
                                           resume=False, volumes=None):
        """To the destination: the guest runs there (``resume``: paused); it is its now.

        ``volumes``: the attachments its pre_live_migration made, to record.
        """
        return self._prepare(host, version=LIVE, timeout=120).call(
            context, 'post_live_migration_at_destination', instance=instance,
            migration_id=migration_id, resume=resume, volumes=volumes or {})

    def rollback_live_migration_at_destination(self, context, instance, host, migration_id,
                                               volumes=None):
        """To the destination: the move failed; drop its files, attachments and claim."""
        self._prepare(host, version=LIVE).cast(
            context, 'rollback_live_migration_at_destination', instance=instance,
            migration_id=migration_id, volumes=volumes or {})

    def live_migration_abort(self, context, instance, host, migration_id):
        """To the source: stop the running migration (2.24)."""
        self._prepare(host, version=LIVE).cast(
            context, 'live_migration_abort', instance=instance, migration_id=migration_id)

    def live_migration_force_complete(self, context, instance, host, migration_id):
        """To the source: pause the guest so that the migration ends (2.22)."""
        self._prepare(host, version=LIVE).cast(
            context, 'live_migration_force_complete', instance=instance,
            migration_id=migration_id)
