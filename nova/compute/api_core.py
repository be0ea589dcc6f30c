"""The compute API's shared core: the action state table, the lock check and the task claim."""

import collections
import contextlib
import logging

from nova import exception
from nova import vm_states as vs
from nova.compute import api_handoff, block_device
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

ActionSpec = collections.namedtuple('ActionSpec', 'name vm_states task_states new_task')

_ANY_TASK = None  # sentinel: do not check task_state

# Task states of the moves, shelving and their undoing (upstream's strings).
RESIZE_PREP = 'resize_prep'
RESIZE_REVERTING = 'resize_reverting'
SHELVING = 'shelving'
SHELVING_OFFLOADING = 'shelving_offloading'
UNSHELVING = 'unshelving'

# The states upstream allows each action from, and the task_state it sets.
SPECS = {
    'stop': ActionSpec('stop', (vs.ACTIVE, vs.ERROR), (None,), vs.POWERING_OFF),
    'start': ActionSpec('start', (vs.STOPPED,), (None,), vs.POWERING_ON),
    'reboot_soft': ActionSpec('reboot', (vs.ACTIVE,), (None,), vs.REBOOTING),
    'reboot_hard': ActionSpec('reboot', (vs.ACTIVE, vs.STOPPED, vs.PAUSED, vs.SUSPENDED,
                                         vs.ERROR),
                              (None, vs.REBOOTING, 'reboot_pending', 'reboot_started',
                               vs.REBOOTING_HARD, 'reboot_pending_hard',
                               'reboot_started_hard'), vs.REBOOTING_HARD),
    'pause': ActionSpec('pause', (vs.ACTIVE,), (None,), 'pausing'),
    'unpause': ActionSpec('unpause', (vs.PAUSED,), (None,), 'unpausing'),
    'suspend': ActionSpec('suspend', (vs.ACTIVE,), (None,), 'suspending'),
    'resume': ActionSpec('resume', (vs.SUSPENDED,), (None,), 'resuming'),
    'createImage': ActionSpec('createImage', (vs.ACTIVE, vs.STOPPED, vs.PAUSED,
                                              vs.SUSPENDED), (None,), 'image_snapshot'),
    'createBackup': ActionSpec('createBackup', (vs.ACTIVE, vs.STOPPED, vs.PAUSED,
                                                vs.SUSPENDED), (None,), vs.IMAGE_BACKUP),
    'restore': ActionSpec('restore', (vs.SOFT_DELETED,), (None,), vs.RESTORING),
    'rebuild': ActionSpec('rebuild', (vs.ACTIVE, vs.STOPPED, vs.ERROR), (None,),
                          'rebuilding'),
    'rescue': ActionSpec('rescue', (vs.ACTIVE, vs.STOPPED, vs.ERROR), (None,), vs.RESCUING),
    'unrescue': ActionSpec('unrescue', (vs.RESCUED,), (None,), vs.UNRESCUING),
    # Resize and migrate from ACTIVE or STOPPED, no task running.
    'resize': ActionSpec('resize', (vs.ACTIVE, vs.STOPPED), (None,), RESIZE_PREP),
    'migrate': ActionSpec('migrate', (vs.ACTIVE, vs.STOPPED), (None,), RESIZE_PREP),
    'confirmResize': ActionSpec('confirmResize', (vs.RESIZED,), (None,), None),
    'revertResize': ActionSpec('revertResize', (vs.RESIZED,), (None,), RESIZE_REVERTING),
    'shelve': ActionSpec('shelve', (vs.ACTIVE, vs.STOPPED, vs.PAUSED, vs.SUSPENDED), (None,),
                         SHELVING),
    'shelveOffload': ActionSpec('shelveOffload', (vs.SHELVED,), (None,), SHELVING_OFFLOADING),
    # Live migrate from ACTIVE or PAUSED, no task running.
    'os-migrateLive': ActionSpec('os-migrateLive', (vs.ACTIVE, vs.PAUSED), (None,), None),
    # Evacuate (the server's host is down) from ACTIVE, STOPPED or ERROR.
    'evacuate': ActionSpec('evacuate', (vs.ACTIVE, vs.STOPPED, vs.ERROR), (None,),
                           'rebuilding'),
}

# Actions after which the guest's console is on another port or host, or gone:
# the server's console tokens are destroyed as the action starts (a freed port
# goes to the next guest). The proxies also ask the host before relaying.
CONSOLE_ENDING = frozenset(('stop', 'reboot_hard', 'suspend', 'rebuild', 'rescue', 'unrescue',
                            'shelve', 'shelveOffload', 'migrate', 'resize', 'revertResize',
                            'os-migrateLive', 'evacuate'))


def check_state(instance, spec):
    """409 with upstream's message when the instance is in the wrong state."""
    if spec.vm_states is not None and instance['vm_state'] not in spec.vm_states:
        raise exception.InstanceInvalidState(action=spec.name, instance_uuid=instance['uuid'],
                                             attr='vm_state', state=instance['vm_state'])
    if spec.task_states is not _ANY_TASK and instance['task_state'] not in spec.task_states:
        raise exception.InstanceInvalidState(action=spec.name, instance_uuid=instance['uuid'],
                                             attr='task_state', state=instance['task_state'])
    if not instance['host']:
        raise exception.InstanceInvalidState(action=spec.name, instance_uuid=instance['uuid'],
                                             attr='host', state='None')


def check_locked(context, instance):
    """409 for a locked server, unless the caller is an admin."""
    if instance['locked'] and not context.is_admin:
        raise exception.InstanceLocked(instance_uuid=instance['uuid'])


class CoreAPI:
    """What most action families share: the task claim, its hand-off, whether the root is a
    volume."""

    def __init__(self, db):
        self._db = db
        # Sends the claimed task on; a message the broker does not take is undone (503).
        self.handoff = api_handoff.HandoffAPI(db)

    def begin_action(self, context, instance, spec_key, extra_values=None):
        """Check lock and state, record the action, and claim the task_state.

        Returns the updated instance as an object ready to cast. A family
        that casts right after uses ``action`` instead, which undoes the
        claim when the message is not sent.
        """
        return self._claim(context, instance, spec_key, extra_values)[0]

    @contextlib.contextmanager
    def action(self, context, instance, spec_key, extra_values=None, undo=(),
               service='nova-compute'):
        """``begin_action``, then the block that sends it on (yields the instance object).

        When the broker does not take the message, the task goes back with a
        compare and swap, the columns ``extra_values`` set get their old
        values, ``undo`` runs and the action ends in error: the request
        answers 503 and the server is as it was. ``undo`` also runs when the
        claim itself is refused (409).
        """
        try:
            inst, claim = self._claim(context, instance, spec_key, extra_values)
        except Exception:
            _run_all(undo, instance['uuid'])
            raise
        claim.undo.extend(undo)
        with self.handoff.sending(context, claim, service):
            yield inst

    def _claim(self, context, instance, spec_key, extra_values):
        spec = SPECS[spec_key]
        check_locked(context, instance)
        check_state(instance, spec)
        values = {'task_state': spec.new_task}
        values.update(extra_values or {})
        try:
            # The claim, its action record and (for the actions that end a
            # console session) the console tokens' end: one transaction.
            row, action_id = self._db.instance_claim(
                instance['uuid'], values,
                expected_task_state=list(spec.task_states) if spec.task_states else (),
                expected_vm_state=list(spec.vm_states) if spec.vm_states else (),
                context=context, action=spec.name, end_consoles=spec_key in CONSOLE_ENDING)
        except exception.UnexpectedTaskStateError:
            # Someone else won the race: report it like a wrong state.
            current = self._db.instance_get(instance['uuid'])
            check_state(current, spec)
            raise
        claim = api_handoff.Claim(instance['uuid'], spec.name, task_state=spec.new_task,
                                  restore={k: instance.get(k) for k in values},
                                  action_id=action_id)
        return instance_obj.Instance.from_db(row), claim

    def is_volume_backed(self, context, instance):
        """Whether ``instance`` boots from a volume (see block_device.is_volume_backed)."""
        return block_device.is_volume_backed(self._db.bdm_get_by_instance(instance['uuid']))


def _run_all(steps, uuid):
    for step in steps:
        try:
            step()
        except Exception:  # noqa: BLE001 - the refusal is the answer, not this.
            LOG.exception('Clean-up after the refused action of %s failed', uuid)
