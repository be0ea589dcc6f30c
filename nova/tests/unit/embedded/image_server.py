"""Test helper: the embedded image endpoint on a real HTTP server, plus raw-socket clients."""

import os
import queue
import socket
import time
import urllib.parse

import requests

from nova import context as nova_context
from nova import wsgi_server
from nova.embedded.image import app


class RequestRecorder:
    """WSGI middleware noting each request's headers once it was handled."""

    def __init__(self, app):
        self.app = app
        self.done = queue.Queue()
        self.headers = []

    def __call__(self, environ, start_response):
        self.headers.append({k: v for k, v in environ.items()
                             if k.startswith('HTTP_')
                             or k in ('CONTENT_TYPE', 'QUERY_STRING')}
                            | {'method': environ['REQUEST_METHOD'],
                               'path': environ['PATH_INFO']})
        try:
            return self.app(environ, start_response)
        finally:
            self.done.put((environ['REQUEST_METHOD'], environ['PATH_INFO']))

    def wait_for(self, method, path_suffix, timeout=10):
        """Block until a request matching method and path was handled."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.done.get(timeout=max(0.01, deadline - time.monotonic()))
            if got[0] == method and got[1].endswith(path_suffix):
                return


def noauth_context(token):
    """The RequestContext the noauth token ``user:project`` stands for."""
    user, _sep, project = token.partition(':')
    roles = ['reader', 'member'] + (['admin'] if user == 'admin' else [])
    return nova_context.RequestContext(
        user_id=user, project_id=project or user, roles=roles,
        is_admin=user == 'admin', auth_token=token, overwrite=False)


class TokenIdentity:
    """Test stand-in for the deployment's auth wrapper: the noauth token
    (or ``default_token`` when none is sent) becomes environ['nova.context'].
    """

    def __init__(self, app, default_token='demo:demo'):
        self.app = app
        self.default_token = default_token

    def __call__(self, environ, start_response):
        token = environ.get('HTTP_X_AUTH_TOKEN') or self.default_token
        if token:
            environ['nova.context'] = noauth_context(token)
        return self.app(environ, start_response)


class ImageServer:
    """The embedded image app served over HTTP on 127.0.0.1."""

    def __init__(self, data_dir, default_token='demo:demo'):
        self.data_dir = data_dir
        self.app = app.make_app(data_dir)
        self.recorder = RequestRecorder(TokenIdentity(self.app,
                                                      default_token))
        self.server, self.thread, self.url = wsgi_server.serve_in_thread(
            self.recorder, poll_interval=0.01)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)

    def data_files(self):
        """Names in the data directory (image files and leftovers)."""
        return sorted(os.listdir(os.path.join(self.data_dir, 'data')))

    def data_path(self, image_id):
        return os.path.join(self.data_dir, 'data', image_id)

    def create(self, token=None, **body):
        body.setdefault('disk_format', 'raw')
        body.setdefault('container_format', 'bare')
        resp = requests.post(self.url + '/v2/images', json=body,
                             headers=_auth(token))
        assert resp.status_code == 201, resp.text
        return resp.json()

    def upload(self, image_id, data, token=None):
        return requests.put(
            '%s/v2/images/%s/file' % (self.url, image_id), data=data,
            headers=dict(_auth(token),
                         **{'Content-Type': 'application/octet-stream'}))

    def show(self, image_id, token=None):
        return requests.get('%s/v2/images/%s' % (self.url, image_id),
                            headers=_auth(token)).json()

    def wait_for_status(self, image_id, status, timeout=10):
        deadline = time.monotonic() + timeout
        while self.show(image_id)['status'] != status:
            assert time.monotonic() < deadline, 'image never became ' + status
            time.sleep(0.01)

    def open_upload(self, image_id, announced, first_part):
        """Start an upload on a raw socket and leave it unfinished."""
        parts = urllib.parse.urlsplit(self.url)
        sock = socket.create_connection((parts.hostname, parts.port))
        head = ('PUT /v2/images/%s/file HTTP/1.1\r\nHost: %s\r\n'
                'Content-Type: application/octet-stream\r\n'
                'Content-Length: %d\r\n\r\n' % (image_id, parts.netloc,
                                                announced))
        sock.sendall(head.encode() + first_part)
        return sock


def _auth(token):
    return {'X-Auth-Token': token} if token else {}


def read_status(sock):
    """The status code of the response waiting on ``sock``."""
    sock.settimeout(10)
    data = b''
    while b'\r\n' not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return int(data.split(b' ', 2)[1])
