"""changePassword and os-server-password in the compute API (the guest agent does the work)."""

from nova import exception
from nova import vm_states as vs
from nova.compute import api_core, api_handoff
from nova.objects import instance as instance_obj

UPDATING_PASSWORD = 'updating_password'
CHANGE_PASSWORD = api_core.ActionSpec('changePassword', (vs.ACTIVE,), (None,),
                                      UPDATING_PASSWORD)
# Upstream keeps the encrypted password in four system metadata chunks of 255.
PASSWORD_KEYS = ['password_%d' % i for i in range(4)]


class PasswordAPI:
    """The admin password (set by the guest agent) and the metadata service's copy."""

    def __init__(self, db, compute_rpcapi):
        self._db = db
        self._compute_rpcapi = compute_rpcapi
        self._handoff = api_handoff.HandoffAPI(db)

    def set_admin_password(self, context, instance, password):
        """Synchronous, as upstream: the answer says whether the agent took it."""
        api_core.check_locked(context, instance)
        api_core.check_state(instance, CHANGE_PASSWORD)
        try:
            row = self._db.instance_update(instance['uuid'], {'task_state': UPDATING_PASSWORD},
                                           expected_task_state=[None],
                                           expected_vm_state=[vs.ACTIVE])
        except exception.UnexpectedTaskStateError:
            api_core.check_state(self._db.instance_get(instance['uuid']), CHANGE_PASSWORD)
            raise
        action_id = self._db.action_start(context, instance['uuid'], CHANGE_PASSWORD.name)
        claim = api_handoff.Claim(instance['uuid'], CHANGE_PASSWORD.name,
                                  task_state=UPDATING_PASSWORD, restore={'task_state': None},
                                  action_id=action_id)
        with self._handoff.sending(context, claim):
            self._compute_rpcapi.set_admin_password(
                context, instance_obj.Instance.from_db(row), row['host'], password)

    def get_server_password(self, context, instance):
        sysmeta = instance['system_metadata'] or {}
        return ''.join(sysmeta.get(key) or '' for key in PASSWORD_KEYS)

    def clear_server_password(self, context, instance):
        sysmeta = dict(instance['system_metadata'] or {})
        sysmeta.update({key: '' for key in PASSWORD_KEYS})
        self._db.instance_update(instance['uuid'], {'system_metadata': sysmeta})
