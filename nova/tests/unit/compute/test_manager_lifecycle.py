"""The power state sync and running-deleted decisions, as upstream's tables have them."""

import datetime
import time

import pytest

from nova import power_state as ps
from nova import vm_states as vs
from nova.compute import manager_core
from nova.compute import manager_lifecycle as ml

NOW = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.timezone.utc)


@pytest.mark.parametrize('vm_state, power, expected', [
    # ACTIVE: stopped, crashed or suspended guests go through the stop path.
    (vs.ACTIVE, ps.SHUTDOWN, ml.STOP),
    (vs.ACTIVE, ps.CRASHED, ml.STOP),
    (vs.ACTIVE, ps.SUSPENDED, ml.STOP),
    # ...paused or not found only get logged, as upstream.
    (vs.ACTIVE, ps.PAUSED, None),
    (vs.ACTIVE, ps.NOSTATE, None),
    (vs.ACTIVE, ps.RUNNING, None),
    # STOPPED: a guest started behind our back is stopped again.
    (vs.STOPPED, ps.RUNNING, ml.STOP),
    (vs.STOPPED, ps.PAUSED, ml.STOP),
    (vs.STOPPED, ps.SHUTDOWN, None),
    (vs.STOPPED, ps.NOSTATE, None),
    (vs.STOPPED, ps.CRASHED, None),
    # PAUSED: only a stopped guest matters.
    (vs.PAUSED, ps.SHUTDOWN, ml.STOP),
    (vs.PAUSED, ps.CRASHED, ml.STOP),
    (vs.PAUSED, ps.RUNNING, None),
    # Soft-deleted guests must not run; the server stays soft-deleted.
    (vs.SOFT_DELETED, ps.RUNNING, ml.POWER_OFF),
    (vs.SOFT_DELETED, ps.SHUTDOWN, None),
    (vs.SOFT_DELETED, ps.NOSTATE, None),
    # Hands off: these states own their guests' power.
    (vs.BUILDING, ps.SHUTDOWN, None),
    (vs.RESCUED, ps.SHUTDOWN, None),
    (vs.RESIZED, ps.SHUTDOWN, None),
    (vs.SUSPENDED, ps.RUNNING, None),
    (vs.ERROR, ps.RUNNING, None),
])
def test_sync_decision_without_task(vm_state, power, expected):
    assert ml.sync_decision(vm_state, None, power) == expected


@pytest.mark.parametrize('task', [vs.RESCUING, vs.REBOOTING_HARD, vs.POWERING_OFF,
                                  vs.UNRESCUING, vs.DELETING])
def test_a_task_in_progress_means_hands_off(task):
    assert ml.sync_decision(vs.ACTIVE, task, ps.SHUTDOWN) is None
    assert ml.sync_decision(vs.STOPPED, task, ps.RUNNING) is None


def _row(deleted=1, host='h1', deleted_at=None):
    return {'deleted': deleted, 'host': host, 'deleted_at': deleted_at}


def test_live_instance_is_never_an_orphan():
    assert ml.orphan_reason(_row(deleted=0), True, 'h1', NOW, 0) is None


def test_deleted_instance_of_this_host_is_an_orphan():
    assert ml.orphan_reason(_row(), False, 'h1', NOW, 0) == 'instance deleted'


def test_deleted_instance_of_another_host_is_not_ours_unless_its_files_are():
    assert ml.orphan_reason(_row(host='h2'), False, 'h1', NOW, 0) is None
    assert ml.orphan_reason(_row(host='h2'), True, 'h1', NOW, 0) == 'instance deleted'


def test_unknown_domain_needs_our_files():
    assert ml.orphan_reason(None, False, 'h1', NOW, 0) is None
    assert ml.orphan_reason(None, True, 'h1', NOW, 0) == 'unknown to the database'


def test_timeout_gives_a_grace_period():
    recent = _row(deleted_at=(NOW - datetime.timedelta(seconds=30)).replace(tzinfo=None))
    assert ml.orphan_reason(recent, False, 'h1', NOW, 60) is None
    assert ml.orphan_reason(recent, False, 'h1', NOW, 10) == 'instance deleted'
    assert ml.orphan_reason(recent, False, 'h1', NOW, 0) == 'instance deleted'


class _Rows:
    """The conductor's instance reads, counted."""

    def __init__(self, row):
        self.row, self.reads = row, 0

    def instance_get(self, uuid):
        self.reads += 1
        return dict(self.row)


class _Lifecycle(ml.LifecycleManager):
    """The event handling on a real core; the sync itself only recorded."""

    def __init__(self, row):
        super().__init__(manager_core.ManagerCore(None, _Rows(row), None, 'h1'))
        self.synced = []

    def _sync_one(self, row, event_power_state):
        self.synced.append(event_power_state)


def _wait_for(check, timeout=3.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_events_during_an_operation_share_one_later_look(monkeypatch):
    monkeypatch.setattr(ml, 'EVENT_RETRY_DELAY', 0.05)
    mgr = _Lifecycle({'uuid': 'u1', 'host': 'h1'})
    with mgr.core.lock('u1'):        # an operation holds the instance
        for state in (ps.SHUTDOWN, ps.NOSTATE, ps.RUNNING):
            mgr.handle_lifecycle_event('u1', state)
        # Nothing read while it runs, and one look pending for all three.
        assert mgr.conductor_db.reads == 0
        assert mgr._retry_queue().pending() == 1
    _wait_for(lambda: mgr.synced)
    assert mgr.synced == [ps.RUNNING]        # the latest event's state
    assert mgr.conductor_db.reads == 1
    mgr._retry_queue().stop()


def test_an_event_for_another_hosts_instance_is_read_and_dropped(monkeypatch):
    mgr = _Lifecycle({'uuid': 'u2', 'host': 'other'})
    mgr.handle_lifecycle_event('u2', ps.SHUTDOWN)
    assert mgr.conductor_db.reads == 1 and mgr.synced == []
    assert getattr(mgr, '_event_retries', None) is None
