"""DirectTransport keeps connections to the embedded endpoints alive and reuses them."""

import http.client
import os
import socket
import threading
import time

import pytest

from nova import http_pool, service_client, wsgi_server

BIG = b'x' * (1024 * 1024)


class _App:
    """Answers by path; counts the connections it was called on (wsgi_server
    names each connection's thread after the client's port)."""

    def __init__(self):
        self.ports = []
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        with self._lock:
            self.ports.append(threading.current_thread().name)
        path = environ['PATH_INFO']
        headers = []
        body = b'{"path": "%s"}' % path.encode()
        status = '200 OK'
        if path == '/close':
            # No length: the server ends the body by closing (Connection: close).
            start_response(status, [])
            return iter([body])
        if path == '/big':
            body = BIG
        elif path == '/missing':
            status, body = '404 Not Found', b'{"error": "no such thing"}'
        headers.append(('Content-Length', str(len(body))))
        start_response(status, headers)
        return [body]

    def connections(self):
        return len(set(self.ports))


@pytest.fixture(autouse=True)
def _empty_pool():
    http_pool.clear()
    yield
    http_pool.clear()


@pytest.fixture
def app():
    return _App()


@pytest.fixture
def server(app):
    srv, _thread, url = wsgi_server.serve_in_thread(app, poll_interval=0.05)
    srv.url = url
    yield srv
    srv.stop(5)


def _get(url, path, **kwargs):
    return service_client.DirectTransport(url).request(url + path, 'GET', **kwargs)


def test_sequential_requests_share_one_connection(server, app):
    for path in ('/one', '/two', '/three'):
        assert _get(server.url, path).json() == {'path': path}
    assert len(app.ports) == 3
    assert app.connections() == 1


def test_connection_close_from_the_server_is_not_pooled(server, app):
    assert _get(server.url, '/close').json() == {'path': '/close'}
    assert _get(server.url, '/after').json() == {'path': '/after'}
    assert app.connections() == 2


def test_server_restarted_on_the_same_port(app):
    # The server closing the idle connection races with the next request:
    # whether the pool notices it first or the send fails, the call succeeds.
    srv, _t, url = wsgi_server.serve_in_thread(app, poll_interval=0.05)
    port = srv.server_address[1]
    assert _get(url, '/first').status_code == 200
    srv.stop(5)
    srv, _t, _url = wsgi_server.serve_in_thread(app, port=port, poll_interval=0.05)
    try:
        assert _get(url, '/second').json() == {'path': '/second'}
        assert app.connections() == 2
    finally:
        srv.stop(5)


class _DeadSocket:
    """A pooled connection's socket the server closed without the pool seeing it."""

    def __init__(self, error):
        self.error = error

    def sendall(self, data):
        raise self.error

    def close(self):
        pass


@pytest.mark.parametrize('error', [BrokenPipeError(32, 'Broken pipe'),
                                   ConnectionResetError(104, 'reset')])
def test_stale_connection_is_retried_at_once_on_a_new_one(server, app, monkeypatch, error):
    stale = http.client.HTTPConnection('127.0.0.1', server.server_address[1])
    stale.sock = _DeadSocket(error)
    monkeypatch.setattr(http_pool, 'get', lambda key: stale)
    slept = []
    monkeypatch.setattr(service_client.time, 'sleep', slept.append)
    # retries=0: the retry on a new connection is not a connect retry.
    assert _get(server.url, '/again').json() == {'path': '/again'}
    assert slept == []
    assert stale.sock is None


def test_server_closing_as_the_request_goes_out_is_retried(server, app, monkeypatch):
    assert _get(server.url, '/first').status_code == 200
    # The server drops the idle connection just after the pool checked it:
    # the send or the first read fails (RemoteDisconnected, reset).
    monkeypatch.setattr(http_pool, '_sweep', lambda: None)
    # The server thread marks the connection idle just after it answers.
    deadline = time.monotonic() + 5
    while not server._idle and time.monotonic() < deadline:
        time.sleep(0.01)
    with server._lock:
        [server_side] = server._idle
    server_side.shutdown(socket.SHUT_RDWR)
    assert _get(server.url, '/second').json() == {'path': '/second'}
    assert app.ports.count(app.ports[-1]) == 1
    assert app.connections() == 2


def test_a_fresh_connection_failing_keeps_the_connect_retries(monkeypatch):
    slept = []
    monkeypatch.setattr(service_client.time, 'sleep', slept.append)
    transport = service_client.DirectTransport('http://127.0.0.1:9', retries=2)
    with pytest.raises(service_client.RequestFailed):
        transport.request('http://127.0.0.1:9/x', 'GET')
    assert slept == [0.5, 1.0]


def test_partly_read_stream_is_not_reused(server, app):
    resp = _get(server.url, '/big', stream=True)
    chunks = resp.iter_content(65536)
    assert next(chunks) == BIG[:65536]
    resp.close()
    assert http_pool._idle.get(('127.0.0.1', server.server_address[1]), []) == []
    assert _get(server.url, '/next').status_code == 200
    assert app.connections() == 2


def test_fully_read_stream_is_reused(server, app):
    with _get(server.url, '/big', stream=True) as resp:
        assert b''.join(resp.iter_content(65536)) == BIG
    assert _get(server.url, '/next').status_code == 200
    assert app.connections() == 1


def test_error_status_raises_and_the_connection_is_reused(server, app):
    with pytest.raises(service_client.StatusError) as info:
        _get(server.url, '/missing')
    assert info.value.http_status == 404
    assert info.value.response.json() == {'error': 'no such thing'}
    # Closing the response again does not hand the pooled connection out twice.
    info.value.response.close()
    assert len(http_pool._idle[('127.0.0.1', server.server_address[1])]) == 1
    assert _get(server.url, '/next').status_code == 200
    assert app.connections() == 1


def test_idle_connections_per_endpoint_are_bounded(server, app):
    responses = [_get(server.url, '/s%d' % i, stream=True) for i in range(http_pool.MAX_IDLE + 3)]
    for resp in responses:
        resp.content  # noqa: B018 - read to the end, which closes it
    assert len(http_pool._idle[('127.0.0.1', server.server_address[1])]) == http_pool.MAX_IDLE


def test_child_process_does_not_inherit_the_pool(server):
    assert _get(server.url, '/first').status_code == 200
    assert http_pool._idle
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, b'empty' if not http_pool._idle else b'kept')
        os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 10) == b'empty'
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    assert http_pool._idle
