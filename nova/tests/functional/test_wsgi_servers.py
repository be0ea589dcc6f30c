"""The compute API under real uWSGI (the etc/ example ini) and gunicorn, via nova.wsgi."""

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from nova.tests.functional import test_api_server as api_server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
BIN = os.path.dirname(sys.executable)


def _tool(name):
    path = os.path.join(BIN, name)
    if not os.path.exists(path):
        path = shutil.which(name)
    if not path:
        pytest.skip('%s is not installed (test-requirements.txt)' % name)
    return path


def _uwsgi_command(tmp_path, port):
    """The shipped example, only listening on the test's port."""
    with open(os.path.join(ROOT, 'etc', 'nova', 'nova-api-uwsgi.ini')) as handle:
        text = handle.read()
    text, count = re.subn(r'(?m)^http11-socket = .*$',
                          'http11-socket = 127.0.0.1:%d' % port, text)
    assert count == 1
    ini = tmp_path / 'nova-api-uwsgi.ini'
    ini.write_text(text)
    return [_tool('uwsgi'), '--ini', str(ini)]


def _gunicorn_command(tmp_path, port, workers=2):
    return [_tool('gunicorn'), '--bind', '127.0.0.1:%d' % port, '--workers', str(workers),
            '--threads', '4', '--graceful-timeout', '30',
            'nova.wsgi.osapi_compute:application']


def _wait(predicate, timeout):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, 'timed out'
        time.sleep(0.2)


@pytest.fixture(params=['uwsgi', 'gunicorn'])
def served(request, tmp_path):
    command = {'uwsgi': _uwsgi_command, 'gunicorn': _gunicorn_command}[request.param]
    port = api_server.free_port()
    api_server.write_conf(tmp_path, port)
    # Both servers speak systemd's protocol (nova-api-uwsgi.service is Type=notify).
    systemd = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    systemd.bind(str(tmp_path / 'notify.sock'))
    systemd.settimeout(60)
    env = dict(os.environ, PYTHONPATH=ROOT, OS_NOVA_CONFIG_DIR=str(tmp_path),
               NOTIFY_SOCKET=str(tmp_path / 'notify.sock'))
    log = open(tmp_path / 'server.out', 'wb')
    proc = subprocess.Popen(command(tmp_path, port), env=env, cwd=str(tmp_path),
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        api_server.wait_listening(port, proc, timeout=60)
        yield {'proc': proc, 'port': port, 'tmp': tmp_path, 'kind': request.param,
               'systemd': systemd}
    finally:
        api_server.stop(proc)
        log.close()
        systemd.close()


def _systemd_ready(sock):
    while True:
        if b'READY=1' in sock.recv(4096).split(b'\n'):
            return True


def test_compute_api_under_a_wsgi_server(served):
    assert _systemd_ready(served['systemd'])
    conn = http.client.HTTPConnection('127.0.0.1', served['port'], timeout=30)
    resp, body = api_server.get(conn, '/v2.1/flavors/1',
                                {'OpenStack-API-Version': 'compute 2.61'})
    assert resp.status == 200, body
    assert b'"m1.tiny"' in body
    assert resp.getheader('OpenStack-API-Version') == 'compute 2.61'
    assert resp.getheader('x-openstack-request-id').startswith('req-')
    # Keep-alive: the next requests come over the same connection.
    first = conn.sock.getsockname()
    conn.request('GET', '/healthcheck')
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 200
    assert conn.sock is not None and conn.sock.getsockname() == first
    conn.request('GET', '/v2.1/servers')
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 401
    assert conn.sock is not None and conn.sock.getsockname() == first
    conn.close()
    # Configuration came from OS_NOVA_CONFIG_DIR: the access log went to its
    # log_file. The line is written once the response is sent, by whichever
    # worker served it: under load it may come a little after the response.
    api_server._wait_log(served['tmp'] / 'nova-api.log',
                         r'nova\.api\.access .*"GET /v2\.1/flavors/1" status: 200', timeout=30)
    if served['kind'] == 'uwsgi':
        # lazy-apps: each worker loads the application itself; a worker
        # still loading when SIGTERM arrives is only killed after
        # worker-reload-mercy, so wait until both say they are ready.
        _wait(lambda: (served['tmp'] / 'server.out').read_text().count(
            '(default app)') >= 2, 60)
    served['proc'].send_signal(signal.SIGTERM)
    assert served['proc'].wait(timeout=60) == 0


def test_misconfigured_application_fails_to_load(tmp_path):
    (tmp_path / 'nova.conf').write_text(
        '[DEFAULT]\nstate_path = %s\n[api]\nauth_strategy = noauth2\n' % tmp_path)
    env = dict(os.environ, PYTHONPATH=ROOT, OS_NOVA_CONFIG_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, '-c', 'import nova.wsgi.osapi_compute'], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        'nova osapi_compute: error: [DEFAULT] transport_url is not set; a split service '
        'needs a message broker, e.g. rabbit://user:password@host:5672/')
    assert 'Traceback' not in proc.stderr


@pytest.mark.parametrize('kind,status', [('uwsgi', 22), ('gunicorn', 4)])
def test_wsgi_server_exits_when_the_application_cannot_load(tmp_path, kind, status):
    """The documented commands stop, saying why, instead of respawning workers."""
    (tmp_path / 'nova.conf').write_text(
        '[DEFAULT]\nstate_path = %s\n[api]\nauth_strategy = noauth2\n' % tmp_path)
    # One gunicorn worker: when two fail at once, gunicorn 27's arbiter may meet the
    # second failure while halting for the first and exit 1 with its own traceback.
    command = {'uwsgi': _uwsgi_command,
               'gunicorn': lambda path, port: _gunicorn_command(path, port, workers=1)}[kind]
    env = dict(os.environ, PYTHONPATH=ROOT, OS_NOVA_CONFIG_DIR=str(tmp_path))
    proc = subprocess.run(command(tmp_path, api_server.free_port()), env=env,
                          cwd=str(tmp_path), capture_output=True, text=True, timeout=90)
    assert proc.returncode == status, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert 'nova osapi_compute: error: [DEFAULT] transport_url is not set' in out
    assert 'Traceback' not in out


@pytest.mark.parametrize('module', ['image', 'volume'])
def test_embedded_endpoints_under_gunicorn(tmp_path, module):
    port = api_server.free_port()
    api_server.write_conf(tmp_path, port)
    env = dict(os.environ, PYTHONPATH=ROOT, OS_NOVA_CONFIG_DIR=str(tmp_path))
    proc = subprocess.Popen([_tool('gunicorn'), '--bind', '127.0.0.1:%d' % port,
                             'nova.wsgi.%s:application' % module], env=env,
                            cwd=str(tmp_path), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        api_server.wait_listening(port, proc, timeout=60)
        conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
        resp, body = api_server.get(conn, '/v2/images' if module == 'image'
                                    else '/v3/demo/volumes')
        assert resp.status == 200, body
        request_id = resp.getheader('x-openstack-request-id')
        assert request_id.startswith('req-')
        conn.close()
        # The access line names the same request id the client got.
        api_server._wait_log(tmp_path / 'nova-api.log',
                             'status: 200 .*request_id: ' + request_id)
        conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
        conn.request('GET', '/v2/images' if module == 'image' else '/v3/demo/volumes')
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 401
        if module == 'image':
            _chunked_image_upload(port)
    finally:
        api_server.stop(proc)


def _chunked_image_upload(port):
    """gunicorn decodes a chunked body itself: the image holds the bytes sent."""
    import requests
    url = 'http://127.0.0.1:%d/v2/images' % port
    auth = {'X-Auth-Token': 'demo:demo'}
    image = requests.post(url, json={'disk_format': 'raw', 'container_format': 'bare'},
                          headers=auth, timeout=30).json()
    parts = [b'a' * 70000, b'b' * 3, b'c' * 65536]
    resp = requests.put('%s/%s/file' % (url, image['id']), data=iter(parts), timeout=30,
                        headers=dict(auth, **{'Content-Type': 'application/octet-stream'}))
    assert resp.status_code == 204, resp.text
    shown = requests.get('%s/%s' % (url, image['id']), headers=auth, timeout=30).json()
    assert shown['size'] == sum(len(p) for p in parts)


IDENTITY_CONF = ('[api]\ncompute_link_prefix = http://compute.example.org:8774\n'
                 '[glance]\nendpoint_override = http://image.example.org:9292\n'
                 '[cinder]\nendpoint_override = http://volume.example.org:8776\n')


def test_identity_stand_in_under_gunicorn(tmp_path):
    from keystoneauth1 import session
    from keystoneauth1.identity import v3
    port = api_server.free_port()
    api_server.write_conf(tmp_path, port, IDENTITY_CONF)
    env = dict(os.environ, PYTHONPATH=ROOT, OS_NOVA_CONFIG_DIR=str(tmp_path))
    proc = subprocess.Popen([_tool('gunicorn'), '--bind', '127.0.0.1:%d' % port,
                             'nova.wsgi.identity:application'], env=env,
                            cwd=str(tmp_path), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        api_server.wait_listening(port, proc, timeout=60)
        # A real client logs in with a password, as openstackclient would.
        url = 'http://127.0.0.1:%d' % port
        sess = session.Session(auth=v3.Password(
            auth_url=url + '/v3', username='demo', password='any', project_name='demo',
            user_domain_name='Default', project_domain_name='Default'))
        assert sess.get_token() == 'demo:demo'
        assert sess.get_endpoint(service_type='compute', interface='public') == (
            'http://compute.example.org:8774/v2.1')
        assert sess.get_endpoint(service_type='image', interface='public') == (
            'http://image.example.org:9292')
        assert sess.get_endpoint(service_type='block-storage', interface='public') == (
            'http://volume.example.org:8776/v3/demo')
        # Not listed by the operator: the stand-in names itself.
        assert sess.get_endpoint(service_type='identity', interface='public') == url
        conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
        resp, body = api_server.get(conn, '/v3/projects/demo')
        assert resp.status == 200, body
        assert resp.getheader('x-openstack-request-id').startswith('req-')
        conn.close()
        api_server._wait_log(tmp_path / 'nova-api.log',
                             '"GET /v3/projects/demo" status: 200')
    finally:
        api_server.stop(proc)


def test_identity_stand_in_refuses_keystone_deployments(tmp_path):
    (tmp_path / 'nova.conf').write_text(
        '[DEFAULT]\nstate_path = %s\n[api]\nauth_strategy = keystone\n' % tmp_path)
    env = dict(os.environ, PYTHONPATH=ROOT, OS_NOVA_CONFIG_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, '-c', 'import nova.wsgi.identity'], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        'nova identity: error: the identity stand-in serves noauth2 deployments only '
        '([api] auth_strategy = keystone); clients authenticate with Keystone')
    assert 'Traceback' not in proc.stderr
