"""Compute manager: cold migration and resize between two hosts (source and destination)."""

import json
import logging

from nova import exception, failpoint
from nova import vm_states as vs
from nova.compute import actions, manager_core, manager_ports
from nova.compute import resources as usage
from nova.compute.manager_resize import OLD_VM_STATE, crosses_hosts, flavor_values, image_meta

LOG = logging.getLogger(__name__)


def migration_usage(migrations, host, here):
    """What migrations under way change in ``host``'s usage (the start-up recount).

    ``migrations``: those in progress that start or end at ``host``;
    ``here``: the uuids of the instances placed on it. Returns the flavors
    claimed beyond them, and the uuids among them not to count.
    """
    extra, leaving = [], set()
    for migration in migrations:
        status, uuid = migration['status'], migration['instance_uuid']
        if not crosses_hosts(migration):
            if status in ('finished', 'confirming', 'reverting'):
                extra.append(migration['old_flavor'])   # kept for a revert
        elif migration['source_compute'] == host:
            if uuid not in here:
                extra.append(migration['old_flavor'])   # the kept guest's room
        elif uuid in here:
            if status == 'reverting':
                leaving.add(uuid)   # on its way back to the source, claim released
        elif status in ('pre-migrating', 'migrating', 'post-migrating',
                        'preparing', 'running'):
            # Claimed, not yet arrived ('preparing', 'running': live migration).
            extra.append(migration['new_flavor'])
    return extra, leaving


class MigrateManager:
    """Cold migration and resize between two hosts: this host as source or destination.

    The steps, one host at a time: the conductor claims the new flavor on the
    destination; the source stops the guest and keeps its files
    (``resize_instance``); the destination copies them, takes the instance
    and starts it (``finish_resize``). Confirm frees the source's files and
    claim; revert frees the destination's and the source starts the guest
    from the files it kept (``finish_revert_resize``). A failure on either
    side ends with the server back on the source, as it was, and a fault.
    """

    target = manager_core.RPC_TARGET

    def __init__(self, core, volumes, volume_api, compute_rpcapi, resources,
                 network_api=None):
        self.core = core
        self.conf = core.conf
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        self._volumes = volumes
        self.volume_api = volume_api
        self.compute_rpcapi = compute_rpcapi
        # When this host last recounted its usage (abort_migration).
        self._resources = resources
        # The ports follow the guest (bound to the destination, back to the
        # source on a revert); no-ops without a network service.
        self.network_api = network_api
        self.ports = manager_ports.PortMoves(core, network_api)

    # -- source: stop the guest and hand over its disks -------------------------
    def resize_instance(self, context, instance, migration_id):
        with self.core.lock(instance.uuid):
            migration = self.conductor_db.migration_get(migration_id)
            old_vm_state = instance.vm_state
            sysmeta = dict(instance.system_metadata or {}, **{OLD_VM_STATE: old_vm_state})
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_resize_instance', host=self.host):
                    self.conductor_db.migration_update(migration_id, {'status': 'migrating'})
                    self.conductor_db.instance_update(instance.uuid, {
                        'task_state': 'resize_migrating', 'system_metadata': sysmeta})
                    self.driver.migrate_disk_and_power_off(
                        context, instance, migration['new_flavor'],
                        timeout=self.conf.shutdown_timeout, retry_interval=5,
                        block_device_info=self.core.block_device_info(context, instance),
                        keep_for_another_host=True)
                    self.release_volume_connections(context, instance)
                    self.conductor_db.migration_update(migration_id,
                                                       {'status': 'post-migrating'})
                    self.conductor_db.instance_update(instance.uuid,
                                                      {'task_state': 'resize_migrated'})
                    failpoint.hit('migrate.after_power_off')
            except Exception as exc:  # noqa: BLE001 - rolled back here, recorded.
                LOG.exception('Migrating %s away failed; it stays here', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self._restart_here(context, instance, migration, old_vm_state, 'error')
                self.compute_rpcapi.abort_migration(context, instance,
                                                    migration['dest_compute'], migration_id)
                return
        self.compute_rpcapi.finish_resize(context, instance, migration['dest_compute'],
                                          migration_id, self.driver.moved_instance_dir(instance))

    # -- destination: take the disks, the instance, and start it -----------------
    def finish_resize(self, context, instance, migration_id, disk_dir):
        with self.core.lock(instance.uuid):
            migration = self.conductor_db.migration_get(migration_id)
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_finish_resize', host=self.host):
                    self._take_instance(context, instance, migration, disk_dir)
            except Exception as exc:  # noqa: BLE001 - handed back to the source.
                LOG.exception('Finishing the migration of %s here failed; back to %s',
                              instance.uuid, migration['source_compute'])
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self._drop_here(context, instance, migration)
                self.conductor_db.migration_update(migration_id, {'status': 'reverting'})
                self.compute_rpcapi.finish_revert_resize(
                    context, instance, migration['source_compute'], migration_id, 'error')

    def _take_instance(self, context, instance, migration, disk_dir):
        self.driver.receive_instance_files(context, instance, disk_dir)
        row = self.conductor_db.instance_update(instance.uuid, dict(
            flavor_values(migration['new_flavor']), host=self.host,
            node=migration['dest_node'] or self.host, task_state='resize_finish'))
        instance.refresh_from(row)
        failpoint.hit('migrate.after_take')
        self.ports.bind_here(context, instance)
        self.connect_volume_attachments(context, instance)
        self.driver.finish_migration(context, instance, image_meta(instance),
                                     self.core.block_device_info(context, instance),
                                     power_on=self._old_vm_state(instance) != vs.STOPPED,
                                     connect_volumes=True)
        self._volumes.complete_volumes(context, instance)
        self.core.record_guest(instance)
        self.conductor_db.migration_update(migration['id'], {'status': 'finished'})
        self.conductor_db.instance_update(instance.uuid, {
            'vm_state': vs.RESIZED, 'task_state': None,
            'power_state': self.core.power_state(instance)})

    def _drop_here(self, context, instance, migration):
        """This host's copy of the guest and its files go; so does the new flavor's claim."""
        try:
            self.driver.destroy(context, instance, destroy_disks=True,
                                block_device_info=self.core.block_device_info(context, instance))
        except Exception:  # noqa: BLE001 - the claim must still go.
            LOG.exception('Could not remove the copy of %s on this host', instance.uuid)
        try:
            self.release_volume_connections(context, instance)
        except Exception:  # noqa: BLE001 - the source reconnects what it can.
            LOG.exception('Could not hand the volumes of %s back', instance.uuid)
        self.conductor_db.compute_node_release(
            self.host, *usage.requested_resources(migration['new_flavor']))

    def abort_migration(self, context, instance, migration_id):
        with self.core.lock(instance.uuid):
            migration = self.conductor_db.migration_get(migration_id)
            recounted = self._resources.recounted_at
            ended = migration['updated_at']
            if recounted is not None and ended is not None and \
                    ended.replace(tzinfo=None) <= recounted:
                # This host's start-up recount came after the move failed: it
                # already left this claim out (a restart on the source sends
                # this before the destination listens).
                return
            self.conductor_db.compute_node_release(
                self.host, *usage.requested_resources(migration['new_flavor']))

    # -- volumes: the attachment follows the guest, as upstream's moves do ------------
    def release_volume_connections(self, context, instance):
        """This host lets go of the volumes: each gets a new, unconnected attachment.

        The new attachment keeps the volume reserved for the server while the
        one connected from this host goes; whichever host starts the guest
        next connects it with its own connector.
        """
        vctx = self.volume_api.context_for(context, instance)
        for bdm in self.core.bdms(instance.uuid):
            if bdm['destination_type'] != 'volume' or not bdm['attachment_id'] \
                    or not bdm['connection_info']:
                continue
            held = self.volume_api.attachment_create(vctx, bdm['volume_id'], instance.uuid)
            self.conductor_db.bdm_update(bdm['uuid'], {'attachment_id': held['id'],
                                                       'connection_info': None})
            try:
                self.volume_api.attachment_delete(vctx, bdm['attachment_id'])
            except exception.NotFound:
                pass

    def connect_volume_attachments(self, context, instance):
        """Connect the attachments another host let go of with this host's connector."""
        vctx = self.volume_api.context_for(context, instance)
        for bdm in self.core.bdms(instance.uuid):
            if bdm['destination_type'] != 'volume' or not bdm['attachment_id'] \
                    or bdm['connection_info']:
                continue
            attachment = self.volume_api.attachment_update(
                vctx, bdm['attachment_id'], self._volumes.connector(),
                mountpoint=bdm['device_name'])
            self.conductor_db.bdm_update(bdm['uuid'], {'connection_info': json.dumps(
                self._volumes.host_connection_info(vctx, bdm['volume_id'], attachment))})

    @staticmethod
    def _old_vm_state(instance):
        return (instance.system_metadata or {}).get(OLD_VM_STATE, vs.ACTIVE)

    # -- revert: the destination lets go, the source starts the guest again ------
    def revert_on_destination(self, context, instance, migration):
        with self.core.event(context, instance.uuid,
                           'compute_revert_resize', host=self.host):
            self._drop_here(context, instance, migration)
        self.compute_rpcapi.finish_revert_resize(
            context, instance, migration['source_compute'], migration['id'], 'reverted')

    def finish_revert_resize(self, context, instance, migration_id, status):
        with self.core.lock(instance.uuid):
            migration = self.conductor_db.migration_get(migration_id)
            row = self.conductor_db.instance_get(instance.uuid)
            instance.refresh_from(row)
            old_vm_state = self._old_vm_state(instance)
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_finish_revert_resize', host=self.host):
                    self._restart_here(context, instance, migration, old_vm_state, status)
            except Exception as exc:  # noqa: BLE001 - recorded; the server is in ERROR.
                LOG.exception('Starting %s again here failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self.conductor_db.instance_update(instance.uuid, {
                    'vm_state': vs.ERROR, 'task_state': None, 'host': self.host,
                    'node': migration['source_node'] or self.host})
                self.conductor_db.migration_update(migration_id, {'status': 'error'})

    def _restart_here(self, context, instance, migration, old_vm_state, status):
        """The instance back on this (source) host with its old flavor and guest."""
        sysmeta = {k: v for k, v in (instance.system_metadata or {}).items()
                   if k != OLD_VM_STATE}
        row = self.conductor_db.instance_update(instance.uuid, dict(
            flavor_values(migration['old_flavor']), host=self.host,
            node=migration['source_node'] or self.host))
        instance.refresh_from(row)
        self.ports.bind_here(context, instance)
        self.connect_volume_attachments(context, instance)
        self.driver.finish_revert_migration(context, instance, image_meta(instance),
                                            self.core.block_device_info(context, instance),
                                            power_on=old_vm_state != vs.STOPPED,
                                            connect_volumes=True)
        self._volumes.complete_volumes(context, instance)
        self.core.record_guest(instance)
        # The instance first: once the migration ends this host may no longer touch it.
        self.conductor_db.instance_update(instance.uuid, {
            'vm_state': old_vm_state, 'task_state': None, 'system_metadata': sysmeta,
            'power_state': self.core.power_state(instance)})
        self.conductor_db.migration_update(migration['id'], {'status': status})

    # -- confirm: the source lets go ------------------------------------------------
    def confirm_on_source(self, context, instance, migration):
        """Drop the files kept for a revert and the old flavor's claim."""
        self.driver.confirm_migration(context, migration, instance, another_host=True)
        try:
            row = self.conductor_db.instance_get(instance.uuid)
            sysmeta = dict(row['system_metadata'] or {})
            old_vm_state = sysmeta.pop(OLD_VM_STATE, vs.ACTIVE)
            self.conductor_db.instance_update(instance.uuid, {
                'vm_state': vs.STOPPED if old_vm_state == vs.STOPPED else vs.ACTIVE,
                'task_state': None, 'system_metadata': sysmeta},
                expected_vm_state=[vs.RESIZED])
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            pass   # deleted while resized: the destination already removed it
        self.conductor_db.compute_node_release(
            self.host, *usage.requested_resources(migration['old_flavor']))
        # The caller ends the migration once its event is recorded: after
        # that this host may no longer touch the server's records.

    # -- after a restart: end what the crash interrupted ------------------------------
    def reconcile_migration(self, context, instance, migration):
        """A move between hosts interrupted here: the server goes back to its source."""
        status = migration['status']
        LOG.warning('Move of %s from %s to %s was interrupted (%s): back to %s',
                    instance.uuid, migration['source_compute'], migration['dest_compute'],
                    status, migration['source_compute'])
        actions.record_fault(self.conductor_db, instance.uuid, exception.MigrationError(
            reason='the move from %s to %s was interrupted by a restart; the server is '
                   'back on %s' % (migration['source_compute'], migration['dest_compute'],
                                   migration['source_compute'])), host=self.host)
        if self.host == migration['source_compute'] and instance.host == self.host:
            self._restart_here(context, instance, migration, self._old_vm_state(instance),
                               'error')
            self.compute_rpcapi.abort_migration(context, instance, migration['dest_compute'],
                                                migration['id'])
        elif self.host == migration['dest_compute'] and instance.host == self.host:
            self._drop_here(context, instance, migration)
            if status != 'reverting':
                self.conductor_db.migration_update(migration['id'], {'status': 'reverting'})
            self.compute_rpcapi.finish_revert_resize(
                context, instance, migration['source_compute'], migration['id'],
                'reverted' if status == 'reverting' else 'error')
