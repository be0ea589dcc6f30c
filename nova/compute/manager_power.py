"""Compute manager: power actions (stop, start, reboot, pause, suspend) and console."""

import collections
import logging

from nova import vm_states as vs
from nova.compute import actions, manager_core
from nova.notifications import action as notify

LOG = logging.getLogger(__name__)

PowerOp = collections.namedtuple('PowerOp', 'event run final_vm_state')


def _stop(core, ctx, inst):
    core.driver.power_off(inst, timeout=core.conf.shutdown_timeout, retry_interval=5)


def _start(core, ctx, inst):
    core.driver.power_on(ctx, inst, None, block_device_info=core.block_device_info(ctx, inst))


def _reboot(kind):
    def run(core, ctx, inst):
        core.driver.reboot(ctx, inst, None, kind,
                           block_device_info=core.block_device_info(ctx, inst))
    return run


OPS = {
    'stop': PowerOp('compute_stop_instance', _stop, vs.STOPPED),
    'start': PowerOp('compute_start_instance', _start, vs.ACTIVE),
    'reboot_soft': PowerOp('compute_reboot_instance', _reboot('SOFT'), vs.ACTIVE),
    'reboot_hard': PowerOp('compute_reboot_instance', _reboot('HARD'), vs.ACTIVE),
    'pause': PowerOp('compute_pause_instance', lambda k, c, i: k.driver.pause(i), vs.PAUSED),
    'unpause': PowerOp('compute_unpause_instance', lambda k, c, i: k.driver.unpause(i),
                       vs.ACTIVE),
    'suspend': PowerOp('compute_suspend_instance', lambda k, c, i: k.driver.suspend(c, i),
                       vs.SUSPENDED),
    'resume': PowerOp('compute_resume_instance',
                      lambda k, c, i: k.driver.resume(c, i, None), vs.ACTIVE),
}


class PowerManager:
    """Power actions of the guests on this host, and their console output."""

    target = manager_core.RPC_TARGET

    def __init__(self, core):
        self.core = core
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host

    @notify.instance_action(notify.power_event)
    def power_action(self, context, instance, action):
        op = OPS[action]
        with self.core.lock(instance.uuid):
            try:
                with self.core.event(context, instance.uuid, op.event,
                                   host=self.host):
                    op.run(self.core, context, instance)
            except Exception as exc:  # noqa: BLE001 - recorded, instance stays usable.
                LOG.exception('%s of %s failed', action, instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self.core.finish_task(instance, None)
                return
            self.core.finish_task(instance, op.final_vm_state)

    def get_console_output(self, context, instance):
        output = self.driver.get_console_output(context, instance)
        if isinstance(output, bytes):
            output = output.decode('utf-8', 'replace')
        return output
