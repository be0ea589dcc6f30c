"""A real nova-api process: keep-alive, thread cap, health check, CORS, request ids, SIGTERM."""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid

import pytest

BIN = os.path.dirname(sys.executable)
ORIGIN = 'http://dashboard.example.org'


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def write_conf(tmp_path, port, extra=''):
    """A nova-api configuration on a fresh SQLite database (schema and flavors)."""
    conf = tmp_path / 'nova.conf'
    conf.write_text(
        '[DEFAULT]\nstate_path = %s\ntransport_url = fake:/\napi_listen = 127.0.0.1\n'
        'api_listen_port = %d\nmetadata_listen = 127.0.0.1\nmetadata_listen_port = 0\n'
        'log_file = %s\ngraceful_shutdown_timeout = 30\n'
        '[database]\nconnection = sqlite:///%s/nova.sqlite\n'
        '[api]\nauth_strategy = noauth2\n'
        '[cors]\nallowed_origin = %s\n%s'
        % (tmp_path, port, tmp_path / 'nova-api.log', tmp_path, ORIGIN, extra))
    manage = [os.path.join(BIN, 'nova-manage'), '--config-file', str(conf)]
    subprocess.run(manage + ['db', 'sync'], check=True, capture_output=True)
    subprocess.run(manage + ['flavor', 'seed'], check=True, capture_output=True)
    return conf


def wait_listening(port, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, 'the server exited early'
        try:
            socket.create_connection(('127.0.0.1', port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError('nothing listens on %d' % port)


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def start_api(tmp_path, extra=''):
    port = free_port()
    conf = write_conf(tmp_path, port, extra)
    proc = subprocess.Popen([os.path.join(BIN, 'nova-api'), '--config-file', str(conf)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_listening(port, proc)
    return proc, port


@pytest.fixture
def api(tmp_path):
    proc, port = start_api(tmp_path)
    yield {'proc': proc, 'port': port, 'log': tmp_path / 'nova-api.log'}
    stop(proc)


def get(conn, path, headers=None):
    conn.request('GET', path, headers=dict({'X-Auth-Token': 'demo:demo'}, **(headers or {})))
    resp = conn.getresponse()
    return resp, resp.read()


def test_keep_alive_two_requests_on_one_connection(api):
    conn = http.client.HTTPConnection('127.0.0.1', api['port'], timeout=10)
    resp, body = get(conn, '/v2.1/flavors')
    assert resp.status == 200 and resp.version == 11
    assert resp.getheader('Connection') is None
    sock = conn.sock
    assert sock is not None, 'the server closed the connection after one request'
    resp, body = get(conn, '/v2.1/flavors/1')
    assert resp.status == 200, body
    # http.client reconnects silently when the server has closed: same socket
    # object means the second request really went over the first connection.
    assert conn.sock is sock
    conn.close()


def test_http10_client_gets_connection_close(api):
    with socket.create_connection(('127.0.0.1', api['port']), timeout=10) as sock:
        sock.sendall(b'GET /healthcheck HTTP/1.0\r\n\r\n')
        data = b''
        while chunk := sock.recv(65536):
            data += chunk
    assert data.startswith(b'HTTP/1.1 200')
    assert b'Connection: close' in data


def test_healthcheck_without_token(api):
    conn = http.client.HTTPConnection('127.0.0.1', api['port'], timeout=10)
    conn.request('GET', '/healthcheck')
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 200
    assert resp.getheader('Content-Type').startswith('text/plain')
    assert resp.getheader('x-openstack-request-id').startswith('req-')
    # Everything else still needs a token.
    conn.request('GET', '/v2.1/flavors')
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 401
    assert resp.getheader('x-openstack-request-id').startswith('req-')


def test_cors_preflight(api):
    conn = http.client.HTTPConnection('127.0.0.1', api['port'], timeout=10)
    conn.request('OPTIONS', '/v2.1/servers', headers={
        'Origin': ORIGIN, 'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'X-Auth-Token, OpenStack-API-Version'})
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 200
    assert resp.getheader('Access-Control-Allow-Origin') == ORIGIN
    assert 'POST' in resp.getheader('Access-Control-Allow-Methods')
    assert 'openstack-api-version' in resp.getheader('Access-Control-Allow-Headers').lower()
    # A real request from that origin may read the microversion and request id.
    resp, _ = get(conn, '/v2.1/flavors', {'Origin': ORIGIN})
    assert resp.getheader('Access-Control-Allow-Origin') == ORIGIN
    exposed = resp.getheader('Access-Control-Expose-Headers').lower()
    assert 'x-openstack-request-id' in exposed and 'openstack-api-version' in exposed
    # Another origin gets no CORS headers at all.
    conn.request('OPTIONS', '/v2.1/servers', headers={
        'Origin': 'http://evil.example.org', 'Access-Control-Request-Method': 'POST'})
    resp = conn.getresponse()
    resp.read()
    assert resp.getheader('Access-Control-Allow-Origin') is None


def _wait_log(path, pattern, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = path.read_text() if path.exists() else ''
        found = [line for line in text.splitlines() if re.search(pattern, line)]
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError('no log line matches %r' % pattern)


def test_request_ids_and_access_log(api):
    conn = http.client.HTTPConnection('127.0.0.1', api['port'], timeout=10)
    global_id = 'req-%s' % uuid.uuid4()
    resp, _ = get(conn, '/v2.1/flavors/detail?limit=2',
                  {'X-OpenStack-Request-ID': global_id})
    assert resp.status == 200
    local_id = resp.getheader('x-openstack-request-id')
    assert local_id.startswith('req-') and local_id != global_id
    line, = _wait_log(api['log'], 'status: 200 .*' + re.escape(local_id))
    assert '"GET /v2.1/flavors/detail?limit=2" status: 200 len: %s time: ' % (
        resp.getheader('Content-Length')) in line
    assert 'global_request_id: %s' % global_id in line
    assert 'nova.api.access' in line
    # Not a valid id: ignored, as upstream (no global id, no injection).
    resp, _ = get(conn, '/v2.1/flavors', {'X-OpenStack-Request-ID': 'bogus'})
    local_id = resp.getheader('x-openstack-request-id')
    line, = _wait_log(api['log'], 'status: 200 .*' + re.escape(local_id))
    assert 'bogus' not in line and 'global_request_id: -' in line
    # Unauthenticated requests get their line too, without the previous
    # request's context left on the keep-alive thread.
    conn.request('GET', '/v2.1/servers')
    resp = conn.getresponse()
    resp.read()
    local_id = resp.getheader('x-openstack-request-id')
    line, = _wait_log(api['log'], 'status: 401 .*' + re.escape(local_id))
    assert global_id not in line


def test_sigterm_finishes_a_slow_request_and_refuses_new_ones(api):
    body = json.dumps({'keypair': {'name': 'slow-key'}}).encode()
    sock = socket.create_connection(('127.0.0.1', api['port']), timeout=30)
    sock.sendall(b'POST /v2.1/os-keypairs HTTP/1.1\r\nHost: x\r\nX-Auth-Token: demo:demo\r\n'
                 b'Content-Type: application/json\r\nContent-Length: %d\r\n\r\n'
                 % len(body) + body[:10])
    time.sleep(0.5)
    # An idle keep-alive connection must not hold the shutdown up.
    idle = http.client.HTTPConnection('127.0.0.1', api['port'], timeout=10)
    get(idle, '/healthcheck')
    api['proc'].send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(('127.0.0.1', api['port']), timeout=1).close()
        except (ConnectionRefusedError, ConnectionResetError):
            # Refused, or reset: a connection still in the listen backlog when
            # the listener closed is reset by the kernel, never served.
            break
        assert time.monotonic() < deadline, 'still accepting new connections'
        time.sleep(0.1)
    assert api['proc'].poll() is None, 'exited with a request in flight'
    sock.sendall(body[10:])
    data = b''
    while chunk := sock.recv(65536):
        data += chunk
    sock.close()
    assert data.startswith(b'HTTP/1.1 200'), data[:200]
    assert b'Connection: close' in data
    assert b'"slow-key"' in data
    assert api['proc'].wait(timeout=30) == 0
    assert b'Traceback' not in api['proc'].stderr.read()


def test_thread_cap_queues_connections(tmp_path):
    proc, port = start_api(tmp_path, '[wsgi]\ndefault_pool_size = 1\n')
    try:
        first = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
        assert get(first, '/healthcheck')[0].status == 200
        # The only thread waits on the first (keep-alive) connection.
        second = socket.create_connection(('127.0.0.1', port), timeout=1)
        second.sendall(b'GET /healthcheck HTTP/1.1\r\nHost: x\r\n\r\n')
        with pytest.raises(TimeoutError):
            second.recv(100)
        first.close()
        second.settimeout(10)
        assert second.recv(100).startswith(b'HTTP/1.1 200')
        second.close()
    finally:
        stop(proc)


def _chunked(conn, path, chunks):
    conn.putrequest('POST', path)
    for name, value in (('X-Auth-Token', 'demo:demo'), ('Content-Type', 'application/json'),
                        ('Transfer-Encoding', 'chunked')):
        conn.putheader(name, value)
    conn.endheaders()
    for chunk in chunks:
        conn.send(b'%x\r\n%s\r\n' % (len(chunk), chunk))
    conn.send(b'0\r\n\r\n')
    resp = conn.getresponse()
    return resp, resp.read()


def test_chunked_request_bodies(api):
    """A body without a length (Transfer-Encoding: chunked) is read, limited and
    leaves the connection usable, as under gunicorn."""
    conn = http.client.HTTPConnection('127.0.0.1', api['port'], timeout=10)
    body = json.dumps({'keypair': {'name': 'chunky'}}).encode()
    resp, data = _chunked(conn, '/v2.1/os-keypairs', [body[:7], body[7:]])
    assert resp.status == 200, data
    assert json.loads(data)['keypair']['name'] == 'chunky'
    sock = conn.sock
    resp, data = get(conn, '/v2.1/os-keypairs/chunky')
    assert resp.status == 200, data
    assert conn.sock is sock
    # Over [oslo_middleware] max_request_body_size (114688 by default): 413.
    big = json.dumps({'keypair': {'name': 'x' * 200000}}).encode()
    resp, data = _chunked(conn, '/v2.1/os-keypairs', [big[i:i + 30000]
                                                      for i in range(0, len(big), 30000)])
    assert resp.status == 413, data
    assert b'overLimit' in data
    conn.close()
    # Broken framing: the request ends there, without a traceback in the log.
    with socket.create_connection(('127.0.0.1', api['port']), timeout=10) as raw:
        raw.sendall(b'POST /v2.1/os-keypairs HTTP/1.1\r\nHost: x\r\nX-Auth-Token: demo:demo\r\n'
                    b'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'
                    b'zz\r\n{}\r\n')
        data = b''
        while chunk := raw.recv(65536):
            data += chunk
    assert data == b'' or data.startswith(b'HTTP/1.1 4'), data
    time.sleep(0.5)
    assert 'Traceback' not in api['log'].read_text()
