"""Compute API: reset state, diagnostics and backups (admin actions on one server)."""

from nova import exception
from nova import vm_states as vs
from nova.objects import instance as instance_obj

RESET_STATES = {'active': vs.ACTIVE, 'error': vs.ERROR}


class AdminActionsAPI:
    """os-resetState, diagnostics and createBackup."""

    def __init__(self, db, compute_rpcapi, core, actions):
        self._db = db
        self._compute_rpcapi = compute_rpcapi
        self._core = core
        self._actions = actions

    def reset_state(self, context, instance, state):
        """Force vm_state and clear the task, as upstream (no lock or state check)."""
        action_id = self._db.action_start(context, instance['uuid'], 'resetState')
        row = self._db.instance_update(instance['uuid'], {'vm_state': RESET_STATES[state],
                                                          'task_state': None})
        self._db.action_finish(action_id)
        return row

    def get_diagnostics(self, context, instance, standard=False):
        """The running guest's statistics; 409 unless it is placed and running."""
        if not instance['host']:
            raise exception.InstanceNotReady(instance_id=instance['uuid'])
        if instance['task_state'] in (vs.DELETING, 'migrating'):
            raise exception.InstanceInvalidState(
                action='get_diagnostics', instance_uuid=instance['uuid'],
                attr='task_state', state=instance['task_state'])
        return self._compute_rpcapi.get_diagnostics(
            context, instance_obj.Instance.from_db(instance), instance['host'],
            standard=standard)

    def backup(self, context, instance, name, backup_type, rotation, metadata):
        if self._core.is_volume_backed(context, instance):
            raise exception.Invalid(reason='Backup is not supported for volume-backed '
                                           'instances.')
        return self._actions.snapshot(context, instance, name, metadata,
                                      backup=(backup_type, rotation))
