"""The compute API in keystone mode against a real Keystone (tools/keystone.sh)."""

import json
import urllib.error
import urllib.request
import uuid

import pytest

from nova.tests.functional import fixtures, keystone


@pytest.fixture(scope='module')
def admin():
    keystone.require_keystone()
    return keystone.admin_session()


@pytest.fixture(scope='module')
def member(admin):
    creds = keystone.make_credentials(admin, roles=('member', 'reader'))
    yield creds
    keystone.delete_credentials(admin, creds)


@pytest.fixture(scope='module')
def aio(tmp_path_factory, admin):
    extra = {('api', 'auth_strategy'): 'keystone'}
    extra.update(keystone.authtoken_options())
    running = fixtures.RunningAio(tmp_path_factory.mktemp('ks-aio'), extra=extra)
    yield running
    running.stop()


def test_credentials_hold_the_requested_roles(admin, member):
    token = admin.get('/auth/tokens', endpoint_filter={'service_type': 'identity'},
                      headers={'X-Subject-Token': member.token}).json()['token']
    assert token['project']['id'] == member.project_id
    assert token['user']['id'] == member.user_id
    assert {role['name'] for role in token['roles']} >= {'member', 'reader'}


def test_registered_endpoints_reach_a_users_catalog(admin, member):
    service_type = 'nova-test-%s' % uuid.uuid4().hex[:8]
    ids = keystone.register_endpoints(admin, service_type, 'http://127.0.0.1:1/x')
    try:
        catalog = member.session().auth.get_access(member.session()).service_catalog
        assert catalog.url_for(service_type=service_type, interface='public') == \
            'http://127.0.0.1:1/x'
    finally:
        keystone.remove_endpoints(admin, ids)
        for service in admin.get('/services?type=' + service_type,
                                 endpoint_filter={'service_type': 'identity'}).json()[
                                     'services']:
            admin.delete('/services/' + service['id'],
                         endpoint_filter={'service_type': 'identity'})


def test_a_keystone_token_lists_servers(aio, member):
    status, _h, body = aio.request('GET', '/servers', token=member.token)
    assert status == 200, body
    assert body == {'servers': []}


@pytest.mark.parametrize('token', [None, 'not-a-token', 'demo:demo'])
def test_missing_or_invalid_token_is_401(aio, token):
    headers = {} if token is None else {'X-Auth-Token': token}
    req = urllib.request.Request(aio.compute_url + '/servers', headers=headers)
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=60)
    assert err.value.code == 401
    assert 'Keystone uri=' in err.value.headers.get('WWW-Authenticate', '')


def test_version_document_needs_no_token(aio):
    with urllib.request.urlopen(aio.compute_url + '/', timeout=30) as resp:
        assert resp.status == 200
        assert json.loads(resp.read())['version']['id'] == 'v2.1'
