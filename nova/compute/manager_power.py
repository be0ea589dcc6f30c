"""Compute manager: power actions (stop, start, reboot, pause, suspend) and console."""

import collections
import logging

from nova import exception
from nova import vm_states as vs
from nova.compute import actions
from nova.notifications import action as notify

LOG = logging.getLogger(__name__)

PowerOp = collections.namedtuple('PowerOp', 'event run final_vm_state')


def _stop(mgr, ctx, inst):
    mgr.driver.power_off(inst, timeout=mgr.conf.shutdown_timeout, retry_interval=5)


def _start(mgr, ctx, inst):
    mgr.driver.power_on(ctx, inst, None, block_device_info=mgr.block_device_info(ctx, inst))


def _reboot(kind):
    def run(mgr, ctx, inst):
        mgr.driver.reboot(ctx, inst, None, kind,
                          block_device_info=mgr.block_device_info(ctx, inst))
    return run


OPS = {
    'stop': PowerOp('compute_stop_instance', _stop, vs.STOPPED),
    'start': PowerOp('compute_start_instance', _start, vs.ACTIVE),
    'reboot_soft': PowerOp('compute_reboot_instance', _reboot('SOFT'), vs.ACTIVE),
    'reboot_hard': PowerOp('compute_reboot_instance', _reboot('HARD'), vs.ACTIVE),
    'pause': PowerOp('compute_pause_instance', lambda m, c, i: m.driver.pause(i), vs.PAUSED),
    'unpause': PowerOp('compute_unpause_instance', lambda m, c, i: m.driver.unpause(i),
                       vs.ACTIVE),
    'suspend': PowerOp('compute_suspend_instance', lambda m, c, i: m.driver.suspend(c, i),
                       vs.SUSPENDED),
    'resume': PowerOp('compute_resume_instance',
                      lambda m, c, i: m.driver.resume(c, i, None), vs.ACTIVE),
}


class PowerMixin:
    """Mixed into ComputeManager."""

    @notify.instance_action(notify.power_event)
    def power_action(self, context, instance, action):
        op = OPS[action]
        with self._lock(instance.uuid):
            try:
                with actions.event(self.conductor_db, context, instance.uuid, op.event,
                                   host=self.host):
                    op.run(self, context, instance)
            except Exception as exc:  # noqa: BLE001 - recorded, instance stays usable.
                LOG.exception('%s of %s failed', action, instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self._finish_task(instance, None)
                return
            self._finish_task(instance, op.final_vm_state)

    def _finish_task(self, instance, vm_state):
        """Clear the task and record the power state the hypervisor reports."""
        values = {'task_state': None, 'power_state': self._power_state(instance)}
        if vm_state is not None:
            values['vm_state'] = vm_state
        try:
            self.conductor_db.instance_update(instance.uuid, values)
        except exception.InstanceNotFound:
            pass

    def _power_state(self, instance):
        try:
            return self.driver.get_info(instance).state
        except exception.NotFound:
            return 0

    def get_console_output(self, context, instance):
        output = self.driver.get_console_output(context, instance)
        if isinstance(output, bytes):
            output = output.decode('utf-8', 'replace')
        return output
