"""Delayed calls run in due order by one thread (lifecycle event retries)."""

import heapq
import itertools
import logging
import threading
import time

from nova import outage

LOG = logging.getLogger(__name__)


class RetryQueue:
    """``call_later`` without a thread per call, as ``threading.Timer`` needs.

    The thread starts with the first call and stays; calls run one after
    another, each when due. ``stop`` drops what is pending and ends the thread.
    """

    def __init__(self, name):
        self.name = name
        self._cond = threading.Condition()
        self._heap = []
        self._seq = itertools.count()   # equal due times: in the order added
        self._thread = None
        self._stopped = False
        self._outage = outage.OutageLog(LOG, 'Delayed calls of %s' % name)

    def call_later(self, delay, func, *args):
        with self._cond:
            if self._stopped:
                return
            heapq.heappush(self._heap, (time.monotonic() + delay, next(self._seq), func, args))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify()

    def pending(self):
        with self._cond:
            return len(self._heap)

    def hurry(self):
        """Every pending call is due now (still in the order they were added)."""
        with self._cond:
            now = time.monotonic()
            self._heap = [(min(due, now), seq, func, args)
                          for due, seq, func, args in self._heap]
            heapq.heapify(self._heap)
            self._cond.notify()

    def stop(self):
        with self._cond:
            self._stopped = True
            self._heap.clear()
            self._cond.notify()

    def _next(self):
        with self._cond:
            while not self._stopped:
                wait = self._heap[0][0] - time.monotonic() if self._heap else None
                if wait is not None and wait <= 0:
                    return heapq.heappop(self._heap)[2:]
                self._cond.wait(wait)
            return None

    def _run(self):
        while (item := self._next()) is not None:
            func, args = item
            try:
                func(*args)
            except Exception as exc:  # noqa: BLE001 - one failed call must not end the queue.
                if outage.database_unavailable(exc):
                    # The periodic power-state sync catches up once it is back.
                    self._outage.failed(exc)
                else:
                    LOG.exception('Delayed call %s failed', getattr(func, '__name__', func))
            else:
                self._outage.succeeded()
