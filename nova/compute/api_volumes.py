"""Volume attachments in the compute API: attach, detach, list, swap, delete_on_termination."""

from nova import exception, failpoint
from nova import vm_states as vs
from nova.compute import api_core, api_handoff, block_device
from nova.objects import instance as instance_obj

# Upstream allows volume attach/detach in these states (not while rescued).
VOLUME_SPEC = api_core.ActionSpec('attach_volume', (vs.ACTIVE, vs.PAUSED, vs.STOPPED,
                                                   vs.SUSPENDED, vs.RESIZED), (None,), None)


def _bdm_values(instance, volume_id, attachment, delete_on_termination, tag):
    """The block device mapping of a volume attached after boot."""
    return {'instance_uuid': instance['uuid'], 'source_type': 'volume',
            'destination_type': 'volume', 'volume_id': volume_id, 'device_type': 'disk',
            'attachment_id': attachment['id'],
            'delete_on_termination': bool(delete_on_termination), 'tag': tag,
            'boot_index': None}


class VolumeAttachmentsAPI:
    """A server's volume attachments (an offloaded server's without a host)."""

    def __init__(self, db, volume_api, compute_rpcapi):
        self._db = db
        self._volume_api = volume_api
        self._compute_rpcapi = compute_rpcapi
        self._handoff = api_handoff.HandoffAPI(db)

    # -- volume attachments -------------------------------------------------------
    def volume_attachments(self, context, instance):
        """The block device mappings of ``instance`` that attach a volume."""
        return [b for b in self._db.bdm_get_by_instance(instance['uuid'])
                if b['destination_type'] == 'volume' and b['volume_id']]

    def set_delete_on_termination(self, context, instance, bdm, delete_on_termination):
        """Change whether the attached volume goes with the server (2.85)."""
        return self._db.bdm_update(bdm['uuid'],
                                   {'delete_on_termination': bool(delete_on_termination)})

    def swap_volume(self, context, instance, old_volume_id, new_volume_id):
        """A volume swap: upstream serves it only to Cinder, for a volume it is migrating.

        Checked in upstream's order: 404 for an unknown volume in the path,
        409 unless that volume is migrating, 400 for an unknown new volume,
        404 when the old one is not attached here. This deployment never
        performs the swap itself: past those checks the answer is 400.
        """
        old = self._volume_api.get(context, old_volume_id)
        if not old.get('migration_status'):
            raise exception.Conflict(
                'volume %s is not migrating; this API should only be called by Cinder'
                % old_volume_id)
        try:
            self._volume_api.get(context, new_volume_id)
        except exception.VolumeNotFound as exc:
            raise exception.Invalid(reason=exc.format_message()) from None
        if not any(b['volume_id'] == old_volume_id
                   for b in self.volume_attachments(context, instance)):
            raise exception.VolumeNotFound(
                'Volume %s is not attached to the server.' % old_volume_id)
        if self._read_write_attachments(context, old) > 1:
            raise exception.MultiattachSwapVolumeNotSupported()
        raise exception.Invalid(reason='Swapping volumes is not supported by this deployment.')

    def _read_write_attachments(self, context, volume):
        """How many servers may write to ``volume`` (upstream's swap guard)."""
        if not volume.get('multiattach'):
            return 1
        writers = 0
        for entry in volume.get('attachments') or ():
            try:
                mode = self._volume_api.attachment_get(
                    context, entry['attachment_id']).get('attach_mode')
            except exception.NotFound:
                mode = None     # not the caller's to read: counted as a writer
            writers += mode != 'ro'
        return writers

    def attach_volume(self, context, instance, volume_id, device=None, tag=None,
                      delete_on_termination=False, supports_multiattach=False):
        """Check everything, reserve a device name, record the BDM, then cast.

        ``supports_multiattach``: the request is at compute API 2.60 or later.
        """
        api_core.check_locked(context, instance)
        if instance['vm_state'] == vs.SHELVED_OFFLOADED and instance['task_state'] is None:
            return self.attach_volume_offloaded(context, instance, volume_id, tag=tag,
                                                delete_on_termination=delete_on_termination,
                                                supports_multiattach=supports_multiattach)
        api_core.check_state(instance, VOLUME_SPEC)
        inst, volume_context, attachment = self._reserve(context, instance, volume_id,
                                                         supports_multiattach)
        failpoint.hit('attach.api_reserved')
        try:
            # The host picks the name and records the BDM under the instance's
            # lock, so two concurrent attaches never get the same device.
            bdm_uuid = self._compute_rpcapi.reserve_device_name(
                context, inst, inst.host, requested=device,
                bdm=_bdm_values(instance, volume_id, attachment, delete_on_termination, tag))
        except Exception:
            self._volume_api.attachment_delete(volume_context, attachment['id'])
            raise
        bdm = next(b for b in self._db.bdm_get_by_instance(instance['uuid'])
                   if b['uuid'] == bdm_uuid)
        action_id = self._db.action_start(context, instance['uuid'], 'attach_volume')
        # Not sent, the reservation and the mapping go.
        claim = api_handoff.Claim(instance['uuid'], 'attach_volume', action_id=action_id, undo=[
            lambda: self._volume_api.attachment_delete(volume_context, attachment['id']),
            lambda: self._db.bdm_destroy(bdm['uuid'])])
        with self._handoff.sending(context, claim):
            self._compute_rpcapi.attach_volume(context, inst, inst.host, bdm['uuid'])
        return bdm

    def _reserve(self, context, instance, volume_id, supports_multiattach, offloaded=False):
        """Check that the volume may be attached here and reserve it.

        Returns (instance object, the volume service context, the attachment).
        """
        try:
            volume = self._volume_api.get(context, volume_id)
        except exception.VolumeNotFound:
            raise exception.Invalid(reason='Volume %s could not be found.' % volume_id)
        if offloaded and volume.get('multiattach'):
            # Before the 2.60 gate, as upstream: no version attaches it to an
            # offloaded server.
            raise exception.MultiattachToShelvedNotSupported()
        block_device.check_attachable(volume, supports_multiattach)
        if any(b['volume_id'] == volume_id
               for b in self._db.bdm_get_by_instance(instance['uuid'])):
            raise exception.Invalid(reason='Volume %s is already attached to the '
                                           'server.' % volume_id)
        inst = instance_obj.Instance.from_db(instance)
        # Reserve the volume now, as upstream does: a second server asking for
        # it gets Cinder's 400 here, not a 200 and a lost attach later.
        volume_context = self._volume_api.context_for(context, inst)
        attachment = self._volume_api.attachment_create(volume_context, volume_id,
                                                        instance['uuid'])
        return inst, volume_context, attachment

    def detach_volume(self, context, instance, bdm):
        api_core.check_locked(context, instance)
        if instance['vm_state'] == vs.SHELVED_OFFLOADED and instance['task_state'] is None:
            return self.detach_volume_offloaded(context, instance, bdm)
        api_core.check_state(instance, VOLUME_SPEC)
        if bdm['boot_index'] == 0:
            raise exception.Invalid(reason="Can't detach root device volume")
        action_id = self._db.action_start(context, instance['uuid'], 'detach_volume')
        inst = instance_obj.Instance.from_db(instance)
        claim = api_handoff.Claim(instance['uuid'], 'detach_volume', action_id=action_id)
        with self._handoff.sending(context, claim):
            self._compute_rpcapi.detach_volume(context, inst, inst.host, bdm['volume_id'])

    # -- volumes of an offloaded server (no host: the API does the work) -------
    def attach_volume_offloaded(self, context, instance, volume_id, tag=None,
                                delete_on_termination=False, supports_multiattach=False):
        """Reserve the volume and record the BDM; unshelve connects it, as upstream.

        Multiattach volumes are refused here, as upstream does.
        """
        _inst, volume_context, attachment = self._reserve(
            context, instance, volume_id, supports_multiattach, offloaded=True)
        try:
            bdm = self._db.bdm_create(_bdm_values(instance, volume_id, attachment,
                                                  delete_on_termination, tag))
            self._volume_api.attachment_complete(volume_context, attachment['id'])
        except Exception:
            self._volume_api.attachment_delete(volume_context, attachment['id'])
            raise
        self._db.action_start(context, instance['uuid'], 'attach_volume')
        return bdm

    def detach_volume_offloaded(self, context, instance, bdm):
        if bdm['boot_index'] == 0:
            raise exception.Invalid(reason="Can't detach root device volume")
        inst = instance_obj.Instance.from_db(instance)
        if bdm['attachment_id']:
            try:
                self._volume_api.attachment_delete(self._volume_api.context_for(context, inst),
                                                   bdm['attachment_id'])
            except exception.NotFound:
                pass
        self._db.bdm_destroy(bdm['uuid'])
        self._db.action_start(context, instance['uuid'], 'detach_volume')
