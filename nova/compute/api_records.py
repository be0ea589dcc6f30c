"""What the API shows about servers beyond their rows: actions, events, faults, volumes."""

from nova import exception


class RecordsAPI:
    """Read the records of servers: instance actions and events, latest faults, volumes."""

    def __init__(self, db):
        self._db = db

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
        return self._db.actions_get(instance['uuid'], limit=limit, marker_id=marker_id,
                                    changes_since=changes_since,
                                    changes_before=changes_before)

    def action_get(self, context, instance, request_id):
        """The action of ``instance`` recorded under ``request_id``, or None."""
        return next((a for a in self._db.actions_get(instance['uuid'])
                     if a['request_id'] == request_id), None)

    def action_events(self, context, action):
        return self._db.events_get(action['id'])

    # -- what server views need, one query per page ---------------------------------
    def latest_faults(self, context, instance_uuids):
        """{instance uuid: its latest fault} for the given instances."""
        return self._db.faults_latest(list(instance_uuids))

    def volume_mappings(self, context, instance_uuids):
        """{instance uuid: [volume block device mapping]} for the given instances."""
        return self._db.volume_bdms_by_instance(list(instance_uuids))
