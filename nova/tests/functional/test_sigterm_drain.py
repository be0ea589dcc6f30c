"""SIGTERM on a real nova-aio with a build in flight: the build finishes, then it stops."""

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import urllib.request
import uuid

from nova import conf as nova_conf
from nova import wsgi_server
from nova.api import auth
from nova.cmd import aio
from nova.embedded.image import app as image_app
from nova.tests.functional import fixtures

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


class SlowDownloads:
    """In front of a real image endpoint: image data is sent only once released,
    as from a slow image store."""

    def __init__(self, app):
        self.app = app
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self, environ, start_response):
        if environ['REQUEST_METHOD'] == 'GET' and environ['PATH_INFO'].endswith('/file'):
            self.started.set()
            self.release.wait(120)
        return self.app(environ, start_response)


def _call(method, url, body=None, raw=None, content_type='application/json'):
    """(status, JSON body); the compute API at microversion 2.37 (networks "none")."""
    data = raw if raw is not None else (json.dumps(body).encode() if body else None)
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header('X-Auth-Token', 'demo:demo')
    req.add_header('OpenStack-API-Version', 'compute 2.37')
    if data is not None:
        req.add_header('Content-Type', content_type)
    with urllib.request.urlopen(req, timeout=30) as resp:
        payload = resp.read()
        return resp.status, json.loads(payload) if payload else None


def test_sigterm_lets_a_build_in_flight_finish(tmp_path):
    image_conf = nova_conf.new_config()
    image_conf.set_override('auth_strategy', 'noauth2', group='api')
    slow = SlowDownloads(auth.protect(image_app.make_app(str(tmp_path / 'images')),
                                      image_conf, aio.IMAGE_PUBLIC_PATHS))
    server, _t, image_url = wsgi_server.serve_in_thread(slow)
    systemd = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    systemd.bind(str(tmp_path / 'notify.sock'))
    systemd.settimeout(90)
    proc = None
    try:
        _status, image = _call('POST', image_url + '/v2/images', {
            'name': 'img', 'disk_format': 'raw', 'container_format': 'bare'})
        with open(fixtures.tiny_disk(tmp_path / 'disk.img'), 'rb') as handle:
            _call('PUT', image_url + '/v2/images/%s/file' % image['id'], raw=handle.read(),
                  content_type='application/octet-stream')
        state = tmp_path / 'state'
        conf = tmp_path / 'nova.conf'
        conf.write_text(
            '[DEFAULT]\nstate_path = %s\nlog_file = %s\nmetadata_listen_port = 0\n'
            'instance_name_template = drain-%s-%%08x\n'
            '[aio]\ncompute_port = 0\nimage_port = 0\nvolume_port = 0\n'
            '[vnc]\nnovncproxy_port = 0\n[libvirt]\nconnection_uri = test:///default\n'
            '[glance]\nauth_type = none\nendpoint_override = %s\n'
            % (state, tmp_path / 'nova.log', uuid.uuid4().hex[:8], image_url))
        code = 'import sys; from nova.cmd import aio as m; sys.exit(m.main(sys.argv[1:]))'
        proc = subprocess.Popen([sys.executable, '-c', code, '--config-file', str(conf)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=dict(os.environ, PYTHONPATH=ROOT,
                                         NOTIFY_SOCKET=str(tmp_path / 'notify.sock')),
                                cwd=ROOT)
        for line in proc.stdout:
            if line.strip().startswith('compute:'):
                compute_url = line.split()[1]
                break
        assert b'READY=1' in systemd.recv(4096)
        status, body = _call('POST', compute_url + '/servers', {'server': {
            'name': 'drain', 'imageRef': image['id'], 'flavorRef': '1',
            'networks': 'none'}})
        assert status == 202, body
        server_id = body['server']['id']
        assert slow.started.wait(60), 'the compute service never fetched the image'
        proc.send_signal(signal.SIGTERM)
        assert b'STOPPING=1' in systemd.recv(4096)
        # The build waits for its image; the service waits for the build.
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            pass
        assert proc.poll() is None, 'exited with a build in flight'
        slow.release.set()
        assert proc.wait(timeout=90) == 0
        log = (tmp_path / 'nova.log').read_text()
        host = _host(log)
        stopping = log.index('nova-compute on %s stopping' % host)
        built = log.index('Instance %s built and running' % server_id)
        assert stopping < built < log.index('nova-compute on %s stopped' % host)
        with sqlite3.connect(str(state / 'nova.sqlite')) as db:
            (vm_state,), = db.execute('SELECT vm_state FROM instances WHERE uuid = ?',
                                      (server_id,)).fetchall()
        assert vm_state == 'active'
    finally:
        slow.release.set()
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        server.shutdown()
        systemd.close()


def _host(log):
    marker = 'nova-compute started on '
    return log[log.index(marker) + len(marker):].split()[0]
