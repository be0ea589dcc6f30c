"""The split services in keystone mode: nova-api, nova-conductor and nova-compute as three
processes on RabbitMQ + PostgreSQL, tokens from a real Keystone, images in a real Glance."""

import os
import subprocess
import urllib.error
import urllib.request
import uuid

import pytest

from nova.tests.functional import fixtures, glance, keystone, services
from nova.tests.functional import split_cluster as sc

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]


def _write_conf(path, rabbit_url, db_url, api_port, state):
    authtoken = ''.join('%s = %s\n' % (key, value)
                        for (_g, key), value in keystone.authtoken_options().items())
    path.write_text(
        '[DEFAULT]\ntransport_url = %s\ncontrol_exchange = nova-test-%s\n'
        'host = mpk-compute\nstate_path = %s\napi_listen = 127.0.0.1\n'
        'api_listen_port = %d\nreport_interval = 1\n'
        'metadata_listen = 127.0.0.1\nmetadata_listen_port = 0\n'
        '[database]\nconnection = %s\n'
        '[api]\nauth_strategy = keystone\n'
        '[keystone_authtoken]\n%s'
        # Calls made without a user's token use the service user.
        '[glance]\nendpoint_override = %s\nauth_section = keystone_authtoken\n'
        '[cinder]\nauth_section = keystone_authtoken\n'
        '[libvirt]\nconnection_uri = test:///default\n'
        % (rabbit_url, uuid.uuid4().hex[:8], state, api_port, db_url, authtoken,
           glance.GLANCE_URL))


@pytest.fixture
def cluster(tmp_path):
    services.require(services.PG_URL, 'PostgreSQL')
    keystone.require_keystone()
    glance.require_glance()
    with services.ThrowawayVhost() as vhost:
        yield from _cluster(tmp_path, vhost.url)


def _cluster(tmp_path, rabbit_url):
    admin = keystone.admin_session()
    users = [keystone.make_credentials(admin, prefix='nova-mpk') for _ in range(2)]
    api_port = sc.free_port()
    conf = tmp_path / 'nova.conf'
    procs = []
    with services.ThrowawayDatabase(services.PG_URL) as database:
        _write_conf(conf, rabbit_url, database.url, api_port, tmp_path / 'state')
        manage = [os.path.join(sc.BIN, 'nova-manage'), '--config-file', str(conf)]
        subprocess.run(manage + ['db', 'sync'], check=True, capture_output=True)
        subprocess.run(manage + ['flavor', 'seed'], check=True, capture_output=True)
        try:
            for binary in ('nova-conductor', 'nova-compute', 'nova-api'):
                log = open(tmp_path / ('%s.log' % binary), 'wb')
                procs.append(subprocess.Popen(
                    [os.path.join(sc.BIN, binary), '--config-file', str(conf)],
                    stdout=log, stderr=subprocess.STDOUT))
            yield {'api': 'http://127.0.0.1:%d/v2.1' % api_port, 'tmp': tmp_path,
                   'procs': procs, 'users': users, 'admin': admin}
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
            for creds in users:
                keystone.delete_credentials(admin, creds)


def _terminal(api, sid, token):
    status, body = sc.call('GET', api + '/servers/' + sid, token=token)
    if status == 200 and body['server']['status'] in ('ACTIVE', 'ERROR'):
        return body['server']
    return None


def test_split_services_in_keystone_mode(cluster):
    api = cluster['api']
    owner, other = cluster['users']
    sc.wait(lambda: sc.api_up(api), 30, 'nova-api')
    for proc in cluster['procs']:
        assert proc.poll() is None, 'a service exited early'
    # No token, a made-up token and a noauth-style token are all refused.
    try:
        urllib.request.urlopen(api + '/servers', timeout=10)
        raise AssertionError('an anonymous request was answered')
    except urllib.error.HTTPError as err:
        assert err.code == 401
    for token in ('not-a-token', 'admin:admin'):
        status, _body = sc.call('GET', api + '/servers', token=token)
        assert status == 401, token
    disk = fixtures.tiny_disk(cluster['tmp'] / 'disk.img')
    image = glance.upload_image(owner.session(), disk, name='mpk', visibility='private')

    def created():
        # The compute service may still be registering its node.
        status, body = sc.call('POST', api + '/servers', {'server': {
            'name': 'mpk1', 'imageRef': image['id'], 'flavorRef': '1',
            'networks': 'none'}}, token=owner.token)
        assert status == 202, body
        sid = body['server']['id']
        server = sc.wait(lambda: _terminal(api, sid, owner.token), 60, 'build')
        if server['status'] == 'ERROR':
            sc.call('DELETE', api + '/servers/' + sid, token=owner.token)
            return None
        return server
    server = sc.wait(created, 90, 'an ACTIVE server')
    assert server['tenant_id'] == owner.project_id
    assert server['user_id'] == owner.user_id
    # Another project neither sees the server nor can boot the private image.
    status, _body = sc.call('GET', api + '/servers/' + server['id'], token=other.token)
    assert status == 404
    status, body = sc.call('POST', api + '/servers', {'server': {
        'name': 'stolen', 'imageRef': image['id'], 'flavorRef': '1', 'networks': 'none'}},
        token=other.token)
    assert status == 400, body
    # The Keystone admin role makes an administrator of another project.
    admin_token = cluster['admin'].get_token()
    status, admin_view = sc.call('GET', api + '/servers/' + server['id'], token=admin_token)
    assert status == 200 and admin_view['server']['OS-EXT-SRV-ATTR:host'] == 'mpk-compute'
    assert sc.call('DELETE', api + '/servers/' + server['id'], token=admin_token)[0] == 204
    sc.wait(lambda: sc.call('GET', api + '/servers/' + server['id'],
                              token=owner.token)[0] == 404, 30, 'delete')
