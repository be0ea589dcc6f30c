"""The metadata API running: signed requests as Neutron's OVN agent sends them, and by address."""

import base64
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from nova import crypto
from nova.api.metadata import requester
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures
from nova.tests.functional import test_api_server as api_server
from nova.tests.unit.metadata import test_network_data as nd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
SECRET = 'the-shared-secret'
USER_DATA = b'#!/bin/sh\necho metadata\n'
NEUTRON_VENV = os.environ.get('NOVA_TEST_NEUTRON_VENV', '/var/lib/nova-compat/neutron-venv')


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('metadata')
    c = fixtures.RunningAio(tmp / 'state', extra={
        ('neutron', 'service_metadata_proxy'): True,
        ('neutron', 'metadata_proxy_shared_secret'): SECRET,
        ('api', 'metadata_cache_expiration'): 0})
    c.tmp = tmp
    c.metadata_url = c.aio.urls['metadata']
    disk = fixtures.tiny_disk(tmp / 'disk.raw')
    c.image = c.upload_image(disk, token='admin:admin', visibility='public')
    _private, public, _fingerprint = crypto.generate_ssh()
    status, _h, body = c.request('POST', '/os-keypairs', {'keypair': {
        'name': 'mdkey', 'public_key': public}}, version='2.2')
    assert status == 201, body
    c.public_key = body['keypair']['public_key']
    yield c
    c.stop()


def boot(cloud, token='demo:demo', network_info=nd.NETWORK_INFO, **extra):
    server = dict(name='md', imageRef=cloud.image, flavorRef='1', networks='none',
                  user_data=base64.b64encode(USER_DATA).decode(), **extra)
    status, _h, body = cloud.request('POST', '/servers', {'server': server}, version='2.37',
                                     token=token)
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'], token=token)
    # What the compute host writes once Neutron has bound the ports.
    cloud.db.instance_update(sid, {'network_info': network_info})
    return cloud.db.instance_get(sid)


@pytest.fixture(scope='module')
def server(cloud):
    return boot(cloud, key_name='mdkey', config_drive=True)


def agent_headers(instance, address='10.77.0.41', secret=SECRET):
    """The header set the OVN metadata agent adds (captured on this machine kind)."""
    return {'X-Forwarded-For': address, 'X-Instance-ID': instance['uuid'],
            'X-Tenant-ID': instance['project_id'],
            'X-Instance-ID-Signature': requester.sign(secret, instance['uuid']),
            # What python-requests, the agent's client, sends besides.
            'User-Agent': 'python-requests/2.32.3', 'Accept-Encoding': 'gzip, deflate',
            'Accept': '*/*', 'Connection': 'keep-alive'}


def call(url, path, headers=None, method='GET', body=None, source=None):
    host, port = url.split('//', 1)[1].rsplit(':', 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30,
                                      source_address=(source, 0) if source else None)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
    finally:
        conn.close()
    ctype = resp.getheader('Content-Type') or ''
    # Every answer names its charset: the agent answers the guest 502 otherwise.
    assert 'charset=UTF-8' in ctype, (path, resp.status, ctype)
    assert resp.getheader('x-openstack-request-id', '').startswith('req-')
    return resp.status, ctype, data


def test_signed_requests_as_the_agent_sends_them(cloud, server):
    hdrs = agent_headers(server)
    status, ctype, data = call(cloud.metadata_url, '/openstack/latest/meta_data.json', hdrs)
    assert status == 200 and ctype == 'application/json; charset=UTF-8'
    meta = json.loads(data)
    assert meta['uuid'] == server['uuid'] and meta['project_id'] == server['project_id']
    assert meta['public_keys'] == {'mdkey': cloud.public_key}
    assert meta['hostname'] == 'md.novalocal'
    assert call(cloud.metadata_url, '/openstack/latest/network_data.json',
                hdrs)[2] == json.dumps(nd.NETWORK_DATA, sort_keys=True).encode()
    assert call(cloud.metadata_url, '/openstack/latest/user_data', hdrs)[2] == USER_DATA
    assert call(cloud.metadata_url, '/latest/user-data', hdrs)[2] == USER_DATA
    assert call(cloud.metadata_url, '/latest/meta-data/public-keys/0/openssh-key',
                hdrs)[2].decode() == cloud.public_key
    assert call(cloud.metadata_url, '/latest/meta-data/local-ipv4', hdrs)[2] == b'10.77.0.41'
    assert call(cloud.metadata_url, '/latest/meta-data/public-ipv4', hdrs)[2] == b'172.24.4.7'
    assert call(cloud.metadata_url, '/latest/meta-data/instance-id', hdrs)[2] == \
        b'i-%08x' % server['id']
    assert call(cloud.metadata_url, '/latest/meta-data/placement/availability-zone',
                hdrs)[2] == b'nova'
    assert call(cloud.metadata_url, '/', hdrs)[2].endswith(b'2009-04-04\nlatest')


def test_forged_and_missing_signatures(cloud, server):
    for forged in (agent_headers(server, secret='not-the-secret'),
                   dict(agent_headers(server), **{'X-Instance-ID-Signature': 'f' * 64})):
        status, _c, data = call(cloud.metadata_url, '/openstack/latest/meta_data.json',
                                forged)
        assert status == 403 and b'Invalid proxy request signature.' in data
        assert server['uuid'].encode() not in data
    for header in ('X-Instance-ID', 'X-Tenant-ID', 'X-Instance-ID-Signature'):
        hdrs = {k: v for k, v in agent_headers(server).items() if k != header}
        status, _c, data = call(cloud.metadata_url, '/latest/meta-data/', hdrs)
        assert status == 400 and header.encode() in data, header
    # No proxy headers at all: the proxy must name the instance.
    assert call(cloud.metadata_url, '/latest/meta-data/')[0] == 400


def test_another_projects_instance_is_404(cloud, server):
    other = boot(cloud, token='other:other')
    # Signed correctly for the other project's instance, but claiming this one's project.
    hdrs = dict(agent_headers(other), **{'X-Tenant-ID': server['project_id']})
    status, _c, data = call(cloud.metadata_url, '/openstack/latest/meta_data.json', hdrs)
    assert status == 404 and other['uuid'].encode() not in data
    assert call(cloud.metadata_url, '/latest/user-data',
                dict(agent_headers(server), **{'X-Tenant-ID': 'other'}))[0] == 404
    # And each project reads its own.
    assert json.loads(call(cloud.metadata_url, '/openstack/latest/meta_data.json',
                           agent_headers(other))[2])['uuid'] == other['uuid']


def _crawl(url, path, hdrs, seen):
    """Every path under ``path`` (an EC2 listing), with its answer."""
    status, _c, data = call(url, path, hdrs)
    assert status == 200, path
    seen[path] = data
    if path.endswith('/'):
        for entry in data.decode().split('\n'):
            if '=' in entry:    # public-keys lists "0=<key name>" for the key's directory
                entry = entry.split('=', 1)[0] + '/'
            _crawl(url, path + entry, hdrs, seen)
    return seen


def test_charset_on_every_response(cloud, server):
    hdrs = agent_headers(server)
    seen = _crawl(cloud.metadata_url, '/latest/meta-data/', hdrs, {})
    assert '/latest/meta-data/public-keys/0/openssh-key' in seen
    assert '/latest/meta-data/block-device-mapping/root' in seen
    for version in call(cloud.metadata_url, '/openstack', hdrs)[2].decode().split('\n'):
        for name in call(cloud.metadata_url, '/openstack/' + version,
                         hdrs)[2].decode().split('\n'):
            assert call(cloud.metadata_url, '/openstack/%s/%s' % (version, name),
                        hdrs)[0] == 200, (version, name)
    for status, path, extra in ((404, '/openstack/latest/nope', {}),
                                (404, '/2099-01-01/meta-data/', {}),
                                (400, '/latest/meta-data/', {'X-Instance-ID': None}),
                                (400, '/latest/meta-data/', {'method': 'PUT'})):
        h = {k: v for k, v in hdrs.items() if k not in extra}
        assert call(cloud.metadata_url, path, h, method=extra.get('method', 'GET'))[0] == \
            status


def test_password_is_posted_once(cloud):
    srv = boot(cloud)
    hdrs = agent_headers(srv)
    url, path = cloud.metadata_url, '/openstack/2013-04-04/password'
    assert call(url, path, hdrs)[2] == b''
    encrypted = base64.b64encode(os.urandom(256))
    assert call(url, path, hdrs, method='POST', body=encrypted)[0] == 200
    assert call(url, path, hdrs)[2] == encrypted
    assert call(url, path, hdrs, method='POST', body=b'again')[0] == 409
    assert call(url, path, hdrs, method='POST', body=b'x' * 1021)[0] == 409
    # The compute API shows it to the server's owner, and clears it.
    status, _h, body = cloud.request('GET', '/servers/%s/os-server-password' % srv['uuid'])
    assert status == 200 and body == {'password': encrypted.decode()}
    assert cloud.request('DELETE', '/servers/%s/os-server-password' % srv['uuid'])[0] == 204
    assert call(url, path, hdrs)[2] == b''
    big = boot(cloud)
    assert call(url, path, agent_headers(big), method='POST', body=b'x' * 1021)[0] == 400


def _drive(cloud, sid):
    return fx.read_iso_files(os.path.join(cloud.conf.instances_path, sid, 'disk.config'))


def _ec2_text(value):
    if isinstance(value, list):
        return '\n'.join(value)
    return str(value)


def test_config_drive_files_equal_the_apis(cloud, server):
    # Rebuild writes the drive again, now from a record with ports.
    status, _h, body = cloud.request('POST', '/servers/%s/action' % server['uuid'],
                                     {'rebuild': {'imageRef': cloud.image}}, version='2.37')
    assert status == 202, body
    cloud.wait_for_status(server['uuid'], ['ACTIVE'])
    drive = _drive(cloud, server['uuid'])
    hdrs = agent_headers(server)
    for version in ('2018-08-27', 'latest'):
        for name in ('network_data.json', 'user_data', 'vendor_data.json',
                     'vendor_data2.json'):
            path = 'openstack/%s/%s' % (version, name)
            assert drive[path] == call(cloud.metadata_url, '/' + path, hdrs)[2], path
        path = 'openstack/%s/meta_data.json' % version
        api = json.loads(call(cloud.metadata_url, '/' + path, hdrs)[2])
        on_drive = json.loads(drive[path])
        # A fresh seed each time; the admin password is for the drive alone.
        for doc in (api, on_drive):
            doc.pop('random_seed')
        assert on_drive.pop('admin_pass')
        assert on_drive == api, path
    assert json.loads(drive['openstack/latest/network_data.json']) == nd.NETWORK_DATA
    # The EC2 copy holds what the EC2 paths answer.
    ec2 = json.loads(drive['ec2/latest/meta-data.json'])
    assert drive['ec2/latest/user-data'] == USER_DATA
    for key, value in ec2.items():
        if isinstance(value, dict):
            for sub, leaf in value.items():
                if isinstance(leaf, dict):    # public-keys/0/openssh-key
                    for name, text in leaf.items():
                        got = call(cloud.metadata_url, '/latest/meta-data/%s/%s/%s'
                                   % (key, sub, name), hdrs)[2]
                        assert got.decode() == text
                    continue
                got = call(cloud.metadata_url, '/latest/meta-data/%s/%s' % (key, sub), hdrs)
                assert got[2].decode() == _ec2_text(leaf), (key, sub)
            continue
        got = call(cloud.metadata_url, '/latest/meta-data/' + key, hdrs)[2]
        assert got.decode() == _ec2_text(value), key


# -- Neutron's OVN metadata agent, its own code --------------------------------

# Runs in Neutron's virtualenv: the agent's request handler (what haproxy
# talks to over the unix socket), with the southbound database lookup
# replaced by the port this test made. Everything after that lookup is
# Neutron's own: the signature, the headers, the call to the metadata API and
# turning its answer into the bytes haproxy hands the guest.
_AGENT = r'''
import socketserver, sys
from oslo_config import cfg
from neutron.agent.ovn.metadata import server_socket
from neutron.conf.agent.metadata import config as meta_conf

sock_path, host, port, secret, address, instance_id, project_id = sys.argv[1:]
conf = cfg.ConfigOpts()
meta_conf.register_meta_conf_opts(meta_conf.SHARED_OPTS, conf)
meta_conf.register_meta_conf_opts(meta_conf.METADATA_PROXY_HANDLER_OPTS, conf)
conf([], project='neutron')
conf.set_override('nova_metadata_host', host)
conf.set_override('nova_metadata_port', int(port))
conf.set_override('metadata_proxy_shared_secret', secret)


class Handler(server_socket.MetadataProxyHandler):
    _conf = conf

    def get_port(self, remote_address, network_id=None, remote_mac=None, router_id=None,
                 skip_cache=False):
        # The Port_Binding's neutron:device_id and neutron:project_id.
        if remote_address == address and network_id == 'net-1':
            return instance_id, project_id
        return None, None


server = socketserver.UnixStreamServer(sock_path, Handler)
print('ready', flush=True)
server.serve_forever()
'''


@pytest.fixture
def agent(cloud, server, tmp_path):
    python = os.path.join(NEUTRON_VENV, 'bin', 'python')
    if not os.path.exists(python):
        pytest.skip('Neutron is not installed at %s (NOVA_TEST_NEUTRON_VENV)' % NEUTRON_VENV)
    host, port = cloud.metadata_url.split('//', 1)[1].rsplit(':', 1)
    sock_path = str(tmp_path / 'metadata_proxy')
    proc = subprocess.Popen([python, '-c', _AGENT, sock_path, host, port, SECRET,
                             '10.77.0.41', server['uuid'], server['project_id']],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if line.strip() != 'ready':
            pytest.fail('the agent did not start: %s' % proc.stderr.read()[-2000:])
        yield sock_path
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def haproxy(sock_path, path, method='GET', body=b'', address='10.77.0.41'):
    """A request as the agent's haproxy forwards it: X-Forwarded-For, X-OVN-Network-ID."""
    head = ('%s %s HTTP/1.1\r\nHost: 169.254.169.254\r\nUser-Agent: curl/7.88.1\r\n'
            'Accept: */*\r\nX-Forwarded-For: %s\r\nX-OVN-Network-ID: net-1\r\n'
            % (method, path, address))
    if body:
        head += 'Content-Length: %d\r\n' % len(body)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(60)
        sock.connect(sock_path)
        sock.sendall(head.encode() + b'\r\n' + body)
        data = b''
        while chunk := sock.recv(65536):
            data += chunk
    # The agent's own answers end their lines with LF only.
    status_line = data.split(b'\n', 1)[0].rstrip(b'\r')
    payload = data.partition(b'\r\n\r\n' if b'\r\n\r\n' in data else b'\n\n')[2]
    return status_line.decode(), payload


def test_the_ovn_agents_own_code_relays_every_answer(cloud, server, agent):
    status, payload = haproxy(agent, '/openstack/latest/meta_data.json')
    assert status == 'HTTP/1.1 200 OK', payload
    assert json.loads(payload)['uuid'] == server['uuid']
    assert haproxy(agent, '/latest/meta-data/public-keys/0/openssh-key') == (
        'HTTP/1.1 200 OK', cloud.public_key.encode())
    assert haproxy(agent, '/openstack/latest/user_data')[1].rstrip(b'\r\n') == \
        USER_DATA.rstrip(b'\n')
    assert haproxy(agent, '/latest/meta-data/local-ipv4') == ('HTTP/1.1 200 OK', b'10.77.0.41')
    assert haproxy(agent, '/openstack/latest/nope')[0] == 'HTTP/1.1 404 Not Found'
    # An address the southbound database does not know: the agent's own 404.
    assert haproxy(agent, '/latest/meta-data/', address='10.77.0.99')[0] == \
        'HTTP/1.1 404 Not Found'


# -- nova-api-metadata and nova-api as processes ----------------------------------

def _service_conf(tmp_path, cloud, port, extra=''):
    conf = tmp_path / 'metadata.conf'
    conf.write_text(
        '[DEFAULT]\nstate_path = %s\nlog_file = %s\nmetadata_listen = 127.0.0.1\n'
        'metadata_listen_port = %d\ngraceful_shutdown_timeout = 5\n%s'
        '[database]\nconnection = %s\n'
        % (tmp_path, tmp_path / 'metadata.log', port, extra, cloud.db.url))
    return conf


def _start(module, conf):
    code = 'import sys; from nova.cmd import %s as m; sys.exit(m.main(sys.argv[1:]))' % module
    return subprocess.Popen([sys.executable, '-c', code, '--config-file', str(conf)],
                            env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _children(pid):
    with open('/proc/%d/task/%d/children' % (pid, pid)) as handle:
        return [int(p) for p in handle.read().split()]


def test_nova_api_metadata_finds_instances_by_address(cloud, tmp_path):
    # 127.0.0.2 is on loopback already (127.0.0.0/8): a guest's fixed IP
    # without an address added anywhere.
    info = json.loads(json.dumps(nd.NETWORK_INFO))
    info[0]['network']['subnets'][0]['ips'][0]['address'] = '127.0.0.2'
    srv = boot(cloud, network_info=info)
    port = api_server.free_port()
    proc = _start('api_metadata', _service_conf(tmp_path, cloud, port,
                                                'metadata_workers = 2\n'))
    try:
        api_server.wait_listening(port, proc)
        url = 'http://127.0.0.1:%d' % port
        assert len(_children(proc.pid)) == 2
        for _ in range(4):     # whichever worker answers
            status, _c, data = call(url, '/latest/meta-data/instance-id', source='127.0.0.2')
            assert (status, data) == (200, b'i-%08x' % srv['id'])
        meta = json.loads(call(url, '/openstack/latest/meta_data.json', source='127.0.0.2')[2])
        assert meta['uuid'] == srv['uuid']
        # An address no instance holds, and one the proxy headers cannot override.
        assert call(url, '/latest/meta-data/', source='127.0.0.3')[0] == 404
        assert call(url, '/latest/meta-data/instance-id', agent_headers(srv),
                    source='127.0.0.3')[0] == 404
        # A worker that dies is replaced.
        first = _children(proc.pid)
        os.kill(first[0], signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            workers = _children(proc.pid)
            if len(workers) == 2 and first[0] not in workers:
                break
            time.sleep(0.2)
        assert len(workers) == 2 and first[0] not in workers, workers
        api_server.wait_listening(port, proc)
        assert call(url, '/latest/meta-data/instance-id', source='127.0.0.2')[0] == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, proc.stderr.read()[-2000:]
        time.sleep(0.2)
        assert not [p for p in workers if os.path.exists('/proc/%d' % p)]
    finally:
        api_server.stop(proc)
    log = (tmp_path / 'metadata.log').read_text()
    assert 'with 2 workers' in log
    # One access line per request, as the compute API logs them.
    assert '"GET /latest/meta-data/instance-id" status: 200' in log


def test_nova_api_serves_only_what_enabled_apis_names(cloud, tmp_path):
    port = api_server.free_port()
    # No broker needed: the compute API is not served.
    proc = _start('api', _service_conf(tmp_path, cloud, port, 'enabled_apis = metadata\n'))
    try:
        api_server.wait_listening(port, proc)
        url = 'http://127.0.0.1:%d' % port
        assert call(url, '/')[2].endswith(b'\nlatest')
        assert call(url, '/v2.1/flavors')[0] == 404
    finally:
        api_server.stop(proc)
    assert 'serving the metadata API on' in (tmp_path / 'metadata.log').read_text()
