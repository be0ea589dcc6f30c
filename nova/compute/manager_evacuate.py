"""Compute manager: evacuation, as the new host (rebuilt here) and as the host it left."""

import logging
import types

from oslo_utils import timeutils

from nova import exception
from nova import vm_states as vs
from nova.compute import actions, manager_core, manager_ports
from nova.compute import resources as usage
from nova.objects import image_meta as image_meta_obj

LOG = logging.getLogger(__name__)


class EvacuateManager:
    """The new host rebuilds the server from its image, with its ports and volumes; the
    host it left removes, once its compute service runs again, what stayed there.

    ``migrate`` (MigrateManager) hands the volumes' attachments from one host
    to another as a cold migration does.
    """

    target = manager_core.RPC_TARGET

    def __init__(self, core, volumes, migrate, network_api=None):
        self.core = core
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        self._volumes = volumes
        self._migrate = migrate
        self.ports = manager_ports.PortMoves(core, network_api)

    # -- the new host ------------------------------------------------------------------
    def evacuate_instance(self, context, instance, migration_id, admin_password=None,
                          stopped=False):
        """Take the server, bind its ports and volumes here, spawn it from its image.

        It arrives STOPPED when it was stopped or ``stopped`` (2.95), else
        ACTIVE. A failure leaves it here in ERROR with a fault (a hard reboot
        or a rebuild can still recover it here) and the migration 'failed'.
        """
        with self.core.lock(instance.uuid):
            migration = self.conductor_db.migration_get(migration_id)
            arrive_stopped = stopped or instance.vm_state == vs.STOPPED
            try:
                with self.core.event(context, instance.uuid, 'compute_rebuild_instance',
                                     host=self.host):
                    self._rebuild_here(context, instance, migration, admin_password,
                                       arrive_stopped)
            except exception.InstanceNotFound:
                self.core.release_claim(migration['new_flavor'])
                self.conductor_db.migration_update(migration_id, {'status': 'failed'})
                return
            except Exception as exc:  # noqa: BLE001 - recorded; recoverable here.
                LOG.exception('Evacuation of %s to this host failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self._failed_here(context, instance, migration)
                return
            self.core.set_state(instance, vs.STOPPED if arrive_stopped else vs.ACTIVE,
                                launched_at=timeutils.utcnow().replace(microsecond=0))
            self.conductor_db.migration_update(migration_id, {'status': 'done'})
            self.core.record_guest(instance)

    def _rebuild_here(self, context, instance, migration, admin_password, arrive_stopped):
        # The instance is this host's from now on: the old host is down.
        row = self.conductor_db.instance_update(instance.uuid, {
            'host': self.host, 'node': migration['dest_node'] or self.host,
            'task_state': 'rebuild_block_device_mapping'},
            expected_task_state=['rebuilding'])
        instance.refresh_from(row)
        self.ports.bind_here(context, instance)
        # The old host's attachments go; new ones are connected from here.
        self._migrate.release_volume_connections(context, instance)
        self._migrate.connect_volume_attachments(context, instance)
        self.conductor_db.instance_update(instance.uuid, {'task_state': 'rebuild_spawning'})
        image_meta = image_meta_obj.ImageMeta.from_instance(instance)
        self.driver.spawn(context, instance, image_meta, injected_files=[],
                          admin_password=admin_password, allocations=None,
                          block_device_info=self.core.block_device_info(context, instance))
        self._volumes.complete_volumes(context, instance)
        if arrive_stopped:
            self.driver.power_off(instance)

    def _failed_here(self, context, instance, migration):
        """The guest half made here goes; the server stays here in ERROR, its claim kept."""
        try:
            self.driver.destroy(context, instance, destroy_disks=True,
                                block_device_info=self.core.block_device_info(context, instance))
        except Exception:  # noqa: BLE001 - the state below must still be written.
            LOG.exception('Could not remove the half-built guest of %s', instance.uuid)
        try:
            self.core.set_state(instance, vs.ERROR)
        except exception.InstanceNotFound:
            pass
        self.conductor_db.migration_update(migration['id'], {'status': 'failed'})

    # -- the host it left ----------------------------------------------------------------
    def cleanup_evacuated(self, startup=False):
        """Remove the guests, taps and files of servers evacuated away from this host.

        Runs when the compute service starts (its usage recount that follows
        leaves them out) and periodically (a host that was only marked down
        and kept running: their room here is given back). A migration 'done'
        becomes 'completed'; a 'failed' one, whose server stayed on the new
        host, becomes 'error'.
        """
        cleaned = 0
        try:
            evacuated = self.conductor_db.evacuations_from(self.host)
        except Exception as exc:  # noqa: BLE001 - a start-up must not fail on it; next pass.
            LOG.warning('Could not list the servers evacuated from this host (%s); '
                        'trying again later', exc.__class__.__name__)
            return 0
        for found in evacuated:
            uuid = found['instance_uuid']
            lock = self.core.lock(uuid)
            if not lock.acquire(blocking=False):
                continue
            try:
                stub = types.SimpleNamespace(uuid=uuid, name=None, project_id=None,
                                             network_info=found['network_info'] or [])
                self.driver.cleanup_evacuated(stub, stub.network_info)
                if not startup:
                    self.conductor_db.compute_node_release(
                        self.host, *usage.requested_resources(found['old_flavor']))
                self.conductor_db.migration_update(found['id'], {
                    'status': 'completed' if found['status'] == 'done' else 'error'})
                LOG.info('Removed what the evacuated server %s left on this host', uuid)
                cleaned += 1
            except Exception:  # noqa: BLE001 - the others still get cleaned; next pass.
                LOG.exception('Could not clean up the evacuated server %s', uuid)
            finally:
                lock.release()
        return cleaned

    def cleanup_evacuated_periodic(self):
        return self.cleanup_evacuated(startup=False)
