"""Backends a fault loop may take away: a private PostgreSQL, TCP and HTTP relays on loopback."""

import glob
import http.client
import http.server
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import pytest


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class PrivatePostgres:
    """A PostgreSQL cluster of the test's own (initdb in a temporary directory, a free port).

    The machine's shared server is never stopped; this one the test stops
    and starts. PostgreSQL refuses to run as root, so as root it runs as
    the ``postgres`` user. Skips the test without the distribution's
    binaries (``/usr/lib/postgresql/*/bin``).
    """

    def __init__(self):
        found = sorted(glob.glob('/usr/lib/postgresql/*/bin/pg_ctl'))
        if not found:
            pytest.skip('no PostgreSQL binaries under /usr/lib/postgresql/*/bin: the '
                        'database fault needs a server of its own')
        self.bindir = os.path.dirname(found[-1])
        self.port = _free_port()
        self.dir = None
        self.url = 'postgresql+psycopg2://postgres@127.0.0.1:%d/postgres' % self.port

    def _run(self, tool, *args, timeout=60):
        cmd = [os.path.join(self.bindir, tool)] + list(args)
        if os.geteuid() == 0:
            cmd = [shutil.which('runuser') or '/sbin/runuser', '-u', 'postgres', '--'] + cmd
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, (cmd, done.stdout, done.stderr)

    def __enter__(self):
        if os.geteuid() == 0:
            try:
                import pwd
                owner = pwd.getpwnam('postgres')
            except KeyError:
                pytest.skip('running as root and no postgres user to run PostgreSQL as')
        self.dir = tempfile.mkdtemp(prefix='nova-fault-pg-')
        if os.geteuid() == 0:
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
        self._run('initdb', '-D', self.data, '-U', 'postgres', '-A', 'trust',
                  '--no-sync', '-E', 'UTF8')
        with open(os.path.join(self.data, 'postgresql.conf'), 'a') as conf:
            # Throwaway data: no fsync; the socket in its own directory.
            conf.write("port = %d\nlisten_addresses = '127.0.0.1'\n"
                       "unix_socket_directories = '%s'\nfsync = off\n"
                       "synchronous_commit = off\nfull_page_writes = off\n"
                       % (self.port, self.dir))
        self.start()
        return self

    @property
    def data(self):
        return os.path.join(self.dir, 'data')

    def start(self):
        self._run('pg_ctl', '-D', self.data, '-l', os.path.join(self.dir, 'log'),
                  '-w', '-t', '60', 'start')

    def stop(self, mode='fast'):
        """``fast``: every session is ended, as a restart by the operator does."""
        self._run('pg_ctl', '-D', self.data, '-m', mode, '-w', '-t', '60', 'stop')

    def __exit__(self, *exc):
        try:
            self._run('pg_ctl', '-D', self.data, '-m', 'immediate', '-w', 'stop')
        except AssertionError:
            pass    # Already stopped.
        shutil.rmtree(self.dir, ignore_errors=True)


class TCPRelay:
    """A loopback port forwarding to ``target``; stopped, it refuses connections.

    ``stop`` closes the listening socket and every connection in flight, so
    the service behind it is unreachable to whoever was pointed at the relay
    only; ``start`` listens on the same port again.
    """

    def __init__(self, target_host, target_port):
        self.target = (target_host, target_port)
        self.port = _free_port()
        self._listener = None
        self._conns = set()
        self._lock = threading.Lock()

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    def start(self):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(('127.0.0.1', self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def _accept(self, listener):
        while True:
            try:
                client, _addr = listener.accept()
            except OSError:
                return      # Stopped.
            try:
                upstream = socket.create_connection(self.target, timeout=10)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._conns.update((client, upstream))
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src, dst):
        try:
            while True:
                chunk = src.recv(65536)
                if not chunk:
                    break
                dst.sendall(chunk)
        except OSError:
            pass
        for sock in (src, dst):
            with self._lock:
                self._conns.discard(sock)
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def stop(self):
        if self._listener is not None:
            # Wakes the accept() in flight; close() alone leaves the port listening.
            try:
                self._listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._listener.close()
            self._listener = None
        with self._lock:
            conns, self._conns = list(self._conns), set()
        for sock in conns:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


class _Handler(http.server.BaseHTTPRequestHandler):
    # One request per connection: a stopped relay leaves no idle keep-alive behind.
    protocol_version = 'HTTP/1.0'

    def log_message(self, *args):
        pass

    def _forward(self):
        relay = self.server.relay
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in ('host', 'accept-encoding', 'connection',
                                        'content-length')}
        conn = http.client.HTTPConnection(*relay.target, timeout=60)
        try:
            conn.request(self.command, self.path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read().replace(relay.upstream_base, relay.base)
        except OSError:
            self.send_error(502)
            return
        finally:
            conn.close()
        self.send_response(resp.status, resp.reason)
        for key, value in resp.getheaders():
            if key.lower() not in ('content-length', 'connection', 'transfer-encoding',
                                   'server', 'date'):
                self.send_header(key, value.replace(relay.upstream_base.decode(),
                                                    relay.base.decode()))
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _forward


class HTTPRelay:
    """An HTTP relay to a service that names itself in its answers (Keystone).

    Keystone's version documents and catalogs give its own URL; a client
    following them would leave a plain TCP relay. This one rewrites
    ``http://HOST:PORT`` of the target into its own address in bodies and
    headers, so every call of a client pointed here comes here. ``stop``
    refuses connections until ``start``.
    """

    def __init__(self, target_host, target_port):
        self.target = (target_host, target_port)
        self.port = _free_port()
        self.upstream_base = ('http://%s:%d' % self.target).encode()
        self.base = ('http://127.0.0.1:%d' % self.port).encode()
        self._server = None

    @property
    def url(self):
        return self.base.decode()

    def start(self):
        http.server.ThreadingHTTPServer.allow_reuse_address = True
        server = http.server.ThreadingHTTPServer(('127.0.0.1', self.port), _Handler)
        server.daemon_threads = True
        server.relay = self
        self._server = server
        threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.1},
                         daemon=True).start()
        return self

    def stop(self):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def seconds_until(predicate, since, timeout=120, interval=0.2):
    """Seconds from ``since`` (monotonic) until ``predicate()`` held, or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return round(time.monotonic() - since, 1)
        time.sleep(interval)
    return None
