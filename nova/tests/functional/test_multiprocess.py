"""nova-api, nova-conductor and nova-compute as separate processes on RabbitMQ + PostgreSQL."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid

import pytest

from nova import conf as nova_conf
from nova import wsgi_server
from nova.api import auth
from nova.cmd import aio
from nova.embedded.image import app as image_app
from nova.tests.functional import fixtures, services

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]
BIN = os.path.dirname(sys.executable)


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _call(method, url, body=None, token='demo:demo'):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header('X-Auth-Token', token)
    req.add_header('OpenStack-API-Version', 'compute 2.100')
    if data:
        req.add_header('Content-Type', 'application/json')
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            payload = resp.read()
            return resp.status, json.loads(payload) if payload else None
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b'null')


def _write_conf(path, rabbit_url, db_url, image_url, api_port, state, exchange, extra=''):
    path.write_text(
        '[DEFAULT]\n'
        'transport_url = %s\n'
        # Its own virtual host keeps this deployment's queues apart; its own
        # exchange, its messages in the broker's listings.
        'control_exchange = nova-test-%s\n'
        'host = mp-compute\n'
        'state_path = %s\n'
        'api_listen = 127.0.0.1\n'
        'api_listen_port = %d\n'
        'metadata_listen = 127.0.0.1\nmetadata_listen_port = 0\n'
        'report_interval = 1\n'
        '%s'
        '[api]\nauth_strategy = noauth2\n'
        '[glance]\nauth_type = none\nendpoint_override = %s\n'
        '[libvirt]\nconnection_uri = test:///default\n'
        '%s'
        % (rabbit_url, exchange, state, api_port,
           # nova-compute holds no database credentials: its file has no [database].
           '[database]\nconnection = %s\n' % db_url if db_url else '', image_url, extra))


@pytest.fixture
def cluster(tmp_path):
    services.require(services.PG_URL, 'PostgreSQL')
    with services.ThrowawayVhost() as vhost:
        yield from _cluster(tmp_path, vhost.url)


def _cluster(tmp_path, rabbit_url):
    # The image endpoint knows callers only through the auth layer.
    image_conf = nova_conf.new_config()
    image_conf.set_override('auth_strategy', 'noauth2', group='api')
    server, _t, image_url = wsgi_server.serve_in_thread(auth.protect(
        image_app.make_app(str(tmp_path / 'images')), image_conf, aio.IMAGE_PUBLIC_PATHS))
    api_port = _free_port()
    conf = tmp_path / 'nova.conf'
    compute_conf = tmp_path / 'nova-compute.conf'
    procs = []
    exchange = uuid.uuid4().hex[:8]
    with services.ThrowawayDatabase(services.PG_URL) as database:
        # The conductor knows nova-compute by its key, not by the host it names.
        _write_conf(conf, rabbit_url, database.url, image_url, api_port, tmp_path / 'state',
                    exchange, '[conductor]\nhost_keys_dir = %s\n' % (tmp_path / 'host-keys'))
        _write_conf(compute_conf, rabbit_url, None, image_url, api_port, tmp_path / 'state',
                    exchange, '[conductor]\nhost_key_file = %s\n' % (tmp_path / 'compute.key'))
        manage = [os.path.join(BIN, 'nova-manage'), '--config-file', str(conf)]
        subprocess.run(manage + ['db', 'sync'], check=True, capture_output=True)
        subprocess.run(manage + ['flavor', 'seed'], check=True, capture_output=True)
        subprocess.run(manage + ['conductor', 'host-key', 'create', 'mp-compute',
                                 '--key-file', str(tmp_path / 'compute.key')],
                       check=True, capture_output=True)
        try:
            for binary in ('nova-conductor', 'nova-compute', 'nova-api'):
                log = open(tmp_path / ('%s.log' % binary), 'wb')
                env, stderr = None, subprocess.STDOUT
                if binary == 'nova-compute':
                    # Python lists every module it imports on stderr.
                    env = dict(os.environ, PYTHONPROFILEIMPORTTIME='1')
                    stderr = open(tmp_path / 'nova-compute.imports', 'wb')
                procs.append(subprocess.Popen(
                    [os.path.join(BIN, binary), '--config-file',
                     str(compute_conf if binary == 'nova-compute' else conf)],
                    stdout=log, stderr=stderr, env=env))
            yield {'api': 'http://127.0.0.1:%d/v2.1' % api_port, 'image': image_url,
                   'tmp': tmp_path, 'procs': procs}
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
            server.shutdown()


def _wait(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(0.2)
    raise AssertionError('timed out waiting for %s' % what)


def _api_up(api):
    try:
        return _call('GET', api + '/')[0] == 200
    except OSError:
        return False


def test_boot_through_three_processes(cluster):
    api = cluster['api']
    _wait(lambda: _api_up(api), 30, 'nova-api')
    for proc in cluster['procs']:
        assert proc.poll() is None, 'a service exited early'
    disk = fixtures.tiny_disk(cluster['tmp'] / 'disk.img')
    status, image = _call('POST', cluster['image'] + '/v2/images',
                          {'name': 'img', 'disk_format': 'raw', 'container_format': 'bare'})
    assert status == 201
    with open(disk, 'rb') as handle:
        req = urllib.request.Request(cluster['image'] + '/v2/images/%s/file' % image['id'],
                                     data=handle.read(), method='PUT')
    req.add_header('Content-Type', 'application/octet-stream')
    req.add_header('X-Auth-Token', 'demo:demo')
    urllib.request.urlopen(req, timeout=10).close()

    def created():
        # The compute service may still be registering its node.
        status, body = _call('POST', api + '/servers', {'server': {
            'name': 'mp1', 'imageRef': image['id'], 'flavorRef': '1', 'networks': 'none'}})
        assert status == 202, body
        sid = body['server']['id']
        server = _wait(lambda: _terminal(api, sid), 30, 'build')
        if server['status'] == 'ERROR':
            _call('DELETE', api + '/servers/' + sid)
            return None
        return server
    server = _wait(created, 40, 'an ACTIVE server')
    assert server['status'] == 'ACTIVE'
    assert server['OS-EXT-STS:power_state'] == 1
    status, admin_view = _call('GET', api + '/servers/' + server['id'], token='admin:admin')
    assert admin_view['server']['OS-EXT-SRV-ATTR:host'] == 'mp-compute'
    assert _call('DELETE', api + '/servers/' + server['id'])[0] == 204
    _wait(lambda: _call('GET', api + '/servers/' + server['id'])[0] == 404, 30, 'delete')
    _assert_compute_without_database(cluster['tmp'])
    # Every call of nova-compute was signed and accepted; the conductor had keys.
    conductor_log = (cluster['tmp'] / 'nova-conductor.log').read_text()
    assert 'Refused' not in conductor_log, conductor_log
    assert 'Compute host identity is not authenticated' not in conductor_log
    _assert_impersonation_refused(cluster['tmp'])


def _assert_impersonation_refused(tmp):
    """A host with a key of its own, naming mp-compute, is turned away at its first call."""
    manage = [os.path.join(BIN, 'nova-manage'), '--config-file', str(tmp / 'nova.conf')]
    subprocess.run(manage + ['conductor', 'host-key', 'create', 'mp-other',
                             '--key-file', str(tmp / 'other.key')],
                   check=True, capture_output=True)
    intruder = tmp / 'intruder.conf'
    intruder.write_text((tmp / 'nova-compute.conf').read_text().replace(
        str(tmp / 'compute.key'), str(tmp / 'other.key')))
    proc = subprocess.run([os.path.join(BIN, 'nova-compute'), '--config-file', str(intruder)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert ('nova-compute: error: nova-conductor refused this host: The ping call naming '
            'host mp-compute carries a wrong signature.') in proc.stderr
    assert 'Traceback' not in proc.stderr
    assert 'Refused: a call naming host mp-compute (ping) carries a wrong signature' in (
        tmp / 'nova-conductor.log').read_text()


def _assert_compute_without_database(tmp):
    """nova-compute built, ran and deleted a server without loading a database layer."""
    modules = {line.rsplit('|', 1)[1].strip()
               for line in (tmp / 'nova-compute.imports').read_text().splitlines()
               if line.startswith('import time:')}
    assert {'nova.compute.manager', 'nova.compute.conductor_db'} <= modules
    loaded = sorted(m for m in modules if m.split('.')[0] in (
        'sqlalchemy', 'psycopg2', 'pymysql', '_sqlite3', 'sqlite3')
        or m.startswith(('nova.db', 'oslo_db.sqlalchemy', 'nova.conductor.compute_db')))
    assert loaded == []
    # Its default [database] connection (SQLite under state_path) was never opened.
    assert not (tmp / 'state' / 'nova.sqlite').exists()


def _terminal(api, sid):
    status, body = _call('GET', api + '/servers/' + sid)
    if status == 200 and body['server']['status'] in ('ACTIVE', 'ERROR'):
        return body['server']
    return None
