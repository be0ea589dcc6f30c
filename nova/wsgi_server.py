"""Threaded HTTP/1.1 WSGI server: keep-alive, a thread cap and graceful shutdown."""

import logging
import socket
import threading
import time
from wsgiref import simple_server

LOG = logging.getLogger(__name__)

# Unread request bodies up to this size are skipped so the connection can
# carry the next request; a larger leftover closes the connection instead.
_DRAIN_LIMIT = 64 * 1024
_MAX_REQUEST_LINE = 65536


class _Input:
    """``wsgi.input`` that ends at Content-Length, where the next request begins."""

    def __init__(self, stream, length):
        self.stream = stream
        self.remaining = length

    def _take(self, reader, size):
        if self.remaining <= 0:
            return b''
        if size is None or size < 0 or size > self.remaining:
            size = self.remaining
        data = reader(size)
        # A client that hung up mid-body: nothing more will come.
        self.remaining = self.remaining - len(data) if data else 0
        return data

    def read(self, size=-1):
        return self._take(self.stream.read, size)

    def readline(self, size=-1):
        return self._take(self.stream.readline, size)

    def readlines(self, hint=-1):
        return list(iter(self.readline, b''))

    def __iter__(self):
        return iter(self.readline, b'')

    def drain(self, limit):
        """Skip what the application left unread; False if too much is left."""
        if self.remaining > limit:
            return False
        while self.read(65536):
            pass
        return True


class BadChunkedBody(ConnectionError):
    """The client's chunked framing is broken: the body (and the connection) ends."""


class _ChunkedInput:
    """``wsgi.input`` decoding a chunked body; reads end with the last chunk.

    The server sets ``wsgi.input_terminated``, as gunicorn does, so the
    application reads to the end without a Content-Length.
    """

    def __init__(self, stream):
        self.stream = stream
        self.left = 0           # bytes left in the current chunk
        self.done = False

    def _line(self):
        line = self.stream.readline(1024)
        if not line.endswith(b'\n'):
            raise BadChunkedBody('malformed chunked encoding')
        return line

    def _next_chunk(self):
        if self.left == 0 and not self.done:
            size = self._line().split(b';', 1)[0].strip()
            try:
                self.left = int(size, 16)
            except ValueError:
                raise BadChunkedBody('malformed chunk size %r' % size[:20]) from None
            if self.left < 0:
                raise BadChunkedBody('malformed chunk size %r' % size[:20])
            if self.left == 0:
                self.done = True
                while self._line().strip():     # trailers, up to the blank line
                    pass

    def read(self, size=-1):
        parts = []
        while size is None or size < 0 or size > 0:
            self._next_chunk()
            if self.done:
                break
            want = self.left if size is None or size < 0 else min(size, self.left)
            data = self.stream.read(want)
            if not data:
                raise BadChunkedBody('connection closed before the body ended')
            parts.append(data)
            self.left -= len(data)
            if size is not None and size >= 0:
                size -= len(data)
            if self.left == 0 and self.stream.read(2) != b'\r\n':
                raise BadChunkedBody('malformed chunk terminator')
        return b''.join(parts)

    def readline(self, size=-1):
        line = []
        while size is None or size < 0 or len(line) < size:
            char = self.read(1)
            if not char:
                break
            line.append(char)
            if char == b'\n':
                break
        return b''.join(line)

    def readlines(self, hint=-1):
        return list(iter(self.readline, b''))

    def __iter__(self):
        return iter(self.readline, b'')

    def drain(self, limit):
        """Skip what the application left unread; False if more than ``limit``."""
        skipped = 0
        try:
            while skipped <= limit:
                data = self.read(65536)
                if not data:
                    return True
                skipped += len(data)
        except BadChunkedBody:
            pass
        return False


def _bodiless(status, method):
    code = status.split(' ', 1)[0]
    return method == 'HEAD' or code in ('204', '304') or code.startswith('1')


def _short_body(handler, method):
    declared = handler.headers.get('Content-Length') if handler.headers else None
    if declared is None or not handler.status or _bodiless(handler.status, method):
        return False
    try:
        return handler.bytes_sent != int(declared)
    except ValueError:
        return True


class _ServerHandler(simple_server.ServerHandler):
    """wsgiref's handler speaking HTTP/1.1; says when the connection will close."""

    http_version = '1.1'

    def close(self):
        # Checked before wsgiref forgets the headers and the count.
        if _short_body(self, self.request_handler.command):
            # A body cut short (the application failed, or a file shrank):
            # the client waits for the rest unless the connection closes.
            self.request_handler.close_connection = True
        super().close()

    def cleanup_headers(self):
        super().cleanup_headers()
        conn = self.request_handler
        if ('Content-Length' not in self.headers
                and not _bodiless(self.status, self.environ['REQUEST_METHOD'])):
            # No length and no chunking: the end of the body is the close.
            conn.close_connection = True
        if conn.server.draining:
            conn.close_connection = True
        if conn.close_connection:
            self.headers['Connection'] = 'close'


class RequestHandler(simple_server.WSGIRequestHandler):
    """Serves requests on one connection until either side closes it."""

    protocol_version = 'HTTP/1.1'
    # TCP_NODELAY: the status line and headers, then the body, go out as
    # separate writes; with Nagle's algorithm the body waits for the client's
    # delayed ACK (40 ms on Linux) on every request of a kept-alive connection.
    disable_nagle_algorithm = True
    # A response (status line, headers and a body up to this size) goes out
    # in one send when the request is done, not one per header block and
    # body chunk: each send gives up the interpreter, and under load (a
    # compute thread busy in the same process) every one of them waited to
    # get it back before the client saw the end of the response.
    wbufsize = 64 * 1024

    def setup(self):
        # Seconds a connection may sit idle, or stall mid-request, before it
        # is dropped ([wsgi] client_socket_timeout); None waits forever.
        self.timeout = self.server.client_socket_timeout or None
        super().setup()

    def log_message(self, format, *args):
        LOG.debug('%s - %s', self.address_string(), format % args)

    def handle(self):
        # A client that hangs up mid-request is routine (aborted uploads);
        # it must not print a traceback or kill the worker thread noisily.
        self.close_connection = True
        try:
            self._handle_one()
            self.wfile.flush()
            while not self.close_connection and not self.server.draining:
                self._handle_one()
                self.wfile.flush()
        except (ConnectionError, TimeoutError) as exc:
            LOG.debug('client %s went away: %s', self.address_string(), exc)

    def _handle_one(self):
        self.server._set_idle(self.connection, True)
        try:
            self.raw_requestline = self.rfile.readline(_MAX_REQUEST_LINE + 1)
        except OSError:
            self.raw_requestline = b''
        finally:
            self.server._set_idle(self.connection, False)
        self.close_connection = True
        if len(self.raw_requestline) > _MAX_REQUEST_LINE:
            self.requestline = self.request_version = self.command = ''
            self.send_error(414)
            return
        if not self.raw_requestline or not self.parse_request():
            return
        if not self.server.keep_alive:
            self.close_connection = True
        chunked = 'chunked' in self.headers.get('Transfer-Encoding', '').lower()
        try:
            length = int(self.headers.get('Content-Length') or 0)
            if length < 0:
                raise ValueError(length)
        except ValueError:
            self.send_error(400, 'Invalid Content-Length')
            return
        environ = self.get_environ()
        if chunked:
            # Decoded here, as gunicorn does: the application reads a plain
            # body to its end (wsgi.input_terminated) without a length.
            stream = _ChunkedInput(self.rfile)
            environ['wsgi.input_terminated'] = True
            environ.pop('CONTENT_LENGTH', None)
        else:
            stream = _Input(self.rfile, length)
        handler = _ServerHandler(stream, self.wfile, self.get_stderr(), environ,
                                 multithread=True)
        handler.request_handler = self
        handler.run(self.server.get_app())
        if not self.close_connection and not stream.drain(_DRAIN_LIMIT):
            self.close_connection = True


class WSGIServer(simple_server.WSGIServer):
    """One thread per connection, at most ``pool_size`` at once; stops gracefully.

    When every thread is busy the accept loop waits, and new connections
    queue in the listen backlog. ``stop()`` closes the listening socket
    (new connections are refused), closes idle keep-alive connections and
    waits for requests in flight to finish.
    """

    # Restarting a test or the all-in-one must not wait for TIME_WAIT.
    allow_reuse_address = True
    # The default of 5 drops connections when many clients poll at once.
    request_queue_size = 128

    def __init__(self, address, handler_class, pool_size=100, keep_alive=True,
                 client_socket_timeout=900, sock=None):
        self.pool_size = pool_size
        self.keep_alive = keep_alive
        self.client_socket_timeout = client_socket_timeout
        self.draining = False
        self._slots = threading.BoundedSemaphore(pool_size)
        self._lock = threading.Lock()
        self._threads = set()
        self._idle = set()
        self._serving = False
        if sock is None:
            super().__init__(address, handler_class)
            return
        # A socket listening already (a worker process serving its parent's).
        super().__init__(address, handler_class, bind_and_activate=False)
        self.socket.close()
        self.socket = sock
        self.server_address = sock.getsockname()
        self.server_name, self.server_port = self.server_address[:2]
        self.setup_environ()

    def serve_forever(self, poll_interval=0.5):
        self._serving = True
        try:
            super().serve_forever(poll_interval)
        finally:
            self._serving = False

    def process_request(self, request, client_address):
        while not self._slots.acquire(timeout=0.5):
            if self.draining:
                self.shutdown_request(request)
                return
        thread = threading.Thread(target=self._serve_connection,
                                  args=(request, client_address),
                                  name='wsgi-conn-%s' % (client_address[1],), daemon=True)
        with self._lock:
            self._threads.add(thread)
        thread.start()

    def _serve_connection(self, request, client_address):
        try:
            self.finish_request(request, client_address)
        except Exception:  # noqa: BLE001 - one connection must not end the server.
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            self._slots.release()
            with self._lock:
                self._threads.discard(threading.current_thread())

    def _set_idle(self, conn, idle):
        with self._lock:
            if idle and self.draining:
                # Stopping: do not wait for another request on this one.
                _shut_read(conn)
            elif idle:
                self._idle.add(conn)
            else:
                self._idle.discard(conn)

    def handle_error(self, request, client_address):
        LOG.exception('unhandled error serving %s', client_address)

    def in_flight(self):
        with self._lock:
            return len(self._threads)

    def stop(self, timeout=60):
        """Refuse new connections, finish requests in flight; True if all did.

        ``timeout`` seconds at most (0 waits as long as it takes); requests
        still running then are abandoned with the process.
        """
        self.draining = True
        if self._serving:
            self.shutdown()
        self.server_close()
        with self._lock:
            for conn in self._idle:
                _shut_read(conn)
            threads = list(self._threads)
        deadline = time.monotonic() + timeout if timeout else None
        for thread in threads:
            thread.join(None if deadline is None else max(0, deadline - time.monotonic()))
        left = self.in_flight()
        if left:
            LOG.warning('%d connection(s) still busy after %ss; stopping anyway', left,
                        timeout)
        return not left


def _shut_read(conn):
    try:
        conn.shutdown(socket.SHUT_RD)
    except OSError:
        pass


class WSGIServerV6(WSGIServer):
    address_family = socket.AF_INET6


# Old names, kept for callers that know the server by them.
ThreadedWSGIServer = WSGIServer
QuietRequestHandler = RequestHandler


def options(conf):
    """Server keyword arguments from the ``[wsgi]`` options of ``conf``."""
    return {'pool_size': conf.wsgi.default_pool_size, 'keep_alive': conf.wsgi.keep_alive,
            'client_socket_timeout': conf.wsgi.client_socket_timeout}


def make_server(app, host='127.0.0.1', port=0, **kwargs):
    """Bind a WSGIServer for ``app``; port 0 picks a free port.

    ``kwargs`` are WSGIServer's: pool_size, keep_alive, client_socket_timeout,
    and ``sock``, a socket listening already (``host`` and ``port`` then only
    name it).
    """
    server_class = WSGIServerV6 if ':' in host else WSGIServer
    try:
        server = server_class((host, port), RequestHandler, **kwargs)
    except OSError as exc:
        # Name the address: "Address already in use" alone does not say which.
        raise OSError(exc.errno, 'cannot listen on %s:%s: %s'
                      % (host, port, exc.strerror or exc)) from None
    server.set_app(app)
    return server


def server_url(server):
    """The http://host:port base URL a bound server answers on."""
    host, port = server.server_address[:2]
    if ':' in host:
        host = '[%s]' % host
    return 'http://%s:%d' % (host, port)


def serve_in_thread(app, host='127.0.0.1', port=0, poll_interval=0.5, **kwargs):
    """Serve ``app`` from a daemon thread; returns (server, thread, url).

    Stop it with ``server.stop(timeout)`` (graceful) or ``server.shutdown();
    server.server_close()``; either takes up to ``poll_interval`` seconds.
    """
    server = make_server(app, host, port, **kwargs)
    thread = threading.Thread(target=server.serve_forever,
                              kwargs={'poll_interval': poll_interval},
                              name='wsgi-%d' % server.server_address[1],
                              daemon=True)
    thread.start()
    # stop() may come before the thread runs: it must still end the loop.
    server._serving = True
    return server, thread, server_url(server)
