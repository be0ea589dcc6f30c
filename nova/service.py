"""Service runner: an RPC server plus heartbeat and periodic threads for one manager."""

import logging
import threading

from nova import outage, rpc

LOG = logging.getLogger(__name__)


class PeriodicThread(threading.Thread):
    """Calls ``func`` every ``interval`` seconds until stopped; errors are logged
    (a database outage once, not at every call)."""

    def __init__(self, func, interval, name):
        super().__init__(name=name, daemon=True)
        self.func = func
        self.interval = interval
        self._stop_event = threading.Event()
        self._outage = outage.OutageLog(LOG, 'Periodic task %s' % name)

    def run(self):
        while not self._stop_event.wait(self.interval):
            try:
                self.func()
            except Exception as exc:  # noqa: BLE001 - a periodic task must keep running.
                if outage.database_unavailable(exc):
                    # Every interval until the database is back: said once.
                    self._outage.failed(exc)
                else:
                    LOG.exception('Periodic task %s failed', self.name)
            else:
                self._outage.succeeded()

    def stop(self):
        self._stop_event.set()


class Service:
    """Serves ``endpoints`` on ``topic``/``host`` and reports liveness in the DB.

    ``db`` is the database, or for nova-compute the conductor proxy
    (``nova.compute.conductor_db``) that records the heartbeat for it.
    ``manager`` composes the endpoints (one per operation family) and gets
    ``init_host`` before the RPC server starts and ``cleanup_host`` at stop.
    """

    def __init__(self, conf, db, binary, topic, host, manager, endpoints, periodic=()):
        self.conf = conf
        self.db = db
        self.binary = binary
        self.topic = topic
        self.host = host
        self.manager = manager
        self.endpoints = list(endpoints)
        self.periodic = list(periodic)
        self.rpcserver = None
        self._threads = []

    def start(self):
        if hasattr(self.manager, 'init_host'):
            self.manager.init_host()
        self.db.service_heartbeat(self.host, self.binary, self.topic)
        self.rpcserver = rpc.get_server(self.conf, self.topic, self.host, self.endpoints)
        self.rpcserver.start()
        tasks = [(lambda: self.db.service_heartbeat(self.host, self.binary, self.topic),
                  self.conf.report_interval, 'heartbeat')] + self.periodic
        for func, interval, name in tasks:
            if interval and interval > 0:
                thread = PeriodicThread(func, interval, '%s-%s' % (self.binary, name))
                thread.start()
                self._threads.append(thread)
        LOG.info('%s started on %s (topic %s)', self.binary, self.host, self.topic)

    def stop(self):
        LOG.info('%s on %s stopping: finishing the RPC work in flight', self.binary,
                 self.host)
        for thread in self._threads:
            thread.stop()
        if hasattr(self.manager, 'cleanup_host'):
            self.manager.cleanup_host()
        if self.rpcserver is not None:
            # No new messages; handlers already running finish first.
            self.rpcserver.stop()
            self.rpcserver.wait()
        LOG.info('%s on %s stopped', self.binary, self.host)
