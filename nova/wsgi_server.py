"""A small threaded WSGI server (stdlib wsgiref) for embedded endpoints and tests."""

import logging
import socket
import socketserver
import threading
from wsgiref import simple_server

LOG = logging.getLogger(__name__)


class QuietRequestHandler(simple_server.WSGIRequestHandler):
    """Request handler that logs through ``logging`` instead of stderr."""

    # Seconds a socket read or write may stall before the request is
    # abandoned; without it a client that stops sending pins a thread.
    timeout = 300

    def log_message(self, format, *args):
        LOG.debug('%s - %s', self.address_string(), format % args)

    def handle(self):
        # A client that hangs up mid-request is routine (aborted uploads);
        # it must not print a traceback or kill the worker thread noisily.
        try:
            super().handle()
        except (ConnectionError, TimeoutError) as exc:
            LOG.debug('client %s went away: %s', self.address_string(), exc)


class ThreadedWSGIServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    """wsgiref server with one thread per connection."""

    daemon_threads = True
    # Restarting a test or the all-in-one must not wait for TIME_WAIT.
    allow_reuse_address = True
    # The default of 5 drops connections when many clients poll at once.
    request_queue_size = 128

    def handle_error(self, request, client_address):
        LOG.exception('unhandled error serving %s', client_address)


class ThreadedWSGIServerV6(ThreadedWSGIServer):
    address_family = socket.AF_INET6


def make_server(app, host='127.0.0.1', port=0):
    """Bind a ThreadedWSGIServer for ``app``; port 0 picks a free port."""
    server_class = ThreadedWSGIServerV6 if ':' in host else ThreadedWSGIServer
    try:
        return simple_server.make_server(host, port, app,
                                         server_class=server_class,
                                         handler_class=QuietRequestHandler)
    except OSError as exc:
        # Name the address: "Address already in use" alone does not say which.
        raise OSError(exc.errno, 'cannot listen on %s:%s: %s'
                      % (host, port, exc.strerror or exc)) from None


def server_url(server):
    """The http://host:port base URL a bound server answers on."""
    host, port = server.server_address[:2]
    if ':' in host:
        host = '[%s]' % host
    return 'http://%s:%d' % (host, port)


def serve_in_thread(app, host='127.0.0.1', port=0, poll_interval=0.5):
    """Serve ``app`` from a daemon thread; returns (server, thread, url).

    Stop it with ``server.shutdown(); server.server_close()``; shutdown
    takes up to ``poll_interval`` seconds (tests pass a small one).
    """
    server = make_server(app, host, port)
    thread = threading.Thread(target=server.serve_forever,
                              kwargs={'poll_interval': poll_interval},
                              name='wsgi-%d' % server.server_address[1],
                              daemon=True)
    thread.start()
    return server, thread, server_url(server)
