"""Several worker processes serving one listening socket, as upstream's *_workers options."""

import logging
import os
import signal
import socket
import time

from nova import wsgi_server
from nova.cmd import common, sd_notify

LOG = logging.getLogger(__name__)

# A worker that dies sooner than this after its start is not restarted at
# once again: a broken configuration would otherwise fork in a tight loop.
_RESPAWN_PAUSE = 1.0


def listen(host, port, backlog=128):
    family = socket.AF_INET6 if ':' in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(exc.errno, 'cannot listen on %s:%s: %s'
                      % (host, port, exc.strerror or exc)) from None
    sock.listen(backlog)
    return sock


def url(sock):
    host, port = sock.getsockname()[:2]
    return 'http://%s:%d' % ('[%s]' % host if ':' in host else host, port)


class Workers:
    """Forks ``count`` workers that each run ``serve(sock)``, restarts the ones
    that die, and stops them all on SIGTERM or SIGINT (SIGHUP is passed on).

    ``serve`` runs in the child only, after the fork: database and broker
    connections are never shared between processes.
    """

    def __init__(self, serve, sock, count, stop_timeout):
        self.serve = serve
        self.sock = sock
        self.count = count
        self.stop_timeout = stop_timeout
        self.children = {}      # pid -> start time
        self._stopping = False

    def _spawn(self):
        pid = os.fork()
        if pid == 0:
            for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(signum, signal.SIG_DFL)
            _stop_with_parent()
            status = 1
            try:
                status = self.serve(self.sock) or 0
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 1
            except BaseException:  # noqa: BLE001 - the worker's end, logged.
                LOG.exception('metadata worker %d failed', os.getpid())
            finally:
                logging.shutdown()
                os._exit(status)
        self.children[pid] = time.monotonic()
        return pid

    def run(self):
        """Serve until told to stop; the exit status for the console script."""
        notifier = sd_notify.SystemdNotifier()     # takes NOTIFY_SOCKET before any fork
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGINT, self._stop)
        signal.signal(signal.SIGHUP, self._hup)
        for _ in range(self.count):
            self._spawn()
        notifier.ready()
        while not self._stopping:
            self._reap_and_respawn()
            time.sleep(0.2)
        notifier.stopping()
        return self._stop_children()

    def _reap_and_respawn(self):
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            started = self.children.pop(pid, None)
            if started is None or self._stopping:
                continue
            LOG.warning('metadata worker %d exited (status %d); starting another', pid,
                        os.waitstatus_to_exitcode(status))
            if time.monotonic() - started < _RESPAWN_PAUSE:
                time.sleep(_RESPAWN_PAUSE)
            self._spawn()

    def _stop(self, signum, frame):
        self._stopping = True

    def _hup(self, signum, frame):
        for pid in list(self.children):
            _signal(pid, signal.SIGHUP)

    def _stop_children(self):
        for pid in list(self.children):
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + (self.stop_timeout or 0) + 5
        while self.children and time.monotonic() < deadline:
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                self.children.pop(pid, None)
            else:
                time.sleep(0.1)
        for pid in list(self.children):
            LOG.warning('metadata worker %d did not stop; killing it', pid)
            _signal(pid, signal.SIGKILL)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self.sock.close()
        return 0


def _stop_with_parent():
    """SIGTERM this worker when its parent dies (killed, say): no orphan keeps serving."""
    try:
        import ctypes
        ctypes.CDLL('libc.so.6', use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _signal(pid, signum):
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def serve_app(build_app, conf, sock, name):
    """A worker's life: build the app, serve ``sock`` until SIGTERM, drain."""
    app = build_app()
    host, port = sock.getsockname()[:2]
    server, _thread, url = wsgi_server.serve_in_thread(
        app, host, port, sock=sock, **wsgi_server.options(conf))
    LOG.info('%s worker %d serving on %s', name, os.getpid(), url)
    common.wait_for_signal(lambda: server.stop(conf.graceful_shutdown_timeout), conf)
    return 0
