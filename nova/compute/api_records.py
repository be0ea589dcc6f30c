"""What the API shows about servers beyond their rows: actions, events, faults, volumes."""

from nova import exception
from nova.compute import block_device


class RecordsMixin:
    """Read the records of servers (and the one attachment flag a client may change)."""

    # -- instance actions and their events ----------------------------------------
    def action_list(self, context, instance, limit=None, marker=None, changes_since=None,
                    changes_before=None):
        """Actions of ``instance``, newest first; ``marker`` is a request id to page past."""
        marker_id = None
        if marker is not None:
            found = self.action_get(context, instance, marker)
            if found is None:
                raise exception.MarkerNotFound(marker=marker)
            marker_id = found['id']
        return self.db.actions_get(instance['uuid'], limit=limit, marker_id=marker_id,
                                   changes_since=changes_since,
                                   changes_before=changes_before)

    def action_get(self, context, instance, request_id):
        """The action of ``instance`` recorded under ``request_id``, or None."""
        return next((a for a in self.db.actions_get(instance['uuid'])
                     if a['request_id'] == request_id), None)

    def action_events(self, context, action):
        return self.db.events_get(action['id'])

    # -- what server views need, one query per page ---------------------------------
    def latest_faults(self, context, instance_uuids):
        """{instance uuid: its latest fault} for the given instances."""
        return self.db.faults_latest(list(instance_uuids))

    def volume_mappings(self, context, instance_uuids):
        """{instance uuid: [volume block device mapping]} for the given instances."""
        return self.db.volume_bdms_by_instance(list(instance_uuids))

    # -- volume attachments -------------------------------------------------------
    def volume_attachments(self, context, instance):
        """The block device mappings of ``instance`` that attach a volume."""
        return [b for b in self.db.bdm_get_by_instance(instance['uuid'])
                if b['destination_type'] == 'volume' and b['volume_id']]

    def set_delete_on_termination(self, context, instance, bdm, delete_on_termination):
        """Change whether the attached volume goes with the server (2.85)."""
        return self.db.bdm_update(bdm['uuid'],
                                  {'delete_on_termination': bool(delete_on_termination)})

    def swap_volume(self, context, instance, old_volume_id, new_volume_id):
        """A volume swap: upstream serves it only to Cinder, for a volume it is migrating.

        Checked in upstream's order: 404 for an unknown volume in the path,
        409 unless that volume is migrating, 400 for an unknown new volume,
        404 when the old one is not attached here. This deployment never
        performs the swap itself: past those checks the answer is 400.
        """
        old = self.volume_api.get(context, old_volume_id)
        if not old.get('migration_status'):
            raise exception.Conflict(
                'volume %s is not migrating; this API should only be called by Cinder'
                % old_volume_id)
        try:
            self.volume_api.get(context, new_volume_id)
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
                mode = self.volume_api.attachment_get(
                    context, entry['attachment_id']).get('attach_mode')
            except exception.NotFound:
                mode = None     # not the caller's to read: counted as a writer
            writers += mode != 'ro'
        return writers

    def is_volume_backed(self, context, instance):
        """Whether ``instance`` boots from a volume (see block_device.is_volume_backed)."""
        return block_device.is_volume_backed(self.db.bdm_get_by_instance(instance['uuid']))
