"""A recording HTTP server speaking just enough compute and image API for the clients.

It advertises a chosen maximum microversion and answers like the service
does at the version asked for, so the tests see exactly what reached the wire.
"""

import http.server
import json
import re
import threading
import uuid

IMAGE_ID = '70a599e0-31e7-49b7-b260-868f441e862b'
FLAVOR = {'id': '1', 'name': 'm1.tiny', 'ram': 512, 'vcpus': 1, 'disk': 1,
          'OS-FLV-EXT-DATA:ephemeral': 0, 'swap': '', 'rxtx_factor': 1.0,
          'os-flavor-access:is_public': True, 'links': []}
IMAGE = {'id': IMAGE_ID, 'name': 'cirros', 'status': 'active', 'disk_format': 'raw',
         'container_format': 'bare', 'visibility': 'public', 'protected': False,
         'tags': [], 'size': 1024, 'min_disk': 0, 'min_ram': 0,
         'hw_disk_bus': 'virtio', 'self': '/v2/images/' + IMAGE_ID,
         'file': '/v2/images/%s/file' % IMAGE_ID, 'schema': '/v2/schemas/image'}


def _version_tuple(text):
    major, minor = text.split('.')
    return int(major), int(minor)


class Recorder:
    """The requests seen and the servers created, shared with the handler."""

    def __init__(self, max_version):
        self.max_version = max_version
        self.requests = []
        self.servers = {}

    def posts(self, suffix):
        return [r for r in self.requests if r['method'] == 'POST' and r['path'].endswith(suffix)]


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    @property
    def rec(self):
        return self.server.recorder

    def _version(self):
        header = self.headers.get('OpenStack-API-Version', '')
        match = re.match(r'compute (\d+\.\d+)', header)
        return match.group(1) if match else '2.1'

    def _send(self, status, body=None):
        data = json.dumps(body).encode() if body is not None else b''
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.send_header('OpenStack-API-Version', 'compute ' + self._version())
        self.send_header('x-openstack-request-id', 'req-' + str(uuid.uuid4()))
        self.end_headers()
        self.wfile.write(data)

    def _record(self):
        length = int(self.headers.get('Content-Length') or 0)
        raw = self.rfile.read(length) if length else b''
        body = json.loads(raw) if raw else None
        self.rec.requests.append({'method': self.command, 'path': self.path, 'body': body,
                                  'version': self._version()})
        return body

    def do_GET(self):
        self._record()
        path = self.path.split('?')[0].rstrip('/')
        base = 'http://%s:%d' % self.server.server_address
        if path in ('/compute/v2.1', ''):
            return self._send(200, {'version': {
                'id': 'v2.1', 'status': 'CURRENT', 'version': self.rec.max_version,
                'min_version': '2.1',
                'links': [{'rel': 'self', 'href': base + '/compute/v2.1/'}]}})
        if path == '/image':
            return self._send(200, {'versions': [{
                'id': 'v2.16', 'status': 'CURRENT',
                'links': [{'rel': 'self', 'href': base + '/image/v2/'}]}]})
        if path.startswith('/image/v2/images'):
            return self._image(path)
        if path.startswith('/compute/v2.1/flavors'):
            if path.endswith('/detail'):
                return self._send(200, {'flavors': [FLAVOR]})
            if path.endswith('/' + FLAVOR['id']):
                return self._send(200, {'flavor': FLAVOR})
            return self._send(404, {'itemNotFound': {'code': 404, 'message': 'no flavor'}})
        if path in ('/compute/v2.1/servers/detail', '/compute/v2.1/servers'):
            return self._send(200, {'servers': [self._view(s) for s in
                                                self.rec.servers.values()]})
        match = re.match(r'/compute/v2\.1/servers/([^/]+)$', path)
        if match and match.group(1) in self.rec.servers:
            return self._send(200, {'server': self._view(self.rec.servers[match.group(1)])})
        return self._send(404, {'itemNotFound': {'code': 404, 'message': 'not found'}})

    def _image(self, path):
        if path.endswith('/' + IMAGE_ID):
            return self._send(200, IMAGE)
        if path == '/image/v2/images':
            if 'name=cirros' in self.path or 'id=in' in self.path:
                return self._send(200, {'images': [IMAGE]})
            return self._send(200, {'images': []})
        return self._send(404, {'message': 'no image'})

    def do_POST(self):
        body = self._record()
        path = self.path.rstrip('/')
        if path == '/compute/v2.1/servers':
            sid = str(uuid.uuid4())
            self.rec.servers[sid] = dict(body['server'], id=sid)
            return self._send(202, {'server': {'id': sid, 'links': [], 'adminPass': 'pw',
                                               'OS-DCF:diskConfig': 'MANUAL',
                                               'security_groups': []}})
        match = re.match(r'/compute/v2\.1/servers/([^/]+)/action$', path)
        if match and match.group(1) in self.rec.servers:
            if 'rescue' in body:
                return self._send(200, {'adminPass': 'rescue-pw'})
            return self._send(202)
        return self._send(404, {'itemNotFound': {'code': 404, 'message': 'not found'}})

    def _view(self, stored):
        """A server body at the requested microversion, like the service's."""
        version = _version_tuple(self._version())
        overrides = stored.get('image_props_override') or {}
        image = {'id': IMAGE_ID, 'links': []}
        if version >= (2, 98):
            image['properties'] = dict({'hw_disk_bus': 'virtio'}, **overrides)
        body = {'id': stored['id'], 'name': stored['name'], 'status': 'ACTIVE',
                'tenant_id': 'p', 'user_id': 'u', 'metadata': {}, 'hostId': '',
                'image': image, 'addresses': {}, 'links': [],
                'flavor': {'vcpus': 1, 'ram': 512, 'disk': 1, 'ephemeral': 0, 'swap': 0,
                           'original_name': 'm1.tiny'},
                'created': '2026-01-01T00:00:00Z', 'updated': '2026-01-01T00:00:00Z',
                'OS-EXT-STS:vm_state': 'active', 'OS-EXT-STS:task_state': None,
                'OS-EXT-STS:power_state': 1, 'os-extended-volumes:volumes_attached': []}
        if version >= (2, 105):
            body['image_props_override'] = overrides
        return body


class StubCloud:
    """Start with ``StubCloud(max_version)``; ``stop()`` when done."""

    def __init__(self, max_version='2.106'):
        self.recorder = Recorder(max_version)
        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
        self.httpd.recorder = self.recorder
        self.base = 'http://127.0.0.1:%d' % self.httpd.server_address[1]
        self.compute_url = self.base + '/compute/v2.1'
        self.image_url = self.base + '/image'
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def add_server(self, name='vm', **fields):
        sid = str(uuid.uuid4())
        self.recorder.servers[sid] = dict(fields, id=sid, name=name)
        return sid

    def env(self):
        """Environment for the openstack CLI against this stub, as a user sets it."""
        return {'OS_AUTH_TYPE': 'none', 'OS_COMPUTE_ENDPOINT_OVERRIDE': self.compute_url,
                'OS_IMAGE_ENDPOINT_OVERRIDE': self.image_url,
                'OS_IDENTITY_ENDPOINT_OVERRIDE': self.image_url,
                'OS_IDENTITY_API_VERSION': '3'}

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
