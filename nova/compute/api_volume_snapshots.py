"""Compute API: assisted volume snapshots (the volume service asks; the host does it)."""

from nova import exception
from nova.objects import instance as instance_obj

# The compute RPC version that carries volume_snapshot_create/delete.
RPC_VERSION = '1.4'


class VolumeSnapshotsAPI:
    """os-assisted-volume-snapshots: the volume service asks, the server's host snapshots."""

    def __init__(self, db, compute_rpcapi):
        self._db = db
        self._compute_rpcapi = compute_rpcapi

    def _snapshot_target(self, volume_id, action):
        """The instance ``volume_id`` is attached to, ready to be cast to.

        As upstream: any vm_state, but no task in progress and a host.
        """
        bdms = self._db.bdm_get_by_volume(volume_id)
        if not bdms:
            raise exception.VolumeBDMNotFound(volume_id=volume_id)
        if len(bdms) > 1:
            raise exception.VolumeBDMIsMultiAttach(volume_id=volume_id)
        instance = self._db.instance_get(bdms[0]['instance_uuid'])
        if instance['task_state'] is not None:
            raise exception.InstanceInvalidState(
                action=action, instance_uuid=instance['uuid'], attr='task_state',
                state=instance['task_state'])
        if not instance['host']:
            raise exception.InstanceNotReady(instance_id=instance['uuid'])
        client = self._compute_rpcapi.client
        if not client.can_send_version(RPC_VERSION):
            # Answered like the other "not now" cases of this API: 400.
            exc = exception.RPCVersionPinned(
                what='An assisted volume snapshot', topic='compute', needed=RPC_VERSION,
                pin=client.version_cap)
            exc.code = 400
            raise exc
        return instance_obj.Instance.from_db(instance)

    def volume_snapshot_create(self, context, volume_id, create_info):
        """Cast the snapshot to the server's host; the answer echoes create_info's id."""
        instance = self._snapshot_target(volume_id, 'volume_snapshot_create')
        self._compute_rpcapi.volume_snapshot_create(context, instance, instance.host,
                                                    volume_id, create_info)
        # Upstream returns the caller's optional create_info id (null without one).
        return {'snapshot': {'id': create_info.get('id'), 'volumeId': volume_id}}

    def volume_snapshot_delete(self, context, volume_id, snapshot_id, delete_info):
        instance = self._snapshot_target(volume_id, 'volume_snapshot_delete')
        self._compute_rpcapi.volume_snapshot_delete(context, instance, instance.host,
                                                    volume_id, snapshot_id, delete_info)
