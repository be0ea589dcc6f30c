"""The lifecycle retry queue: one thread, calls in due order, stop drops the rest."""

import threading

from nova.compute import retry_queue


def _threads(name):
    return [t for t in threading.enumerate() if t.name == name]


def test_calls_run_in_due_order_on_one_thread():
    queue = retry_queue.RetryQueue('test-retry-order')
    done, ran = threading.Event(), []

    def record(tag):
        ran.append((tag, threading.current_thread().name))
        if len(ran) == 4:
            done.set()
    try:
        # Gaps wide enough that a loaded machine queues all four before 'b' is due.
        for tag, delay in (('c', 1.0), ('a', 0.0), ('d', 1.0), ('b', 0.5)):
            queue.call_later(delay, record, tag)
        # Four pending calls, a single thread (threading.Timer: four).
        assert len(_threads('test-retry-order')) == 1
        assert done.wait(30)
        # Equal due times run in the order they were added.
        assert ran == [(t, 'test-retry-order') for t in 'abcd']
    finally:
        queue.stop()


def test_a_failing_call_does_not_end_the_queue():
    queue = retry_queue.RetryQueue('test-retry-fail')
    done = threading.Event()

    def fail():
        raise RuntimeError('boom')
    try:
        queue.call_later(0, fail)
        queue.call_later(0, done.set)
        assert done.wait(30)
    finally:
        queue.stop()


def test_stop_drops_pending_calls_and_ends_the_thread():
    queue = retry_queue.RetryQueue('test-retry-stop')
    ran = []
    queue.call_later(3600, ran.append, 'late')
    [thread] = _threads('test-retry-stop')
    assert queue.pending() == 1
    queue.stop()
    thread.join(30)
    assert not thread.is_alive() and queue.pending() == 0
    queue.call_later(0, ran.append, 'after stop')
    assert ran == [] and not _threads('test-retry-stop')
