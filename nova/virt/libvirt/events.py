"""libvirt lifecycle events: one event loop thread per process, listeners that reconnect."""

import logging
import threading

import libvirt

from nova import power_state

LOG = logging.getLogger(__name__)

# libvirt's lifecycle event -> the power state it announces (upstream's
# mapping); events not listed (defined, undefined, ...) say nothing about it.
EVENT_POWER_STATE = {
    libvirt.VIR_DOMAIN_EVENT_STARTED: power_state.RUNNING,
    libvirt.VIR_DOMAIN_EVENT_RESUMED: power_state.RUNNING,
    libvirt.VIR_DOMAIN_EVENT_SUSPENDED: power_state.PAUSED,
    libvirt.VIR_DOMAIN_EVENT_STOPPED: power_state.SHUTDOWN,
    libvirt.VIR_DOMAIN_EVENT_SHUTDOWN: None,   # shutting down: still running
    libvirt.VIR_DOMAIN_EVENT_PMSUSPENDED: power_state.SUSPENDED,
    libvirt.VIR_DOMAIN_EVENT_CRASHED: power_state.CRASHED,
}

_loop_lock = threading.Lock()
_loop_thread = None


def power_state_for(event, detail):
    """The power state a lifecycle event announces, or None."""
    if (event == libvirt.VIR_DOMAIN_EVENT_SUSPENDED and
            detail == getattr(libvirt, 'VIR_DOMAIN_EVENT_SUSPENDED_POSTCOPY', -1)):
        return None   # still running, memory moving to another host
    return EVENT_POWER_STATE.get(event)


def ensure_event_loop():
    """Register libvirt's default event implementation and run it in a thread.

    libvirt allows one implementation per process, registered before the
    connections that use events are opened; every listener shares it.
    """
    global _loop_thread
    with _loop_lock:
        if _loop_thread is not None:
            return
        libvirt.virEventRegisterDefaultImpl()

        def run():
            while True:
                try:
                    libvirt.virEventRunDefaultImpl()
                except Exception:  # noqa: BLE001 - the loop must keep running.
                    LOG.exception('libvirt event loop iteration failed')

        _loop_thread = threading.Thread(target=run, name='libvirt-event-loop',
                                        daemon=True)
        _loop_thread.start()


class LifecycleListener:
    """Delivers (uuid, power_state) for every domain lifecycle event on ``uri``.

    It keeps its own connection (with keepalive, so a dead libvirtd is
    noticed) and reopens it after libvirtd restarts, calling ``on_reconnect``
    then: events sent while it was away are lost, so the caller resyncs.
    ``callback`` runs on this listener's own thread, never on the event loop.
    """

    def __init__(self, uri, callback, on_reconnect=None, retry_interval=2.0,
                 keepalive=(5, 3)):
        self.uri = uri
        self.callback = callback
        self.on_reconnect = on_reconnect
        self.retry_interval = retry_interval
        self.keepalive = keepalive
        self._stop = threading.Event()
        self._closed = threading.Event()
        self._queue = []
        self._queue_cond = threading.Condition()
        self._conn = None
        self._threads = []
        self.connected = threading.Event()
        self.reconnects = 0

    # ------------------------------------------------------------ lifecycle
    def start(self):
        ensure_event_loop()
        for target, name in ((self._connect_loop, 'libvirt-events-connect'),
                             (self._dispatch_loop, 'libvirt-events-dispatch')):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self):
        self._stop.set()
        self._closed.set()
        with self._queue_cond:
            self._queue_cond.notify_all()
        self._close()
        for thread in self._threads:
            thread.join(timeout=5)

    # ------------------------------------------------------------ connection
    def _connect_loop(self):
        first = True
        while not self._stop.is_set():
            try:
                self._open()
            except libvirt.libvirtError as exc:
                LOG.warning('Cannot listen to libvirt events at %s (%s); retrying',
                            self.uri, exc.get_error_message())
                self._stop.wait(self.retry_interval)
                continue
            LOG.info('Listening to libvirt lifecycle events at %s', self.uri)
            self.connected.set()
            if not first:
                self.reconnects += 1
                if self.on_reconnect is not None:
                    self._enqueue(('resync', None))
            first = False
            self._closed.wait()
            self.connected.clear()
            self._close()
            if not self._stop.is_set():
                LOG.warning('libvirt event connection to %s closed; reconnecting', self.uri)
                self._stop.wait(self.retry_interval)

    def _open(self):
        self._closed.clear()
        conn = libvirt.openReadOnly(self.uri)
        try:
            if not self.uri.startswith('test:'):
                conn.setKeepAlive(*self.keepalive)
            conn.registerCloseCallback(self._on_close, None)
        except libvirt.libvirtError:
            pass   # drivers without keepalive/close support still send events
        try:
            conn.domainEventRegisterAny(None, libvirt.VIR_DOMAIN_EVENT_ID_LIFECYCLE,
                                        self._on_event, None)
        except libvirt.libvirtError:
            conn.close()
            raise
        self._conn = conn

    def _close(self):
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.unregisterCloseCallback()
        except libvirt.libvirtError:
            pass
        try:
            conn.close()
        except libvirt.libvirtError:
            pass

    def _on_close(self, _conn, reason, _opaque):
        LOG.info('libvirt event connection closed (reason %s)', reason)
        self._closed.set()

    # ------------------------------------------------------------ events
    def _on_event(self, _conn, dom, event, detail, _opaque):
        # Runs on the event loop: no libvirt calls, no waiting.
        state = power_state_for(event, detail)
        if state is not None:
            self._enqueue(('event', (dom.UUIDString(), state)))

    def _enqueue(self, item):
        with self._queue_cond:
            self._queue.append(item)
            self._queue_cond.notify()

    def _dispatch_loop(self):
        while True:
            with self._queue_cond:
                while not self._queue and not self._stop.is_set():
                    self._queue_cond.wait()
                if self._stop.is_set():
                    return
                kind, payload = self._queue.pop(0)
            try:
                if kind == 'resync':
                    self.on_reconnect()
                else:
                    self.callback(*payload)
            except Exception:  # noqa: BLE001 - one bad event must not stop delivery.
                LOG.exception('Handling libvirt event %s %s failed', kind, payload)
