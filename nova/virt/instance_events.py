"""Events a compute host waits for from other services (network-vif-plugged) and their delivery."""

import threading
import time


class EventWaiter:
    """The (name, tag) events one guest start waits for; see InstanceEvents.prepare."""

    def __init__(self, registry, uuid, keys):
        self._registry = registry
        self.uuid = uuid
        self.pending = set(keys)
        self.failed = set()
        self._cond = threading.Condition()

    def arrive(self, key, status):
        with self._cond:
            if key not in self.pending:
                return False
            self.pending.discard(key)
            if status == 'failed':
                self.failed.add(key)
            self._cond.notify_all()
            return True

    def wait(self, timeout):
        """Block until every event arrived or ``timeout`` seconds passed;
        answers the keys still missing (the waiter is then forgotten)."""
        deadline = time.monotonic() + timeout
        try:
            with self._cond:
                while self.pending:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
                return set(self.pending)
        finally:
            self.cancel()

    def cancel(self):
        self._registry.forget(self)


class InstanceEvents:
    """Waiters by instance: the driver prepares one before it plugs (an event
    may come as soon as the port is plugged), the manager delivers what
    ``os-server-external-events`` sends to this host."""

    def __init__(self):
        self._lock = threading.Lock()
        self._waiters = {}

    def prepare(self, uuid, keys):
        """A waiter for ``keys`` ((event name, tag) pairs) of instance ``uuid``."""
        waiter = EventWaiter(self, uuid, keys)
        with self._lock:
            self._waiters.setdefault(uuid, []).append(waiter)
        return waiter

    def forget(self, waiter):
        with self._lock:
            waiters = self._waiters.get(waiter.uuid, [])
            if waiter in waiters:
                waiters.remove(waiter)
            if not waiters:
                self._waiters.pop(waiter.uuid, None)

    def deliver(self, uuid, name, tag, status='completed'):
        """Hand an event to whoever waits for it; False when nobody does."""
        with self._lock:
            waiters = list(self._waiters.get(uuid, ()))
        delivered = False
        for waiter in waiters:
            delivered = waiter.arrive((name, tag), status) or delivered
        return delivered
