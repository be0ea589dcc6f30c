"""RescueManager: the state, the event's end and the fault, in the order a client sees them."""

import contextlib
import types

import pytest

from nova import context as nova_context
from nova import vm_states as vs
from nova.compute import manager_rescue
from nova.notifications import notifier as notifier_mod


class _Core:
    """Records, in order, what the manager writes through its shared core."""

    def __init__(self, driver):
        self.log = []
        self.conf = types.SimpleNamespace()
        self.host = 'host1'
        self.driver = driver
        self.conductor_db = types.SimpleNamespace(
            fault_create=lambda uuid, code, message, **kw: self.log.append(('fault', code)))

    @contextlib.contextmanager
    def lock(self, uuid):
        yield

    @contextlib.contextmanager
    def event(self, context, uuid, name, host=None):
        self.log.append(('event_start', name))
        try:
            yield
        except Exception:
            self.log.append(('event_end', 'Error'))
            raise
        self.log.append(('event_end', 'Success'))

    def block_device_info(self, context, instance):
        return {'volume_backed': False}

    def set_state(self, instance, vm_state, **extra):
        self.log.append(('state', vm_state))
        if getattr(self, 'state_fails', False):
            raise RuntimeError('state write failed')


class _Driver:
    def __init__(self, fail=None):
        self.fail = fail

    def rescue(self, *args):
        if self.fail == 'rescue':
            raise RuntimeError('no rescue')

    def unrescue(self, *args):
        if self.fail == 'unrescue':
            raise RuntimeError('no unrescue')


@pytest.fixture(autouse=True)
def _quiet_notifier(monkeypatch):
    monkeypatch.setattr(notifier_mod, 'get', lambda conf, host: types.SimpleNamespace(
        enabled=False))


def _manager(fail=None):
    core = _Core(_Driver(fail))
    return manager_rescue.RescueManager(core), core


def _instance(vm_state):
    return types.SimpleNamespace(uuid='u1', vm_state=vm_state)


def _ctx():
    return nova_context.RequestContext(user_id='u', project_id='p')


def test_rescue_writes_the_state_before_the_event_ends():
    manager, core = _manager()
    manager.rescue_instance(_ctx(), _instance(vs.ACTIVE), {'id': 'img', 'properties': {}})
    assert core.log == [('event_start', 'compute_rescue_instance'), ('state', vs.RESCUED),
                        ('event_end', 'Success')]


def test_failed_rescue_ends_the_event_in_error_then_fault_then_old_state():
    manager, core = _manager(fail='rescue')
    manager.rescue_instance(_ctx(), _instance(vs.STOPPED), {'id': 'img', 'properties': {}})
    assert core.log == [('event_start', 'compute_rescue_instance'), ('event_end', 'Error'),
                        ('fault', 500), ('state', vs.STOPPED)]


def test_a_state_write_failing_after_the_rescue_is_not_rolled_back():
    # The guest is rescued: no fault and no write of the old state.
    manager, core = _manager()
    core.state_fails = True
    with pytest.raises(RuntimeError, match='state write failed'):
        manager.rescue_instance(_ctx(), _instance(vs.ACTIVE), {'id': 'img', 'properties': {}})
    assert core.log == [('event_start', 'compute_rescue_instance'), ('state', vs.RESCUED),
                        ('event_end', 'Error')]


def test_unrescue_writes_the_state_before_the_event_ends():
    manager, core = _manager()
    manager.unrescue_instance(_ctx(), _instance(vs.RESCUED))
    assert core.log == [('event_start', 'compute_unrescue_instance'), ('state', vs.ACTIVE),
                        ('event_end', 'Success')]


def test_failed_unrescue_stays_rescued_with_a_fault():
    manager, core = _manager(fail='unrescue')
    manager.unrescue_instance(_ctx(), _instance(vs.RESCUED))
    assert core.log == [('event_start', 'compute_unrescue_instance'), ('event_end', 'Error'),
                        ('fault', 500), ('state', vs.RESCUED)]
