"""The all-in-one in keystone mode against a real Keystone: one auth decision for the
compute, image and volume endpoints, upstream's personas, volumes in the server's project,
image and volume endpoints found in the catalog, and 503 when Keystone is away."""

import socket
import time

import pytest

from nova.tests.functional import fixtures, keystone
from nova.tests.functional import keystone_fixture as kf

CINDER = {'OpenStack-API-Version': 'volume 3.44'}
SPOOF = {'X-Identity-Status': 'Confirmed', 'X-Roles': 'admin,member,reader',
         'X-User-Id': 'mallory', 'X-Project-Id': 'victim', 'X-Tenant-Id': 'victim',
         'X-Auth-User': 'admin', 'X-Auth-Project-Id': 'victim'}


def _keystone_mode(authtoken):
    extra = {('api', 'auth_strategy'): 'keystone',
             ('keystone_authtoken', 'http_request_max_retries'): 0}
    extra.update(authtoken)
    return extra


class Cloud:
    """Keystone users of three projects, and the all-in-one that trusts that Keystone."""

    def __init__(self, tmp):
        self.ks = ks = kf.Keystone()
        self.pa, self.pb, admins = (ks.project('pa'), ks.project('pb'),
                                    ks.project('admins'))
        users = {'alice': (self.pa, ['member']), 'rita': (self.pa, ['reader']),
                 'bob': (self.pb, ['member']), 'boss': (admins, ['admin'])}
        self.users = {name: (ks.user(name, project, roles), project)
                      for name, (project, roles) in users.items()}
        region = ks.region('nova-test')
        # A service user of its own (admin + service roles) validates tokens
        # and makes the volume calls nobody's token covers. Not the shared
        # one: Keystone caches each user's catalog (per process, with the
        # memory cache backend), so an older user may not see this region yet.
        service = ks.project('service')
        nova = ks.user('nova', service, ['admin', 'service'])
        authtoken = keystone.authtoken_options()
        authtoken.update({('keystone_authtoken', 'username'): nova['name'],
                          ('keystone_authtoken', 'project_name'): service['name']})
        extra = _keystone_mode(authtoken)
        # The compute side finds the embedded endpoints in the catalog of
        # this test's own region.
        extra.update({('aio', 'catalog_endpoints'): True,
                      ('glance', 'region_name'): region['id'],
                      ('cinder', 'region_name'): region['id']})
        self.aio = fixtures.RunningAio(tmp, extra=extra)
        ks.endpoint('image', self.aio.image_url, region)
        ks.endpoint('volumev3', self.aio.aio.urls['volume'] + '/v3/%(project_id)s', region)
        # Tokens issued after the endpoints exist carry them in the catalog.
        self.tokens = {name: ks.token(user, project)
                       for name, (user, project) in self.users.items()}

    def stop(self):
        try:
            self.aio.stop()
        finally:
            self.ks.cleanup()

    def compute(self, method, path, who, body=None, **kwargs):
        return self.aio.request(method, path, body, token=self.tokens[who], **kwargs)

    def volume(self, method, path, who, project, body=None):
        return self.aio.request(method, '/v3/%s%s' % (project['id'], path), body,
                                token=self.tokens[who], url=self.aio.aio.urls['volume'],
                                headers=CINDER)

    def wait_volume(self, vid, status, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            body = self.volume('GET', '/volumes/' + vid, 'alice', self.pa)[2]
            if body['volume']['status'] == status:
                return body['volume']
            if time.monotonic() > deadline:
                raise AssertionError('volume %s not %s: %s' % (vid, status, body))
            time.sleep(0.05)


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    keystone.require_keystone()
    c = Cloud(tmp_path_factory.mktemp('keystone') / 'state')
    try:
        c.image = c.aio.upload_image(
            fixtures.tiny_disk(tmp_path_factory.mktemp('img') / 'disk.raw'),
            token=c.tokens['boss'], visibility='public')
        status, _h, body = c.compute('POST', '/flavors', 'boss', {'flavor': {
            'name': 'nano', 'id': 'nano', 'ram': 1, 'vcpus': 1, 'disk': 0}})
        assert status == 200, body
        yield c
    finally:
        c.stop()


def test_anonymous_and_spoofed_requests_get_401_everywhere(cloud):
    urls = cloud.aio.aio.urls
    targets = (urls['compute'] + '/servers', urls['image'] + '/v2/images',
               urls['volume'] + '/v3/%s/volumes' % cloud.pa['id'])
    for url in targets:
        for token in (None, 'not-a-token'):
            headers = dict(SPOOF, **({'X-Auth-Token': token} if token else {}))
            status, resp_headers, _b = _raw('GET', url, headers)
            assert status == 401, (url, token)
            assert resp_headers['WWW-Authenticate'].startswith('Keystone uri=')
    # Version documents stay public.
    for url in (urls['compute'], urls['image'] + '/versions', urls['volume'] + '/v3'):
        assert _raw('GET', url, {})[0] == 200, url


def test_projects_are_isolated_and_personas_hold(cloud):
    status, _h, body = cloud.volume('POST', '/volumes', 'alice', cloud.pa,
                                    {'volume': {'size': 1, 'name': 'a-vol'}})
    assert status == 202, body
    vid = body['volume']['id']
    volume = cloud.wait_volume(vid, 'available')
    assert volume['os-vol-tenant-attr:tenant_id'] == cloud.pa['id']
    assert volume['user_id'] == cloud.users['alice'][0]['id']
    # Another project's member sees neither the volume...
    assert cloud.volume('GET', '/volumes/' + vid, 'bob', cloud.pb)[0] == 404
    assert cloud.volume('GET', '/volumes', 'bob', cloud.pb)[2]['volumes'] == []
    # ... nor can it borrow the owner's project in the URL.
    assert cloud.volume('GET', '/volumes', 'bob', cloud.pa)[0] == 400
    # A reader reads and cannot create.
    assert cloud.compute('GET', '/servers', 'rita')[0] == 200
    status, _h, body = cloud.compute('POST', '/servers', 'rita', _server(cloud))
    assert status == 403, body


def test_boot_with_catalog_endpoints_and_admin_delete_frees_the_volume(cloud):
    status, _h, body = cloud.volume('POST', '/volumes', 'alice', cloud.pa,
                                    {'volume': {'size': 1}})
    assert status == 202, body
    vid = cloud.wait_volume(body['volume']['id'], 'available')['id']
    # The image and volume clients find both endpoints in the user's catalog.
    status, _h, body = cloud.compute('POST', '/servers', 'alice',
                                     _server(cloud, vid), version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    cloud.aio.wait_for_status(sid, ['ACTIVE'], token=cloud.tokens['alice'])
    assert cloud.wait_volume(vid, 'in-use')['attachments'][0]['server_id'] == sid
    assert cloud.compute('GET', '/servers/' + sid, 'bob')[0] == 404
    assert cloud.compute('DELETE', '/servers/' + sid, 'bob')[0] == 404
    # The admin role makes an administrator of any project.
    status, _h, body = cloud.compute('GET', '/servers/detail?all_tenants=1', 'boss')
    assert sid in [s['id'] for s in body['servers']]
    assert cloud.compute('GET', '/servers/' + sid, 'boss')[0] == 200
    assert cloud.compute('DELETE', '/servers/' + sid, 'boss')[0] == 204
    cloud.aio.wait_for_status(sid, ['DELETED'], token=cloud.tokens['alice'])
    assert cloud.wait_volume(vid, 'available')['attachments'] == []


def test_keystone_unreachable_is_503_with_no_side_effect(tmp_path):
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        closed = 'http://127.0.0.1:%d/v3' % sock.getsockname()[1]
    authtoken = keystone.authtoken_options()
    authtoken.update({('keystone_authtoken', 'auth_url'): closed,
                      ('keystone_authtoken', 'www_authenticate_uri'): closed})
    aio = fixtures.RunningAio(tmp_path / 'state', extra=_keystone_mode(authtoken))
    try:
        urls = aio.aio.urls
        for url in (urls['compute'] + '/servers', urls['image'] + '/v2/images',
                    urls['volume'] + '/v3/p1/volumes'):
            status, _h, body = _raw('GET', url, {'X-Auth-Token': 'some-token'})
            assert status == 503, (url, body)
            assert b'Keystone service is temporarily unavailable' in body
        status, _h, _b = aio.request('POST', '/servers', {'server': {
            'name': 'x', 'imageRef': 'i', 'flavorRef': '1'}}, token='some-token')
        assert status == 503
        assert aio.db.instance_get_all({}) == []
    finally:
        aio.stop()


def _server(cloud, volume_id=None):
    server = {'name': 'srv', 'imageRef': cloud.image, 'flavorRef': 'nano',
              'networks': 'none'}
    if volume_id:
        server['block_device_mapping_v2'] = [
            {'source_type': 'image', 'uuid': cloud.image, 'destination_type': 'local',
             'boot_index': 0},
            {'source_type': 'volume', 'uuid': volume_id, 'destination_type': 'volume',
             'boot_index': -1}]
    return {'server': server}


def _raw(method, url, headers):
    """(status, headers, body bytes) of one request with exactly these headers."""
    import urllib.error
    import urllib.request
    req = urllib.request.Request(url, method=method)
    for key, value in headers.items():
        req.add_header(key, value)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()
