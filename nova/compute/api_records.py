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

    def is_volume_backed(self, context, instance):
        """Whether ``instance`` boots from a volume (see block_device.is_volume_backed)."""
        return block_device.is_volume_backed(self.db.bdm_get_by_instance(instance['uuid']))
