"""The compute service with a real Glance (and Keystone) as its image service.

Needs the Keystone that tools/keystone.sh starts and a Glance 33 that uses
it (http://127.0.0.1:9393 by default, NOVA_TEST_GLANCE_URL otherwise, as
tools/glance.sh starts it); the tests skip when either is missing.
"""

import os
import urllib.request

import pytest
import requests

from nova.tests.functional import fixtures
from nova.tests.functional import keystone_fixture as kf

V = '2.100'


def glance_url():
    return os.environ.get('NOVA_TEST_GLANCE_URL', 'http://127.0.0.1:9393').rstrip('/')


def require_glance():
    try:
        with urllib.request.urlopen(glance_url() + '/versions', timeout=5):
            return
    except Exception as exc:  # noqa: BLE001 - any failure means "not here".
        pytest.skip('no Glance at %s (start one with tools/glance.sh): %s'
                    % (glance_url(), exc))


def _keystone_mode(ks, service_project):
    auth_url = kf.keystone_url()
    group = 'keystone_authtoken'
    return {(group, 'auth_type'): 'password', (group, 'auth_url'): auth_url,
            (group, 'www_authenticate_uri'): auth_url,
            (group, 'username'): ks.name('nova'), (group, 'password'): kf.PASSWORD,
            (group, 'project_name'): service_project.name,
            (group, 'user_domain_name'): 'Default',
            (group, 'project_domain_name'): 'Default',
            ('api', 'auth_strategy'): 'keystone'}


class Glance:
    """Image calls straight to the real Glance with a user's token."""

    def __init__(self, token):
        self.headers = {'X-Auth-Token': token}

    def call(self, method, path, **kwargs):
        headers = dict(self.headers, **kwargs.pop('headers', {}))
        return requests.request(method, glance_url() + path, headers=headers, timeout=60,
                                **kwargs)

    def upload(self, path, **meta):
        meta = dict({'disk_format': 'raw', 'container_format': 'bare'}, **meta)
        resp = self.call('POST', '/v2/images', json=meta)
        assert resp.status_code == 201, resp.text
        image = resp.json()
        with open(path, 'rb') as handle:
            resp = self.call('PUT', '/v2/images/%s/file' % image['id'], data=handle,
                             headers={'Content-Type': 'application/octet-stream'})
        assert resp.status_code == 204, resp.text
        return image['id']


@pytest.fixture(scope='module')
def keystone():
    kf.require_keystone()
    require_glance()
    ks = kf.Keystone()
    try:
        service = ks.project('nova-service')
        ks.user('nova', service, ['admin', 'service'])
        ks.service_project = service
        ks.pa, ks.pb = ks.project('pa'), ks.project('pb')
        ks.tokens = {'alice': ks.token(ks.user('alice', ks.pa, ['member', 'reader']),
                                       ks.pa),
                     'bob': ks.token(ks.user('bob', ks.pb, ['member', 'reader']), ks.pb)}
        yield ks
    finally:
        ks.cleanup()


@pytest.fixture(scope='module')
def images(keystone, tmp_path_factory):
    alice = Glance(keystone.tokens['alice'])
    disk = fixtures.tiny_disk(tmp_path_factory.mktemp('glance') / 'disk.raw')
    ids = {'private': alice.upload(disk, name='alice-private', visibility='private'),
           'shared': alice.upload(disk, name='alice-shared', visibility='shared')}
    yield ids
    for image_id in ids.values():
        alice.call('DELETE', '/v2/images/' + image_id)


def _boot(aio, token, image_id):
    return aio.request('POST', '/servers', {'server': {
        'name': 'g', 'imageRef': image_id, 'flavorRef': '1', 'networks': 'none'}},
        version=V, token=token)


def _boots_and_refuses(aio, keystone, images):
    alice, bob = keystone.tokens['alice'], keystone.tokens['bob']
    # The owner boots: the compute host downloads with her token.
    status, _h, body = _boot(aio, alice, images['private'])
    assert status == 202, body
    sid = body['server']['id']
    server = aio.wait_for_status(sid, ['ACTIVE'], token=alice)
    assert server['image']['id'] == images['private']
    # Another project's private image is "not found", and nothing is made.
    status, _h, body = _boot(aio, bob, images['private'])
    assert status == 400, body
    assert body['badRequest']['message'] == (
        'Image %s could not be found.' % images['private'])
    assert [r for r in aio.db.instance_get_all({})
            if r['project_id'] == keystone.pb.id] == []
    aio.request('DELETE', '/servers/' + sid, token=alice)
    aio.wait_for_status(sid, ['DELETED'], token=alice)


def test_boot_with_glance_from_endpoint_override(keystone, images, tmp_path):
    extra = _keystone_mode(keystone, keystone.service_project)
    extra[('glance', 'endpoint_override')] = glance_url()
    aio = fixtures.RunningAio(tmp_path / 'state', extra=extra)
    try:
        _boots_and_refuses(aio, keystone, images)
        # Shared with bob's project and accepted: bob boots from it.
        alice = Glance(keystone.tokens['alice'])
        bob = Glance(keystone.tokens['bob'])
        path = '/v2/images/%s/members' % images['shared']
        assert alice.call('POST', path, json={'member': keystone.pb.id}).status_code == 200
        assert bob.call('PUT', '%s/%s' % (path, keystone.pb.id),
                        json={'status': 'accepted'}).status_code == 200
        status, _h, body = _boot(aio, keystone.tokens['bob'], images['shared'])
        assert status == 202, body
        sid = body['server']['id']
        aio.wait_for_status(sid, ['ACTIVE'], token=keystone.tokens['bob'])
        aio.request('DELETE', '/servers/' + sid, token=keystone.tokens['bob'])
        aio.wait_for_status(sid, ['DELETED'], token=keystone.tokens['bob'])
    finally:
        aio.stop()


def test_boot_with_glance_from_the_catalog(keystone, images, tmp_path):
    region = keystone.region('glance-test').id
    keystone.endpoint('image', glance_url(), region)
    # Tokens issued now carry the region's image endpoint in their catalog.
    keystone.tokens = {'alice': keystone.token(
        keystone.client.users.find(name=keystone.name('alice')), keystone.pa),
        'bob': keystone.token(keystone.client.users.find(name=keystone.name('bob')),
                              keystone.pb)}
    extra = _keystone_mode(keystone, keystone.service_project)
    extra.update({('aio', 'catalog_endpoints'): True, ('glance', 'region_name'): region})
    aio = fixtures.RunningAio(tmp_path / 'state', extra=extra)
    try:
        _boots_and_refuses(aio, keystone, images)
    finally:
        aio.stop()
