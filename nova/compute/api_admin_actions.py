"""Compute API: reset state, diagnostics, backups and deferred (soft) delete."""

from oslo_utils import timeutils

from nova import exception
from nova import vm_states as vs
from nova.objects import instance as instance_obj

RESET_STATES = {'active': vs.ACTIVE, 'error': vs.ERROR}


class AdminActionsMixin:
    """Mixed into compute.api.API; needs self.db, self.conf and self.compute_rpcapi."""

    def reset_state(self, context, instance, state):
        """Force vm_state and clear the task, as upstream (no lock or state check)."""
        action_id = self.db.action_start(context, instance['uuid'], 'resetState')
        row = self.db.instance_update(instance['uuid'], {'vm_state': RESET_STATES[state],
                                                         'task_state': None})
        self.db.action_finish(action_id)
        return row

    def get_diagnostics(self, context, instance, standard=False):
        """The running guest's statistics; 409 unless it is placed and running."""
        if not instance['host']:
            raise exception.InstanceNotReady(instance_id=instance['uuid'])
        if instance['task_state'] in (vs.DELETING, 'migrating'):
            raise exception.InstanceInvalidState(
                action='get_diagnostics', instance_uuid=instance['uuid'],
                attr='task_state', state=instance['task_state'])
        return self.compute_rpcapi.get_diagnostics(
            context, instance_obj.Instance.from_db(instance), instance['host'],
            standard=standard)

    def backup(self, context, instance, name, backup_type, rotation, metadata):
        if self.is_volume_backed(context, instance):
            raise exception.Invalid(reason='Backup is not supported for volume-backed '
                                           'instances.')
        return self.snapshot(context, instance, name, metadata,
                             backup=(backup_type, rotation))

    # -- deferred delete -------------------------------------------------------
    def soft_delete(self, context, instance):
        """Power off and keep the server SOFT_DELETED until reclaimed or restored."""
        self.check_locked(context, instance)
        self.db.action_start(context, instance['uuid'], 'delete')
        self.db.console_token_destroy_for_instance(instance['uuid'])
        row = self.db.instance_update(
            instance['uuid'], {'task_state': vs.SOFT_DELETING,
                               'deleted_at': timeutils.utcnow().replace(microsecond=0)})
        self.compute_rpcapi.soft_delete_instance(
            context, instance_obj.Instance.from_db(row), row['host'])

    def restore(self, context, instance):
        inst = self.begin_action(context, instance, 'restore',
                                 extra_values={'deleted_at': None})
        self.compute_rpcapi.restore_instance(context, inst, inst.host)

    def force_delete(self, context, instance):
        """Delete now, whatever the state (a soft-deleted server included)."""
        self.check_locked(context, instance)
        self.hard_delete(context, instance)

    def deferred_delete_applies(self, instance):
        """Soft delete needs the option, and a server that was ever launched (upstream)."""
        return bool(self.conf.reclaim_instance_interval and instance['launched_at']
                    and instance['host'] and instance['vm_state'] != vs.SOFT_DELETED)
