"""Conductor writes a compute operation could not make: made again later, in order."""

import logging

from nova import exception
from nova.compute import retry_queue

LOG = logging.getLogger(__name__)

# Seconds before each further try: about ten minutes in all, the default
# stuck_task_timeout, after which the periodic reconciliation repairs the row.
DELAYS = (1, 2, 5, 10, 30, 60, 120, 180, 200)
# The row moved on (deleted, or another operation owns it): nothing to make again.
SETTLED = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


class ConductorRetry:
    """Runs steps (callables) in order; from the first that fails, all run again later.

    A step is retried on any error but ``SETTLED``, which ends the chain
    quietly. Retries hold the instance's lock (``lock(uuid)``), as the first
    run's caller does.
    """

    def __init__(self, lock, delays=None):
        self._lock = lock
        self.delays = DELAYS if delays is None else delays
        self._queue = retry_queue.RetryQueue('conductor-retry')

    def run(self, uuid, what, steps, attempt=0):
        """Run ``steps`` now; the caller holds the instance's lock. True when all ran."""
        for index, step in enumerate(steps):
            try:
                step()
            except SETTLED as exc:
                LOG.info('%s of %s: not needed any more (%s)', what, uuid, exc)
                return True
            except Exception as exc:  # noqa: BLE001 - the conductor may answer later.
                return self._later(uuid, what, steps[index:], attempt, exc)
        if attempt:
            LOG.info('%s of %s: recorded on try %d', what, uuid, attempt + 1)
        return True

    def pending(self):
        return self._queue.pending()

    def stop(self):
        self._queue.stop()

    def _later(self, uuid, what, steps, attempt, exc):
        if attempt >= len(self.delays):
            LOG.error('%s of %s: gave up after %d tries (%s); the periodic '
                      'reconciliation repairs the server', what, uuid, attempt + 1, exc)
            return False
        delay = self.delays[attempt]
        LOG.warning('%s of %s failed (%s): trying again in %ss', what, uuid, exc, delay)
        self._queue.call_later(delay, self._locked_run, uuid, what, steps, attempt + 1)
        return False

    def _locked_run(self, uuid, what, steps, attempt):
        with self._lock(uuid):
            self.run(uuid, what, steps, attempt)
