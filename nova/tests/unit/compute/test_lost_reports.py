"""Lost reports of a compute host: written again, hurried on recovery, decided from the guest."""

import time

import oslo_messaging as messaging

from nova import vm_states as vs
from nova.compute import conductor_db, manager_core
from nova.compute import reconcile_decide as d


class Conductor:
    """The conductor's answers; ``down`` makes every call fail as a refused vhost does."""

    def __init__(self, row):
        self.row, self.down, self.calls = row, False, []

    def send(self, context, host, method, args, kwargs):
        self.calls.append(method)
        if self.down:
            raise messaging.MessageDeliveryFailure('ACCESS_REFUSED')
        if method == 'instance_get':
            return dict(self.row)
        if method == 'instance_update':
            expected = kwargs.get('expected_task_state') or ()
            if expected and self.row['task_state'] not in expected:
                from nova import exception
                raise exception.UnexpectedTaskStateError(instance_uuid='u', expected=expected,
                                                         actual=self.row['task_state'])
            self.row.update(args[1])
        return None


class Instance:
    uuid, task_state = 'u', vs.RESCUING


class Driver:
    def get_info(self, instance):
        raise __import__('nova').exception.NotFound()


def _core(row):
    conductor = Conductor(row)
    cdb = conductor_db.ConductorDB('h1', conductor.send)
    core = manager_core.ManagerCore(None, cdb, Driver(), 'h1')
    core.retry.delays = (30,) * 3
    return conductor, cdb, core


def test_a_lost_report_is_written_again_as_soon_as_the_conductor_answers():
    conductor, cdb, core = _core({'task_state': vs.RESCUING, 'vm_state': vs.ACTIVE})
    conductor.down = True
    core.set_state(Instance(), vs.RESCUED)
    assert conductor.row['vm_state'] == vs.ACTIVE and core.retry.pending() == 1
    conductor.down = False
    cdb.service_heartbeat('h1', 'nova-compute')      # the link answers again
    for _ in range(100):
        if conductor.row['vm_state'] == vs.RESCUED:
            break
        time.sleep(0.02)
    assert (conductor.row['vm_state'], conductor.row['task_state']) == (vs.RESCUED, None)
    core.retry.stop()


def test_a_retry_leaves_a_server_a_delete_took():
    conductor, cdb, core = _core({'task_state': vs.RESCUING, 'vm_state': vs.ACTIVE})
    conductor.down = True
    core.set_state(Instance(), vs.RESCUED)
    conductor.row['task_state'] = vs.DELETING
    conductor.down = False
    cdb.service_heartbeat('h1', 'nova-compute')
    time.sleep(0.3)
    assert (conductor.row['vm_state'], conductor.row['task_state']) == (vs.ACTIVE, vs.DELETING)
    core.retry.stop()


def test_a_report_out_of_tries_waits_for_the_reconciliation():
    conductor, cdb, core = _core({'task_state': vs.RESCUING, 'vm_state': vs.ACTIVE})
    core.retry.delays = (0.01,)
    conductor.down = True
    core.set_state(Instance(), vs.RESCUED)
    for _ in range(100):
        if core.unreported:
            break
        time.sleep(0.02)
    assert list(core.unreported) == ['u']
    core.retry.stop()


def test_a_finished_rescue_or_stop_is_recorded_from_the_guest():
    assert d.instance_plan(vs.ACTIVE, vs.RESCUING, rescued=True) == d.FINISH_RESCUE
    assert d.instance_plan(vs.ACTIVE, vs.RESCUING, rescued=False) == d.ROLLBACK_RESCUE
    assert d.reached_vm_state(vs.POWERING_OFF, vs.ACTIVE, 4) == vs.STOPPED
    assert d.reached_vm_state(vs.POWERING_OFF, vs.ACTIVE, 1) == vs.ACTIVE
    assert d.reached_vm_state(vs.POWERING_ON, vs.STOPPED, 1) == vs.ACTIVE
