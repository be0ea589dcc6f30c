"""Compute manager: assisted volume snapshots of attached file volumes (create, merge)."""

import json
import logging

from nova import exception
from nova.compute import manager_core

LOG = logging.getLogger(__name__)


class VolumeSnapshotsManager:
    """Assisted snapshots of the file volumes attached to a guest on this host."""

    target = manager_core.RPC_TARGET

    def __init__(self, core, volume_api):
        self.core = core
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.volume_api = volume_api

    def volume_snapshot_create(self, context, instance, volume_id, create_info):
        """Put a new overlay on top of the volume's active file; tell the volume service."""
        snapshot_id = create_info.get('snapshot_id')
        self._volume_snapshot(context, instance, volume_id, snapshot_id, 'create',
                              lambda: self.driver.volume_snapshot_create(
                                  context, instance, volume_id, create_info),
                              done='creating', failed='error')

    def volume_snapshot_delete(self, context, instance, volume_id, snapshot_id, delete_info):
        """Merge a snapshot's file into its neighbour as delete_info says."""
        self._volume_snapshot(context, instance, volume_id, snapshot_id, 'delete',
                              lambda: self.driver.volume_snapshot_delete(
                                  context, instance, volume_id, snapshot_id, delete_info),
                              done='deleting', failed='error_deleting')

    def _volume_snapshot(self, context, instance, volume_id, snapshot_id, what, work,
                         done, failed):
        # As upstream, a failure is logged and reported to the volume service only:
        # the guest keeps the disk chain it had, and the server's state is untouched.
        with self.core.lock(instance.uuid):
            try:
                active = work()
            except exception.InstanceNotFound:
                LOG.info('Instance %s disappeared during volume snapshot %s',
                         instance.uuid, what)
                return
            except Exception:  # noqa: BLE001 - a cast: nobody to raise to.
                LOG.exception('Volume snapshot %s of volume %s on %s failed; sending '
                              'status %s to the volume service', what, volume_id,
                              instance.uuid, failed)
                self._snapshot_status(context, instance, snapshot_id, failed)
                return
            self._record_active_file(instance, volume_id, active)
        self._snapshot_status(context, instance, snapshot_id, done)

    def _record_active_file(self, instance, volume_id, active):
        """Point the mapping's connection_info at the file the guest now writes to,
        so a later reboot or rebuild of the domain keeps the same chain (upstream
        re-reads it from the volume service instead)."""
        bdm = next((b for b in self.core.bdms(instance.uuid) if b['volume_id'] == volume_id), None)
        if bdm is None or not active or not bdm['connection_info']:
            return
        info = json.loads(bdm['connection_info'])
        data = info.setdefault('data', {})
        if data.get('device_path') == active and data.get('format') == 'qcow2':
            return
        data.update(device_path=active, format='qcow2')
        self.conductor_db.bdm_update(bdm['uuid'], {'connection_info': json.dumps(info)})

    def _snapshot_status(self, context, instance, snapshot_id, status):
        """Upstream's os-update_snapshot_status; failures are only logged."""
        if not snapshot_id:
            return
        try:
            self.volume_api.update_snapshot_status(
                self.volume_api.context_for(context, instance), snapshot_id, status,
                # As upstream: 90% says the compute side is done, whatever the status.
                progress='90%')
        except exception.NotFound:
            # A snapshot the volume service does not know (or a service without the
            # action, as the embedded one): nothing to tell it.
            LOG.info('Volume service has no snapshot %s to set to %s', snapshot_id, status)
        except Exception:  # noqa: BLE001 - the outcome on the host stands regardless.
            LOG.warning('Could not send status %s of snapshot %s to the volume service',
                        status, snapshot_id, exc_info=True)
