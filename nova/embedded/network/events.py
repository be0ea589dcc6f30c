"""Change feeds inside the service, and the events Neutron sends Nova about ports."""

import logging
import queue
import re
import threading

LOG = logging.getLogger(__name__)
_UUID = re.compile(r'^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$')
# Neutron batches events (send_events_interval, 2 s); here they go sooner,
# a build waits on network-vif-plugged.
BATCH_SECONDS = 0.05


class ChangeFeed:
    """Subscribers called (with the kind of record) after every committed change."""

    def __init__(self):
        self._subscribers = []

    def subscribe(self, callback):
        self._subscribers.append(callback)

    def publish(self, kind):
        for callback in list(self._subscribers):
            try:
                callback(kind)
            except Exception:
                # A broken subscriber (the data plane) must not fail the API call
                # whose change has been committed already.
                LOG.exception('change subscriber failed for %s', kind)


def is_compute_port(port):
    """Neutron notifies Nova only about ports of servers (compute:*, a UUID device)."""
    return (port.get('device_owner', '').startswith('compute:')
            and bool(_UUID.match(port.get('device_id') or '')))


def event(name, port, status='completed'):
    return {'name': name, 'server_uuid': port['device_id'], 'tag': port['id'],
            'status': status}


class PortEventNotifier:
    """Sends ``os-server-external-events`` bodies from a thread of its own.

    ``send(events)`` is the transport (the all-in-one posts them to its
    compute API); failures are logged, as Neutron's notifier does.
    """

    def __init__(self, send):
        self._send = send
        self._queue = queue.Queue()
        self._thread = None
        self._lock = threading.Lock()

    def notify(self, events):
        if not events:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name='nova-events',
                                                daemon=True)
                self._thread.start()
        for item in events:
            self._queue.put(item)

    def _run(self):
        while True:
            batch = [self._queue.get()]
            if batch[0] is None:
                return
            try:
                while True:
                    item = self._queue.get(timeout=BATCH_SECONDS)
                    if item is None:
                        self._deliver(batch)
                        return
                    batch.append(item)
            except queue.Empty:
                pass
            self._deliver(batch)

    def _deliver(self, batch):
        try:
            self._send(batch)
        except Exception as exc:
            LOG.warning('Could not send %d port event(s) to Nova: %s', len(batch), exc)

    def stop(self):
        with self._lock:
            if self._thread is not None:
                self._queue.put(None)
                self._thread.join(5)
                self._thread = None
