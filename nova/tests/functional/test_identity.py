"""One identity decision on every endpoint of the all-in-one (noauth2), and volumes
handled in the server's project whoever acts on the server."""

import time

import pytest

from nova.tests.functional import fixtures

CINDER = {'OpenStack-API-Version': 'volume 3.44'}
SPOOF = {'X-Project-Id': 'demo', 'X-Tenant-Id': 'demo', 'X-Roles': 'admin',
         'X-User-Id': 'admin', 'X-Auth-User': 'admin', 'X-Auth-Project-Id': 'demo',
         'X-Identity-Status': 'Confirmed'}


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('identity')
    c = fixtures.RunningAio(tmp / 'state')
    c.image = c.upload_image(fixtures.tiny_disk(tmp / 'disk.raw'))
    status, _h, body = c.request('POST', '/flavors', {'flavor': {
        'name': 'nano', 'id': 'nano', 'ram': 1, 'vcpus': 1, 'disk': 0}}, token='admin:admin')
    assert status == 200, body
    yield c
    c.stop()


def _volume_call(cloud, method, path, token, body=None, headers=None):
    return cloud.request(method, path, body, url=cloud.aio.urls['volume'], token=token,
                         headers=dict(CINDER, **(headers or {})))


def _wait_volume(cloud, project, vid, status, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        body = _volume_call(cloud, 'GET', '/v3/%s/volumes/%s' % (project, vid),
                            '%s:%s' % (project, project))[2]
        if body['volume']['status'] == status:
            return body['volume']
        if time.monotonic() > deadline:
            raise AssertionError('volume %s not %s: %s' % (vid, status, body))
        time.sleep(0.05)


def _no_token(cloud, method, url, headers=None):
    """Like cloud.request, but without any X-Auth-Token."""
    import urllib.error
    import urllib.request
    req = urllib.request.Request(url, method=method)
    for key, value in (headers or {}).items():
        req.add_header(key, value)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code


def test_every_endpoint_needs_a_token_and_ignores_identity_headers(cloud):
    urls = cloud.aio.urls
    for url in (urls['compute'] + '/servers', urls['image'] + '/v2/images',
                urls['volume'] + '/v3/demo/volumes', urls['volume'] + '/v3/volumes'):
        assert _no_token(cloud, 'GET', url) == 401, url
        assert _no_token(cloud, 'GET', url, SPOOF) == 401, url
    # Version documents stay public.
    assert _no_token(cloud, 'GET', urls['compute']) == 200
    assert _no_token(cloud, 'GET', urls['image'] + '/versions') == 200
    assert _no_token(cloud, 'GET', urls['volume'] + '/v3') == 200
    # With a token, the token's project counts, never the headers'.
    status, _h, body = _volume_call(cloud, 'POST', '/v3/volumes', 'mallory:evil',
                                    {'volume': {'size': 1}}, headers=SPOOF)
    assert status == 202, body
    volume = _wait_volume(cloud, 'evil', body['volume']['id'], 'available')
    assert (volume['user_id'], volume['os-vol-tenant-attr:tenant_id']) == ('mallory', 'evil')
    status, _h, _b = _volume_call(cloud, 'GET', '/v3/demo/volumes', 'mallory:evil',
                                  headers=SPOOF)
    assert status == 400
    status, _h, body = cloud.request('GET', '/servers/detail?all_tenants=1',
                                     token='mallory:evil', headers=SPOOF)
    assert status == 403, body


def test_admin_deleting_a_users_server_frees_the_users_volume(cloud):
    status, _h, body = _volume_call(cloud, 'POST', '/v3/demo/volumes', 'demo:demo',
                                    {'volume': {'size': 1}})
    assert status == 202, body
    vid = _wait_volume(cloud, 'demo', body['volume']['id'], 'available')['id']
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'owned', 'imageRef': cloud.image, 'flavorRef': 'nano', 'networks': 'none',
        'block_device_mapping_v2': [
            {'source_type': 'image', 'uuid': cloud.image, 'destination_type': 'local',
             'boot_index': 0},
            {'source_type': 'volume', 'uuid': vid, 'destination_type': 'volume',
             'boot_index': -1}]}}, version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    assert _wait_volume(cloud, 'demo', vid, 'in-use')['attachments']
    # Another project's member sees nothing; an admin acts on it.
    assert cloud.request('GET', '/servers/' + sid, token='alt:alt')[0] == 404
    assert cloud.request('DELETE', '/servers/' + sid, token='alt:alt')[0] == 404
    assert cloud.request('GET', '/servers/' + sid, token='admin:admin')[0] == 200
    assert cloud.request('DELETE', '/servers/' + sid, token='admin:admin')[0] == 204
    cloud.wait_for_status(sid, ['DELETED'])
    volume = _wait_volume(cloud, 'demo', vid, 'available')
    assert volume['attachments'] == []


def test_the_stand_in_identity_creates_nothing_and_says_where_to_go(cloud):
    identity = cloud.aio.urls['identity']
    for path in ('/v3/projects', '/v3/users', '/v3/roles'):
        status, _h, body = cloud.request('POST', path, {'project': {'name': 'p'}},
                                         url=identity, token='admin:admin')
        assert status == 405, body
        assert 'creates no projects, users or roles' in body['error']['message']
        assert 'Keystone' in body['error']['message']
    # Every project exists as soon as it is named: an administrator sets its quota.
    status, _h, body = cloud.request('PUT', '/os-quota-sets/anyproject',
                                     {'quota_set': {'instances': 7}}, token='admin:admin')
    assert (status, body['quota_set']['instances']) == (200, 7)
