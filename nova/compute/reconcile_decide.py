"""Crash reconciliation decisions: pure functions from recorded state to a repair."""

from nova import power_state as ps
from nova import vm_states as vs

SNAPSHOT_TASKS = ('image_snapshot', 'image_pending_upload', 'image_uploading',
                  vs.IMAGE_BACKUP)
# Tasks that change nothing on the hypervisor we cannot read back: clearing
# the task and syncing the power state is the whole repair.
RESET_TASKS = (vs.POWERING_OFF, vs.POWERING_ON, vs.REBOOTING, vs.REBOOTING_HARD,
               'pausing', 'unpausing', 'suspending', 'resuming', vs.RESTORING,
               vs.SOFT_DELETING)
# A rebuild destroys the guest before it spawns the new one.
REBUILD_TASKS = ('rebuilding', 'rebuild_spawning', 'rebuild_block_device_mapping')

# Instance-level repairs.
FINISH_DELETE = 'finish_delete'        # complete the delete: guest, volumes, row, claim
FAIL_BUILD = 'fail_build'              # ERROR with a fault, guest and disks removed
ROLLBACK_RESCUE = 'rollback_rescue'    # put the pre-rescue domain back; previous state
FINISH_RESCUE = 'finish_rescue'        # the rescue guest runs: record RESCUED
FINISH_UNRESCUE = 'finish_unrescue'    # put the pre-rescue domain back; ACTIVE
END_SNAPSHOT = 'end_snapshot'          # drop the unfinished image, unpause, clear task
FAIL_REBUILD = 'fail_rebuild'          # ERROR with a fault, as a failed rebuild
CLEAR_TASK = 'clear_task'              # nothing to undo: clear the task state


def instance_plan(vm_state, task_state, rescued=False):
    """The repair of an instance left with ``vm_state``/``task_state``, or None.

    ``rescued``: the driver says the rescue finished (its guest runs), so
    only its report was lost.
    """
    if task_state == vs.DELETING:
        return FINISH_DELETE
    if vm_state == vs.BUILDING:
        return FAIL_BUILD
    if task_state == vs.RESCUING:
        return FINISH_RESCUE if rescued else ROLLBACK_RESCUE
    if task_state == vs.UNRESCUING:
        return FINISH_UNRESCUE
    if task_state in SNAPSHOT_TASKS:
        return END_SNAPSHOT
    if task_state in REBUILD_TASKS:
        return FAIL_REBUILD
    if task_state in RESET_TASKS or task_state in (vs.SCHEDULING, vs.SPAWNING,
                                                  vs.BLOCK_DEVICE_MAPPING, vs.NETWORKING):
        return CLEAR_TASK
    return None


# What each power task ends in, and the guest power states that show it did.
_POWER_DONE = {
    vs.POWERING_OFF: (vs.STOPPED, (ps.SHUTDOWN, ps.CRASHED, ps.NOSTATE)),
    vs.POWERING_ON: (vs.ACTIVE, (ps.RUNNING,)),
    vs.REBOOTING: (vs.ACTIVE, (ps.RUNNING,)),
    vs.REBOOTING_HARD: (vs.ACTIVE, (ps.RUNNING,)),
    'pausing': (vs.PAUSED, (ps.PAUSED,)),
    'unpausing': (vs.ACTIVE, (ps.RUNNING,)),
    'suspending': (vs.SUSPENDED, (ps.SUSPENDED, ps.SHUTDOWN)),
    'resuming': (vs.ACTIVE, (ps.RUNNING,)),
}


def reached_vm_state(task_state, vm_state, power_state):
    """The vm_state a power task left the guest in, by its power state; else ``vm_state``.

    A stop whose report was lost leaves the record ACTIVE and the guest off:
    the repair records STOPPED, as the finished stop would have.
    """
    done = _POWER_DONE.get(task_state)
    if done is not None and power_state in done[1]:
        return done[0]
    return vm_state


# Volume-level repairs (one block device mapping against the guest).
VOLUME_OK = 'ok'
COMPLETE_ATTACH = 'complete_attach'    # guest has it: tell the volume service
ROLLBACK_ATTACH = 'rollback_attach'    # guest lacks it: drop attachment and BDM
FINISH_DETACH = 'finish_detach'        # a detach was under way: finish it
REATTACH = 'reattach'                  # attached per both services, guest lost it
DROP_BDM = 'drop_bdm'                  # the volume service forgot it: guest and BDM follow


def volume_plan(attachment_status, in_guest, detaching, guest_known=True):
    """Repair of one volume BDM that has an attachment id.

    ``attachment_status``: the volume service's status of the BDM's
    attachment ('reserved', 'attaching', 'attached'), or None when the
    volume service does not know it. ``in_guest``: the domain has a disk
    with the volume's serial. ``detaching``: a detach was started on this
    instance and never finished. ``guest_known`` False (no domain to read)
    only rolls back unfinished attaches.
    """
    if not guest_known:
        return ROLLBACK_ATTACH if attachment_status in ('reserved', 'attaching') \
            else VOLUME_OK
    if attachment_status is None:
        return DROP_BDM
    if attachment_status == 'attached':
        if in_guest:
            return VOLUME_OK
        return FINISH_DETACH if detaching else REATTACH
    return COMPLETE_ATTACH if in_guest else ROLLBACK_ATTACH


def stale(updated_at, now, min_age):
    """True when a row untouched since ``updated_at`` has waited ``min_age`` seconds."""
    if updated_at is None:
        return True
    return (now - updated_at).total_seconds() >= min_age
