"""The compute service with a real Glance (and Keystone) as its image service.

Needs the Keystone that tools/keystone.sh starts and a Glance 33 that uses
it (http://127.0.0.1:9393 by default, NOVA_TEST_GLANCE_URL otherwise, as
tools/glance.sh starts it); the tests skip when either is missing.
"""

import pytest
import requests

from nova.tests.functional import fixtures, glance, keystone
from nova.tests.functional import keystone_fixture as kf

V = '2.100'


def glance_url():
    return glance.GLANCE_URL


def _keystone_mode():
    # The shared service user of tools/keystone.sh validates tokens.
    extra = {('api', 'auth_strategy'): 'keystone',
             ('keystone_authtoken', 'http_request_max_retries'): 0}
    extra.update(keystone.authtoken_options())
    return extra


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
def ks():
    keystone.require_keystone()
    glance.require_glance()
    made = kf.Keystone()
    try:
        made.pa, made.pb = made.project('pa'), made.project('pb')
        made.users = {'alice': (made.user('alice', made.pa, ['member', 'reader']), made.pa),
                      'bob': (made.user('bob', made.pb, ['member', 'reader']), made.pb)}
        made.issue_tokens = lambda: {name: made.token(user, project)
                                     for name, (user, project) in made.users.items()}
        made.tokens = made.issue_tokens()
        yield made
    finally:
        made.cleanup()


@pytest.fixture(scope='module')
def images(ks, tmp_path_factory):
    alice = Glance(ks.tokens['alice'])
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


def _boots_and_refuses(aio, ks, images):
    alice, bob = ks.tokens['alice'], ks.tokens['bob']
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
            if r['project_id'] == ks.pb['id']] == []
    aio.request('DELETE', '/servers/' + sid, token=alice)
    aio.wait_for_status(sid, ['DELETED'], token=alice)


def test_boot_with_glance_from_endpoint_override(ks, images, tmp_path):
    extra = _keystone_mode()
    extra[('glance', 'endpoint_override')] = glance_url()
    aio = fixtures.RunningAio(tmp_path / 'state', extra=extra)
    try:
        _boots_and_refuses(aio, ks, images)
        # Shared with bob's project and accepted: bob boots from it.
        alice, bob = Glance(ks.tokens['alice']), Glance(ks.tokens['bob'])
        path = '/v2/images/%s/members' % images['shared']
        assert alice.call('POST', path, json={'member': ks.pb['id']}).status_code == 200
        assert bob.call('PUT', '%s/%s' % (path, ks.pb['id']),
                        json={'status': 'accepted'}).status_code == 200
        status, _h, body = _boot(aio, ks.tokens['bob'], images['shared'])
        assert status == 202, body
        sid = body['server']['id']
        aio.wait_for_status(sid, ['ACTIVE'], token=ks.tokens['bob'])
        aio.request('DELETE', '/servers/' + sid, token=ks.tokens['bob'])
        aio.wait_for_status(sid, ['DELETED'], token=ks.tokens['bob'])
    finally:
        aio.stop()


def test_boot_with_glance_from_the_catalog(ks, images, tmp_path):
    region = ks.region('glance-test')
    ks.endpoint('image', glance_url(), region)
    # Tokens issued now carry the region's image endpoint in their catalog.
    ks.tokens = ks.issue_tokens()
    extra = _keystone_mode()
    extra.update({('aio', 'catalog_endpoints'): True,
                  ('glance', 'region_name'): region['id']})
    aio = fixtures.RunningAio(tmp_path / 'state', extra=extra)
    try:
        _boots_and_refuses(aio, ks, images)
    finally:
        aio.stop()
