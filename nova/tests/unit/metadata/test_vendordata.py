"""DynamicJSON against a real HTTP service on loopback: what it sends, answers, failures."""

import http.server
import json
import socket
import threading
import types

import pytest

from nova.metadata import vendordata

INSTANCE = types.SimpleNamespace(uuid='u-1', project_id='p-1', image_ref='img-1',
                                 user_data='I2Nsb3VkLWNvbmZpZw==', hostname='web-1',
                                 metadata={'role': 'db'}, system_metadata={})


@pytest.fixture
def service():
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers['Content-Length']))
            seen.append((self.path, dict(self.headers), json.loads(body)))
            if self.path == '/fail':
                self.send_response(500)
                self.end_headers()
                return
            if self.path == '/slow':
                threading.Event().wait(2)
            answer = b'' if self.path == '/empty' else json.dumps({'color': 'blue'}).encode()
            try:
                self.send_response(200)
                self.send_header('Content-Length', str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
            except OSError:
                pass    # the client gave up waiting (the timeout test)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.seen = seen
    server.url = 'http://127.0.0.1:%d' % server.server_address[1]
    yield server
    server.shutdown()
    server.server_close()


def closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def test_posts_upstreams_fields_and_serves_the_answer(service):
    dyn = vendordata.DynamicJSON(['web@%s/vd?x=1' % service.url])
    assert dyn.get(INSTANCE) == {'web': {'color': 'blue'}}
    path, headers, body = service.seen[0]
    assert path == '/vd?x=1'
    assert headers['Content-Type'] == 'application/json'
    assert headers['User-Agent'] == 'openstack-nova-vendordata'
    assert body == {'project-id': 'p-1', 'instance-id': 'u-1', 'image-id': 'img-1',
                    'user-data': 'I2Nsb3VkLWNvbmZpZw==', 'hostname': 'web-1',
                    'metadata': {'role': 'db'}, 'boot-roles': ''}


def test_failures_give_empty_answers_unless_fatal(service):
    targets = ['bad@%s/fail' % service.url, 'empty@%s/empty' % service.url,
               'gone@http://127.0.0.1:%d/' % closed_port(), 'nameless', 'x@ftp://h/',
               'bad@%s/other' % service.url]
    assert vendordata.DynamicJSON(targets).get(INSTANCE) == {
        'bad': {}, 'empty': {}, 'gone': {}, 'x': {}}
    with pytest.raises(vendordata.VendorDataUnavailable):
        vendordata.DynamicJSON(targets[:1], failure_fatal=True).get(INSTANCE)


def test_read_timeout(service):
    dyn = vendordata.DynamicJSON(['slow@%s/slow' % service.url], connect_timeout=3,
                                 read_timeout=0.2)
    assert dyn.get(INSTANCE) == {'slow': {}}


def test_vendor_data2_merges_providers(service, tmp_path):
    path = tmp_path / 'v.json'
    path.write_text('{"ldap": "10.0.0.1"}')
    vd = vendordata.VendorData(('StaticJSON', 'DynamicJSON'), str(path),
                               vendordata.DynamicJSON(['web@%s/' % service.url,
                                                       'static@%s/' % service.url]))
    assert vd.collect(INSTANCE) == ({'ldap': '10.0.0.1'}, {
        'static': {'ldap': '10.0.0.1'}, 'web': {'color': 'blue'}})
