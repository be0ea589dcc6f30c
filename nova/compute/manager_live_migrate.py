"""Compute manager: live migration of a running guest from this host to another, or to this one."""

import json
import logging

from nova import exception
from nova.compute import actions, manager_core, manager_ports
from nova.compute import resources as usage
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)


class _Cancelled(Exception):
    """The migration was cancelled (2.65) before it started to run."""


def _volume_paths(held, volumes):
    """{source file path: destination file path} of the volumes (file connections)."""
    paths = {}
    for bdm_uuid, bdm in held.items():
        old = json.loads(bdm['connection_info'] or 'null') or {}
        new = volumes[bdm_uuid]['connection_info'] or {}
        old_path = (old.get('data') or {}).get('device_path')
        new_path = (new.get('data') or {}).get('device_path')
        if old_path and new_path:
            paths[old_path] = new_path
    return paths


def _error(exc):
    return {'error': exc.format_message() if isinstance(exc, exception.NovaException)
            else str(exc)}


class LiveMigrateManager:
    """Live migration of a running guest from this host to another, or to this one.

    The conductor claims the destination and asks both hosts whether the
    move can be done (``check_can_live_migrate_*``, calls: their answers
    carry an ``error`` instead of raising). The source then asks the
    destination to prepare (``pre_live_migration``), migrates with libvirt
    while the migration record shows 'running', and
    hands the instance over (``post_live_migration_at_destination``). A
    failure leaves the guest running on the source, the migration in
    'error' and a fault; the destination drops its files and its claim.
    """

    target = manager_core.RPC_TARGET

    def __init__(self, core, volumes, volume_api, compute_rpcapi, network_api=None):
        self.core = core
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        self._volumes = volumes
        self.volume_api = volume_api
        self.compute_rpcapi = compute_rpcapi
        # The network service, once there is one: the ports are bound to the
        # destination before the guest runs there.
        self.network_api = network_api
        self.ports = manager_ports.PortMoves(core, network_api)
        # Destination: where each arriving guest's source plugs its VIFs.
        self._source_sites = {}         # instance uuid -> the source's plug site
        # Beside live_migration, which holds the instance lock while it runs:
        self._live_aborts = {}          # migration id -> an abort was asked for
        self._guest_paused_by_us = {}   # instance uuid -> paused to force completion

    # -- checks (calls from the conductor) ------------------------------------------
    def check_can_live_migrate_destination(self, context, instance):
        try:
            return self.driver.live_migration_target(instance)
        except exception.NovaException as exc:
            return _error(exc)

    def check_can_live_migrate_source(self, context, instance, target):
        try:
            return self.driver.check_live_migration_source(
                instance, target, self.core.block_device_info(context, instance))
        except exception.NovaException as exc:
            return _error(exc)

    # -- destination -------------------------------------------------------------------
    def pre_live_migration(self, context, instance, source):
        """Files, then the volumes: a new attachment each, connected from this host.

        Answers ``{'volumes': {bdm uuid: {'attachment_id', 'connection_info'}}}``
        (the source keeps using its own attachments until the guest is here).
        """
        volumes = {}
        self._source_sites[instance.uuid] = source.get('plug_site')
        try:
            with self.core.event(context, instance.uuid,
                               'compute_pre_live_migration', host=self.host):
                network_info = self.ports.prepare_live_destination(context, instance)
                self.driver.pre_live_migration(context, instance, source['source_dir'],
                                               source['disks'], network_info=network_info)
                self._live_attach_volumes(context, instance, volumes)
        except Exception as exc:  # noqa: BLE001 - answered to the source, which rolls back.
            LOG.exception('Preparing for the live migration of %s failed', instance.uuid)
            self._live_drop_attachments(context, instance, volumes)
            self.ports.rollback_live_destination(context, instance)
            return _error(exc)
        return {'volumes': volumes}

    def _live_attach_volumes(self, context, instance, volumes):
        vctx = self.volume_api.context_for(context, instance)
        for bdm in self.core.bdms(instance.uuid):
            if bdm['destination_type'] != 'volume' or not bdm['attachment_id']:
                continue
            attachment = self.volume_api.attachment_create(
                vctx, bdm['volume_id'], instance.uuid, connector=self._volumes.connector(),
                mountpoint=bdm['device_name'])
            volumes[bdm['uuid']] = {
                'attachment_id': attachment['id'],
                'connection_info': self._volumes.host_connection_info(vctx, bdm['volume_id'],
                                                                      attachment)}
        self.driver.connect_live_migration_volumes(
            instance, [v['connection_info'] for v in volumes.values()])

    def _live_drop_attachments(self, context, instance, volumes):
        """Delete the attachments this host made for a move that did not happen."""
        if not volumes:
            return
        self.driver.disconnect_live_migration_volumes(
            instance, [v['connection_info'] for v in volumes.values()])
        vctx = self.volume_api.context_for(context, instance)
        for volume in volumes.values():
            try:
                self.volume_api.attachment_delete(vctx, volume['attachment_id'])
            except Exception:  # noqa: BLE001 - the others still go.
                LOG.exception('Could not delete attachment %s of %s',
                              volume['attachment_id'], instance.uuid)

    def post_live_migration_at_destination(self, context, instance, migration_id,
                                           resume=False, volumes=None):
        """``resume``: the source paused the guest to complete the move (force complete).

        ``volumes``: this host's attachments (pre_live_migration's answer),
        which the block device mappings now record.
        """
        with self.core.lock(instance.uuid):
            migration = self.conductor_db.migration_get(migration_id)
            with self.core.event(context, instance.uuid,
                               'compute_post_live_migration_at_destination', host=self.host):
                # The guest must be here (a restart on the source asks too).
                self.driver.get_info(instance)
                if resume:
                    self.driver.live_migration_resume(instance)
                self._source_sites.pop(instance.uuid, None)
                self.conductor_db.instance_update(instance.uuid, {
                    'host': self.host, 'node': migration['dest_node'] or self.host,
                    'task_state': None, 'power_state': self.core.power_state(instance)})
                self.ports.finish_live_destination(context, instance)
                self._live_take_attachments(context, instance, volumes or {})
        return {}

    def _live_take_attachments(self, context, instance, volumes):
        vctx = self.volume_api.context_for(context, instance)
        for bdm_uuid, volume in volumes.items():
            self.conductor_db.bdm_update(bdm_uuid, {
                'attachment_id': volume['attachment_id'],
                'connection_info': json.dumps(volume['connection_info'])})
            self.volume_api.attachment_complete(vctx, volume['attachment_id'])

    def rollback_live_migration_at_destination(self, context, instance, migration_id,
                                               volumes=None):
        with self.core.lock(instance.uuid):
            migration = self.conductor_db.migration_get(migration_id)
            try:
                self.driver.rollback_live_migration_at_destination(
                    context, instance, source_site=self._source_sites.pop(instance.uuid, None))
            except Exception:  # noqa: BLE001 - the claim must still go.
                LOG.exception('Could not remove the copy of %s here', instance.uuid)
            self.ports.rollback_live_destination(context, instance)
            try:
                self._live_drop_attachments(context, instance, volumes or {})
            except Exception:  # noqa: BLE001 - the claim must still go.
                LOG.exception('Could not drop the attachments of %s here', instance.uuid)
            self.conductor_db.compute_node_release(
                self.host, *usage.requested_resources(migration['new_flavor']))

    # -- source --------------------------------------------------------------------------
    def live_migration(self, context, instance, migration_id, target, source):
        with self.core.lock(instance.uuid):
            migration = self.conductor_db.migration_get(migration_id)
            dest = migration['dest_compute']
            volumes, held = {}, {}
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_live_migration', host=self.host):
                    answer = self.compute_rpcapi.pre_live_migration(context, instance, dest,
                                                                    source)
                    if answer.get('error'):
                        raise exception.MigrationError(reason=answer['error'])
                    volumes = answer.get('volumes') or {}
                    held = {b['uuid']: b for b in self.core.bdms(instance.uuid)
                            if b['uuid'] in volumes}
                    target = dict(target, volume_paths=_volume_paths(held, volumes))
                    if self.conductor_db.migration_get(migration_id)['status'] != 'preparing':
                        raise _Cancelled()
                    self.conductor_db.migration_update(migration_id, {'status': 'running'})
                    self.driver.live_migration(
                        context, instance, target,
                        progress=lambda stats: self._live_progress(instance, stats))
            except Exception as exc:  # noqa: BLE001 - rolled back here, recorded.
                cancelled = isinstance(exc, _Cancelled) or \
                    self._live_aborts.pop(migration_id, False)
                if cancelled:
                    LOG.info('Live migration of %s to %s cancelled', instance.uuid, dest)
                else:
                    LOG.exception('Live migration of %s to %s failed; it stays here',
                                  instance.uuid, dest)
                self._live_migration_failed(context, instance, migration, exc, cancelled,
                                            volumes=volumes)
                return
            finally:
                self._live_aborts.pop(migration_id, None)
        activated = self.ports.activate_on(context, instance, dest)
        try:
            self.compute_rpcapi.post_live_migration_at_destination(
                context, instance, dest, migration_id,
                resume=self._guest_paused_by_us.pop(instance.uuid, False), volumes=volumes)
        except Exception as exc:  # noqa: BLE001 - the guest runs there already.
            LOG.exception('The destination %s did not take %s over', dest, instance.uuid)
            actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
            self.conductor_db.migration_update(migration_id, {'status': 'error'})
            return
        # After the server shows ACTIVE on the destination, as upstream's teardown.
        self.ports.drop_source(context, activated)
        self._live_release_attachments(context, instance, held)
        self.driver.cleanup_after_live_migration(context, instance, target)
        self.conductor_db.compute_node_release(
            self.host, *usage.requested_resources(migration['old_flavor']))
        self.conductor_db.migration_update(migration_id, {'status': 'completed'})
        LOG.info('Live migrated %s to %s', instance.uuid, dest)

    def _live_release_attachments(self, context, instance, held):
        """The guest runs on the destination: this host's attachments go."""
        vctx = self.volume_api.context_for(context, instance)
        self.driver.disconnect_live_migration_volumes(
            instance, [json.loads(b['connection_info']) for b in held.values()
                       if b['connection_info']])
        for bdm in held.values():
            try:
                self.volume_api.attachment_delete(vctx, bdm['attachment_id'])
            except Exception:  # noqa: BLE001 - the move is done; the others still go.
                LOG.exception('Could not delete attachment %s of %s', bdm['attachment_id'],
                              instance.uuid)

    @staticmethod
    def _live_progress(instance, stats):
        # The migration record has no counter columns yet: the log shows them.
        LOG.debug('Live migration of %s: memory %s/%s bytes, disk %s/%s bytes',
                  instance.uuid, stats.get('memory_processed'), stats.get('memory_total'),
                  stats.get('disk_processed'), stats.get('disk_total'))

    def _live_migration_failed(self, context, instance, migration, exc, cancelled=False,
                               volumes=None):
        if not cancelled:
            actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
        self.conductor_db.migration_update(migration['id'], {
            'status': 'cancelled' if cancelled else 'error'})
        if self._guest_paused_by_us.pop(instance.uuid, False):
            try:
                self.driver.unpause(instance)
            except Exception:  # noqa: BLE001 - the guest stays paused, the state says so.
                LOG.exception('Could not resume %s after the failed migration', instance.uuid)
        try:
            self.conductor_db.instance_update(instance.uuid, {'task_state': None},
                                              expected_task_state=['migrating'])
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            pass
        self.compute_rpcapi.rollback_live_migration_at_destination(
            context, instance, migration['dest_compute'], migration['id'], volumes=volumes)

    # -- while it runs (beside live_migration, which holds the instance lock) ------------
    def live_migration_abort(self, context, instance, migration_id):
        migration = self.conductor_db.migration_get(migration_id)
        if migration['status'] != 'running':
            return
        self._live_aborts[migration_id] = True
        try:
            with self.core.event(context, instance.uuid,
                               'compute_live_migration_abort', host=self.host):
                self.driver.live_migration_abort(instance)
        except exception.NovaException:
            self._live_aborts.pop(migration_id, None)
            LOG.exception('Could not abort the live migration of %s', instance.uuid)

    def live_migration_force_complete(self, context, instance, migration_id):
        migration = self.conductor_db.migration_get(migration_id)
        if migration['status'] != 'running':
            return
        try:
            with self.core.event(context, instance.uuid,
                               'compute_live_migration_force_complete', host=self.host):
                self.driver.live_migration_force_complete(instance)
                self._guest_paused_by_us[instance.uuid] = True
        except exception.NovaException:
            LOG.exception('Could not pause %s to complete its migration', instance.uuid)

    # -- after a restart of the source ------------------------------------------------
    def reconcile_live_migration(self, context, row):
        """A live migration from here that a restart interrupted: end it. True if it was one.

        The guest still here: the move failed (the migration 'error', a fault,
        the destination drops its copy). The guest gone: libvirt finished the
        move, and the destination is asked to take the instance over.
        """
        if row['task_state'] != 'migrating':
            return False
        instance = instance_obj.Instance.from_db(row)
        migration = self.conductor_db.migration_get_by_instance_and_status(
            row['uuid'], ('accepted', 'queued', 'preparing', 'running', 'post-migrating'))
        if migration is None or migration['migration_type'] != 'live-migration' or \
                migration['source_compute'] != self.host:
            self.conductor_db.instance_update(row['uuid'], {'task_state': None})
            return True
        dest = migration['dest_compute']
        try:
            self.driver.get_info(instance)
            here = True
        except exception.NotFound:
            here = False
        if not here and dest:
            try:
                self.compute_rpcapi.post_live_migration_at_destination(
                    context, instance, dest, migration['id'])
            except Exception:  # noqa: BLE001 - recorded below as a failed move.
                LOG.exception('%s is on neither host after a restart', row['uuid'])
            else:
                LOG.warning('Live migration of %s to %s finished after a restart',
                            row['uuid'], dest)
                self.driver.cleanup_after_live_migration(context, instance)
                self.conductor_db.compute_node_release(
                    self.host, *usage.requested_resources(migration['old_flavor']))
                self.conductor_db.migration_update(migration['id'], {'status': 'completed'})
                return True
        LOG.warning('Live migration of %s to %s was interrupted by a restart', row['uuid'],
                    dest)
        exc = exception.MigrationError(
            reason='the live migration from %s to %s was interrupted by a restart'
                   % (self.host, dest))
        if dest:
            self._live_migration_failed(context, instance, migration, exc)
        else:
            actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
            self.conductor_db.migration_update(migration['id'], {'status': 'error'})
            self.conductor_db.instance_update(row['uuid'], {'task_state': None})
        return True
