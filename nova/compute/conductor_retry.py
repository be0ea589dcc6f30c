"""Conductor writes a compute operation could not make: made again later, in order."""

import logging

from nova import exception
from nova.compute import retry_queue

LOG = logging.getLogger(__name__)

# Seconds before each further try: about ten minutes in all, the default
# stuck_task_timeout. The host also hurries the tries the moment another
# conductor call succeeds again (the heartbeat, every report_interval), and
# hands what it gave up on to the reconciliation (``on_give_up``).
DELAYS = (1, 2, 5, 10, 30, 60, 120, 180, 200)
# The row moved on (deleted, or another operation owns it): nothing to make again.
SETTLED = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


class ConductorRetry:
    """Runs steps (callables) in order; from the first that fails, all run again later.

    A step is retried on any error but ``SETTLED``, which ends the chain
    quietly. Retries hold the instance's lock (``lock(uuid)``), as the first
    run's caller does. The first failure of a chain is logged as a warning,
    the further ones at debug level: one line per lost write, not one per try.
    ``on_give_up(uuid, what)`` is told about a chain that ran out of tries.
    """

    def __init__(self, lock, delays=None, on_give_up=None):
        self._lock = lock
        self.delays = DELAYS if delays is None else delays
        self._on_give_up = on_give_up
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

    def hurry(self):
        """The conductor answers again: every waiting chain tries now."""
        if self._queue.pending():
            LOG.info('The conductor answers again: %d waiting writes try now',
                     self._queue.pending())
            self._queue.hurry()

    def stop(self):
        self._queue.stop()

    def _later(self, uuid, what, steps, attempt, exc):
        if attempt >= len(self.delays):
            LOG.error('%s of %s: gave up after %d tries (%s); the reconciliation '
                      'repairs the server', what, uuid, attempt + 1, exc)
            if self._on_give_up is not None:
                self._on_give_up(uuid, what)
            return False
        delay = self.delays[attempt]
        log = LOG.warning if attempt == 0 else LOG.debug
        # A RemoteError's text ends with the conductor's traceback: its first line says it.
        log('%s of %s failed (%s): trying again in %ss', what, uuid,
            str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__, delay)
        self._queue.call_later(delay, self._locked_run, uuid, what, steps, attempt + 1)
        return False

    def _locked_run(self, uuid, what, steps, attempt):
        with self._lock(uuid):
            self.run(uuid, what, steps, attempt)
