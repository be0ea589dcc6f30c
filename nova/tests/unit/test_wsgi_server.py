"""The threaded HTTP/1.1 server: keep-alive framing, unread bodies, short bodies, graceful stop."""

import http.client
import socket
import threading
import time

import pytest

from nova import wsgi_server


def _app(environ, start_response):
    path = environ['PATH_INFO']
    if path == '/echo':
        body = environ['wsgi.input'].read()
    elif path == '/ignore-body':
        body = b'ignored'
    elif path == '/short':
        start_response('200 OK', [('Content-Length', '100')])
        return [b'only ten b']
    elif path == '/nolength':
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return (chunk for chunk in [b'a', b'b'])
    elif path == '/slow':
        environ['test.started'].set()
        time.sleep(1)
        body = b'slow done'
    else:
        body = path.encode()
    start_response('200 OK', [('Content-Length', str(len(body)))])
    return [body]


@pytest.fixture
def server():
    started = threading.Event()

    def app(environ, start_response):
        environ['test.started'] = started
        return _app(environ, start_response)
    srv, _thread, _url = wsgi_server.serve_in_thread(app, poll_interval=0.05)
    srv.started = started
    yield srv
    srv.stop(5)


def _conn(srv):
    return http.client.HTTPConnection('127.0.0.1', srv.server_address[1], timeout=5)


def _request(conn, method, path, body=None):
    conn.request(method, path, body=body)
    resp = conn.getresponse()
    return resp, resp.read()


def test_keep_alive_reuses_the_connection(server):
    conn = _conn(server)
    _request(conn, 'GET', '/one')
    sock = conn.sock
    resp, body = _request(conn, 'POST', '/echo', b'x' * 5000)
    assert body == b'x' * 5000
    resp, body = _request(conn, 'GET', '/two')
    assert body == b'/two' and conn.sock is sock
    assert resp.getheader('Connection') is None


def test_unread_body_does_not_leak_into_the_next_request(server):
    conn = _conn(server)
    resp, body = _request(conn, 'POST', '/ignore-body', b'GET /evil HTTP/1.1\r\n\r\n')
    assert body == b'ignored'
    sock = conn.sock
    resp, body = _request(conn, 'GET', '/next')
    assert body == b'/next' and conn.sock is sock


def test_short_or_unframed_body_closes_the_connection(server):
    with socket.create_connection(('127.0.0.1', server.server_address[1]), timeout=5) as s:
        s.sendall(b'GET /short HTTP/1.1\r\nHost: x\r\n\r\n')
        data = b''
        while chunk := s.recv(1000):  # ends: the server closes, no hang
            data += chunk
    assert data.endswith(b'only ten b')
    conn = _conn(server)
    resp, body = _request(conn, 'GET', '/nolength')
    assert body == b'ab' and resp.getheader('Connection') == 'close'


def test_stop_finishes_requests_in_flight_and_refuses_new_ones(server):
    port = server.server_address[1]
    idle = _conn(server)
    _request(idle, 'GET', '/idle')
    result = {}

    def slow():
        conn = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
        resp, body = _request(conn, 'GET', '/slow')
        result.update(status=resp.status, body=body,
                      connection=resp.getheader('Connection'))
    client = threading.Thread(target=slow)
    client.start()
    assert server.started.wait(5)
    began = time.monotonic()
    assert server.stop(10) is True
    assert time.monotonic() - began < 5
    client.join(5)
    assert result == {'status': 200, 'body': b'slow done', 'connection': 'close'}
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(('127.0.0.1', port), timeout=1)


def test_pool_size_caps_concurrent_connections():
    srv, _t, _url = wsgi_server.serve_in_thread(_app, poll_interval=0.05, pool_size=1)
    try:
        first = _conn(srv)
        _request(first, 'GET', '/a')
        second = socket.create_connection(('127.0.0.1', srv.server_address[1]), timeout=0.5)
        second.sendall(b'GET /b HTTP/1.1\r\nHost: x\r\n\r\n')
        with pytest.raises(TimeoutError):
            second.recv(100)
        first.close()
        second.settimeout(5)
        assert second.recv(100).startswith(b'HTTP/1.1 200')
        second.close()
    finally:
        srv.stop(5)


def test_keep_alive_off_closes_after_each_response():
    srv, _t, _url = wsgi_server.serve_in_thread(_app, poll_interval=0.05, keep_alive=False)
    try:
        resp, body = _request(_conn(srv), 'GET', '/a')
        assert resp.getheader('Connection') == 'close'
    finally:
        srv.stop(5)


def test_kept_alive_requests_do_not_wait_for_delayed_acks(server):
    # Headers and body are separate writes: with Nagle's algorithm on, each
    # response on a kept-alive connection waited ~40 ms for the client's
    # delayed ACK (20 requests took over 800 ms); with TCP_NODELAY they take
    # a few milliseconds in all.
    conn = _conn(server)
    conn.request('GET', '/warm-up')
    conn.getresponse().read()
    start = time.monotonic()
    for n in range(20):
        conn.request('GET', '/r%d' % n)
        assert conn.getresponse().read() == b'/r%d' % n
    assert time.monotonic() - start < 0.4
    conn.close()


def test_a_response_goes_out_in_one_send(server, monkeypatch):
    # Status line, headers and body: one send on the server's side, for a
    # response with a body and for one without (204), on a kept-alive
    # connection; each send gives up the interpreter to other threads.
    sends = []
    for name in ('send', 'sendall'):
        original = getattr(socket.socket, name)

        def counted(sock, data, *args, _original=original):
            if threading.current_thread() is not threading.main_thread():
                sends.append(bytes(data))
            return _original(sock, data, *args)
        monkeypatch.setattr(socket.socket, name, counted)
    conn = _conn(server)
    for path in ('/one', '/two'):
        del sends[:]
        resp, body = _request(conn, 'GET', path)
        assert body == path.encode() and resp.getheader('Connection') != 'close'
        assert len(sends) == 1 and sends[0].startswith(b'HTTP/1.1 200')
        assert sends[0].endswith(b'\r\n\r\n' + path.encode())
    conn.close()


def test_a_bodiless_response_is_sent_before_the_next_request():
    def app(environ, start_response):
        start_response('204 No Content', [])
        return []
    srv, _thread, _url = wsgi_server.serve_in_thread(app, poll_interval=0.05)
    try:
        conn = _conn(srv)
        for _ in range(2):
            resp, body = _request(conn, 'DELETE', '/x')
            assert resp.status == 204 and body == b''
        conn.close()
    finally:
        srv.stop(5)
