"""A split deployment for functional tests: nova-api, -conductor, -compute on RabbitMQ + SQL."""

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid

from nova import conf as nova_conf
from nova import wsgi_server
from nova.api import auth
from nova.cmd import aio
from nova.embedded.image import app as image_app
from nova.tests.functional import services

BIN = os.path.dirname(sys.executable)
BINARIES = ('nova-conductor', 'nova-compute', 'nova-api')


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def call(method, url, body=None, token='demo:demo', version='2.100', timeout=10):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header('X-Auth-Token', token)
    req.add_header('OpenStack-API-Version', 'compute %s' % version)
    if data:
        req.add_header('Content-Type', 'application/json')
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            payload = resp.read()
            return resp.status, json.loads(payload) if payload else None
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b'null')


# Without Keystone: noauth2 tokens, the image endpoint called without one.
NOAUTH = '[api]\nauth_strategy = noauth2\n[glance]\nauth_type = none\n'


def write_conf(path, rabbit_url, db_url, image_url, api_port, state, exchange, extra='',
               auth=NOAUTH):
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
        '%s'
        'endpoint_override = %s\n'
        '[libvirt]\nconnection_uri = test:///default\n'
        '%s'
        % (rabbit_url, exchange, state, api_port,
           # nova-compute holds no database credentials: its file has no [database].
           '[database]\nconnection = %s\n' % db_url if db_url else '', auth, image_url,
           extra))


class Cluster:
    """The three processes of one deployment, each started (again) by name from its file."""

    def __init__(self, tmp_path, api_port, conf, compute_conf, image_url):
        self.tmp = tmp_path
        self.api = 'http://127.0.0.1:%d/v2.1' % api_port
        self.image = image_url
        self.confs = {'nova-compute': compute_conf}
        self.conf = conf
        self.procs = {}
        self.db_url = None

    def start(self, binary):
        log = open(self.tmp / ('%s.log' % binary), 'ab')
        env, stderr = None, subprocess.STDOUT
        if binary == 'nova-compute':
            # Python lists every module it imports on stderr.
            env = dict(os.environ, PYTHONPROFILEIMPORTTIME='1')
            stderr = open(self.tmp / 'nova-compute.imports', 'wb')
        self.procs[binary] = subprocess.Popen(
            [os.path.join(BIN, binary), '--config-file',
             str(self.confs.get(binary, self.conf))], stdout=log, stderr=stderr, env=env)
        return self.procs[binary]

    def kill(self, binary):
        """SIGKILL, as an OOM kill or a power cut would: nothing is drained."""
        proc = self.procs[binary]
        proc.kill()
        proc.wait(timeout=15)

    def stop(self):
        for proc in self.procs.values():
            proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()

    def as_dict(self):
        return {'api': self.api, 'image': self.image, 'tmp': self.tmp,
                'procs': [self.procs[b] for b in BINARIES], 'cluster': self}


@contextlib.contextmanager
def run(tmp_path, rabbit_url, extra='', db_server=None, image_url=None, auth_conf=NOAUTH):
    """Yield a started Cluster on a throwaway PostgreSQL database; ``extra`` ends both files.

    ``db_server`` is the PostgreSQL server to make the database on (the
    shared one by default); ``image_url`` an image service to use instead of
    an embedded one; ``auth_conf`` the [api] and [glance] sections, the
    latter open (the image endpoint follows).
    """
    server = None
    if image_url is None:
        # The image endpoint knows callers only through the auth layer.
        image_conf = nova_conf.new_config()
        image_conf.set_override('auth_strategy', 'noauth2', group='api')
        server, _t, image_url = wsgi_server.serve_in_thread(auth.protect(
            image_app.make_app(str(tmp_path / 'images')), image_conf,
            aio.IMAGE_PUBLIC_PATHS))
    api_port = free_port()
    conf = tmp_path / 'nova.conf'
    compute_conf = tmp_path / 'nova-compute.conf'
    exchange = uuid.uuid4().hex[:8]
    cluster = Cluster(tmp_path, api_port, conf, compute_conf, image_url)
    with services.ThrowawayDatabase(db_server or services.PG_URL) as database:
        cluster.db_url = database.url
        # The conductor knows nova-compute by its key, not by the host it names.
        write_conf(conf, rabbit_url, database.url, image_url, api_port, tmp_path / 'state',
                   exchange, '[conductor]\nhost_keys_dir = %s\n%s'
                   % (tmp_path / 'host-keys', extra), auth_conf)
        write_conf(compute_conf, rabbit_url, None, image_url, api_port, tmp_path / 'state',
                   exchange, '[conductor]\nhost_key_file = %s\n%s'
                   % (tmp_path / 'compute.key', extra), auth_conf)
        manage = [os.path.join(BIN, 'nova-manage'), '--config-file', str(conf)]
        subprocess.run(manage + ['db', 'sync'], check=True, capture_output=True)
        subprocess.run(manage + ['flavor', 'seed'], check=True, capture_output=True)
        subprocess.run(manage + ['conductor', 'host-key', 'create', 'mp-compute',
                                 '--key-file', str(tmp_path / 'compute.key')],
                       check=True, capture_output=True)
        try:
            for binary in BINARIES:
                cluster.start(binary)
            yield cluster
        finally:
            cluster.stop()
            if server is not None:
                server.shutdown()


def wait(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(0.2)
    raise AssertionError('timed out waiting for %s' % what)


def api_up(api):
    try:
        return call('GET', api + '/')[0] == 200
    except OSError:
        return False


def terminal(api, sid):
    status, body = call('GET', api + '/servers/' + sid)
    if status == 200 and body['server']['status'] in ('ACTIVE', 'ERROR'):
        return body['server']
    return None


def upload_image(image_url, disk):
    """A raw image in the deployment's image endpoint; its id."""
    status, image = call('POST', image_url + '/v2/images',
                         {'name': 'img', 'disk_format': 'raw', 'container_format': 'bare'})
    assert status == 201, image
    with open(disk, 'rb') as handle:
        req = urllib.request.Request(image_url + '/v2/images/%s/file' % image['id'],
                                     data=handle.read(), method='PUT')
    req.add_header('Content-Type', 'application/octet-stream')
    req.add_header('X-Auth-Token', 'demo:demo')
    urllib.request.urlopen(req, timeout=10).close()
    return image['id']
