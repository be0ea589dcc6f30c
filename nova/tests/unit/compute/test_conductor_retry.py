"""Conductor writes made again later: order, what ends a chain, giving up."""

import contextlib
import time

from nova import exception
from nova.compute import conductor_retry


class Flaky:
    """A step that fails its first ``fails`` calls."""

    def __init__(self, log, name, fails=0, error=RuntimeError):
        self.log, self.name, self.fails, self.error = log, name, fails, error

    def __call__(self):
        self.log.append(self.name)
        if self.fails:
            self.fails -= 1
            raise self.error('conductor down')


def _retry(delays=(0.01,) * 5):
    held = []

    @contextlib.contextmanager
    def lock(uuid):
        held.append(uuid)
        yield
    retry = conductor_retry.ConductorRetry(lock, delays=delays)
    return retry, held


def _wait(retry, log, length):
    for _ in range(200):
        if len(log) >= length and not retry.pending():
            break
        time.sleep(0.01)


def test_all_steps_run_now_when_the_conductor_answers():
    log = []
    retry, held = _retry()
    assert retry.run('u', 'what', [Flaky(log, 'a'), Flaky(log, 'b')])
    assert log == ['a', 'b'] and held == []


def test_from_the_failed_step_on_everything_runs_again_under_the_lock():
    log = []
    retry, held = _retry()
    assert not retry.run('u', 'what', [Flaky(log, 'a'), Flaky(log, 'b', fails=2),
                                       Flaky(log, 'c')])
    _wait(retry, log, 5)
    assert log == ['a', 'b', 'b', 'b', 'c']
    assert held == ['u', 'u']
    retry.stop()


def test_a_row_that_moved_on_ends_the_chain():
    log = []
    retry, _held = _retry()
    assert retry.run('u', 'what', [
        Flaky(log, 'a', fails=1, error=lambda m: exception.InstanceNotFound(instance_id='u')),
        Flaky(log, 'b')])
    assert log == ['a'] and not retry.pending()


def test_gives_up_after_the_last_delay():
    log = []
    retry, _held = _retry(delays=(0.01, 0.01))
    retry.run('u', 'what', [Flaky(log, 'a', fails=10)])
    _wait(retry, log, 3)
    assert log == ['a', 'a', 'a'] and not retry.pending()
    retry.stop()
