"""Authentication: one wrapper (keystonemiddleware or noauth2) in front of every endpoint."""

import json

import pytest
import webob
from keystonemiddleware import auth_token

from nova import conf as nova_conf
from nova.api import auth, deploy

SPOOFED = {'X-Identity-Status': 'Confirmed', 'X-User-Id': 'mallory',
           'X-Project-Id': 'victim', 'X-Tenant-Id': 'victim', 'X-Roles': 'admin',
           'X-Role': 'admin', 'X-Service-Catalog': '[]', 'X-Auth-User': 'admin',
           'X-Auth-Project-Id': 'victim', 'X-Is-Admin-Project': 'True',
           'X-Service-Roles': 'service', 'OpenStack-System-Scope': 'all'}


class _Compute:
    """Stands in for compute.api.API: these requests never reach it."""


def _conf(strategy):
    conf = nova_conf.new_config()
    conf.set_override('auth_strategy', strategy, group='api')
    if strategy == 'keystone':
        # With this set, keystonemiddleware answers 401 itself, without
        # asking an identity service where to send the client.
        for group, opts in auth_token.list_opts():
            conf.register_opts(opts, group=group)
        conf.set_override('www_authenticate_uri', 'http://keystone.invalid/v3',
                          group='keystone_authtoken')
    return conf


def _app(strategy):
    return deploy.build_app(_conf(strategy), _Compute())


class _Seen:
    """An inner WSGI app remembering the context and headers it was given."""

    def __init__(self):
        self.ctx = self.headers = None

    def __call__(self, environ, start_response):
        self.ctx = environ.get('nova.context')
        self.headers = {k: v for k, v in environ.items() if k.startswith('HTTP_')}
        return webob.Response(body=b'ok')(environ, start_response)


def _protected(strategy='noauth2', public=('/',)):
    seen = _Seen()
    return auth.protect(seen, _conf(strategy), public_paths=public), seen


def test_keystone_rejects_requests_without_a_token():
    resp = webob.Request.blank('/v2.1/servers').get_response(_app('keystone'))
    assert resp.status_int == 401
    assert resp.headers['WWW-Authenticate'] == \
        'Keystone uri="http://keystone.invalid/v3"'
    assert resp.headers.get('x-openstack-request-id', '').startswith('req-')


def test_keystone_spoofed_identity_headers_without_token_get_401():
    app, seen = _protected('keystone')
    resp = webob.Request.blank('/v3/p1/volumes', headers=SPOOFED).get_response(app)
    assert resp.status_int == 401 and seen.ctx is None


def test_keystone_leaves_version_documents_public():
    app = _app('keystone')
    for path in ('/', '/v2.1', '/v2.1/'):
        resp = webob.Request.blank(path).get_response(app)
        assert resp.status_int == 200, path
        body = json.loads(resp.body)
        assert 'version' in body or 'versions' in body


def test_keystone_unreachable_is_a_503(tmp_path, unused_port):
    path = tmp_path / 'nova.conf'
    path.write_text(
        '[api]\nauth_strategy = keystone\n'
        '[keystone_authtoken]\nauth_type = password\n'
        'auth_url = http://127.0.0.1:%d/v3\nusername = nova\npassword = x\n'
        'project_name = service\nuser_domain_name = Default\n'
        'project_domain_name = Default\nhttp_request_max_retries = 0\n'
        % unused_port)
    conf = nova_conf.new_config(['--config-file', str(path)])
    seen = _Seen()
    app = auth.protect(seen, conf)
    resp = webob.Request.blank('/v2.1/servers', headers={
        'X-Auth-Token': 'some-token'}).get_response(app)
    assert resp.status_int == 503, resp.body
    assert b'Keystone service is temporarily unavailable' in resp.body
    # No token needs no Keystone to be refused.
    resp = webob.Request.blank('/v2.1/servers').get_response(app)
    assert resp.status_int == 401 and 'WWW-Authenticate' in resp.headers
    assert seen.ctx is None


def test_keystone_context_from_identity_headers():
    seen = _Seen()
    req = webob.Request.blank('/v2.1/servers', headers={
        'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u1', 'X-Project-Id': 'p1',
        'X-Roles': 'member,reader'})
    auth.protect(seen, _conf('noauth2'))  # policy enforcer for this conf
    req.get_response(auth.KeystoneContext(seen))
    assert (seen.ctx.user_id, seen.ctx.project_id) == ('u1', 'p1')
    assert set(seen.ctx.roles) == {'member', 'reader'} and not seen.ctx.is_admin


def test_keystone_admin_role_makes_an_administrator():
    seen = _Seen()
    auth.protect(seen, _conf('noauth2'))
    catalog = [{'type': 'image', 'endpoints': [{'publicURL': 'http://g:9292'}]}]
    req = webob.Request.blank('/v2.1/servers', headers={
        'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u1', 'X-Project-Id': 'p1',
        'X-Roles': 'reader,member,admin', 'X-Service-Catalog': json.dumps(catalog)})
    req.get_response(auth.KeystoneContext(seen))
    assert seen.ctx.is_admin and seen.ctx.service_catalog == catalog
    assert seen.headers['HTTP_X_ROLES'] == 'reader,member,admin'
    assert json.loads(seen.headers['HTTP_X_SERVICE_CATALOG']) == catalog


def test_keystone_context_refuses_unconfirmed_identity():
    seen = _Seen()
    req = webob.Request.blank('/v2.1/servers', headers={
        'X-Identity-Status': 'Invalid', 'X-User-Id': 'u1', 'X-Project-Id': 'p1'})
    assert req.get_response(auth.KeystoneContext(seen)).status_int == 401
    assert seen.ctx is None


def test_noauth2_requires_a_token_and_makes_admin_from_admin():
    app, seen = _protected()
    assert webob.Request.blank('/v2.1/servers').get_response(app).status_int == 401
    webob.Request.blank('/v2.1/servers',
                        headers={'X-Auth-Token': 'admin:proj'}).get_response(app)
    assert seen.ctx.is_admin and seen.ctx.project_id == 'proj'
    assert 'admin' in seen.ctx.roles
    webob.Request.blank('/v2.1/servers',
                        headers={'X-Auth-Token': 'notused'}).get_response(app)
    assert not seen.ctx.is_admin and seen.ctx.project_id == 'notused'
    assert seen.ctx.user_id == 'notused'


def test_noauth2_identity_only_from_the_token():
    app, seen = _protected()
    # Headers alone name nobody.
    resp = webob.Request.blank('/v2.1/servers', headers=SPOOFED).get_response(app)
    assert resp.status_int == 401 and seen.ctx is None
    # With a token, the token wins over every header.
    headers = dict(SPOOFED, **{'X-Auth-Token': 'u1:p1'})
    assert webob.Request.blank('/v2.1/servers',
                               headers=headers).get_response(app).status_int == 200
    ctx = seen.ctx
    assert (ctx.user_id, ctx.project_id, ctx.is_admin) == ('u1', 'p1', False)
    assert sorted(ctx.roles) == ['member', 'reader']


def test_wrapper_sets_identity_headers_from_the_context_only():
    app, seen = _protected()
    headers = dict(SPOOFED, **{'X-Auth-Token': 'u1:p1', 'X-Service-Token': 'svc'})
    webob.Request.blank('/v3/p1/volumes', headers=headers).get_response(app)
    h = seen.headers
    assert (h['HTTP_X_USER_ID'], h['HTTP_X_PROJECT_ID'], h['HTTP_X_TENANT_ID']) == \
        ('u1', 'p1', 'p1')
    assert h['HTTP_X_ROLES'] == 'reader,member'
    assert h['HTTP_X_IDENTITY_STATUS'] == 'Confirmed'
    for spoofed in ('HTTP_X_AUTH_USER', 'HTTP_X_AUTH_PROJECT_ID', 'HTTP_X_SERVICE_CATALOG',
                    'HTTP_X_IS_ADMIN_PROJECT', 'HTTP_X_SERVICE_ROLES',
                    'HTTP_OPENSTACK_SYSTEM_SCOPE'):
        assert spoofed not in h, spoofed
    # The service token is a credential for keystonemiddleware, not a claim.
    assert h['HTTP_X_SERVICE_TOKEN'] == 'svc'


def test_public_paths_pass_without_identity():
    app, seen = _protected(public=('/', '/v3'))
    for path in ('/', '/v3'):
        resp = webob.Request.blank(path, headers=SPOOFED).get_response(app)
        assert resp.status_int == 200
        assert seen.ctx is None
        assert not any(k.startswith(('HTTP_X_USER', 'HTTP_X_PROJECT', 'HTTP_X_ROLE'))
                       for k in seen.headers)
    # Only exact paths are public.
    assert webob.Request.blank('/v3/p1').get_response(app).status_int == 401


@pytest.fixture
def unused_port():
    import socket
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def test_keystone_failing_to_validate_is_a_503_in_the_fault_shape(tmp_path, unused_port):
    # With www_authenticate_uri set keystonemiddleware answers its own 503
    # (webob's text page) when it cannot reach Keystone to validate a token.
    path = tmp_path / 'nova.conf'
    path.write_text(
        '[api]\nauth_strategy = keystone\n'
        '[keystone_authtoken]\nauth_type = password\n'
        'www_authenticate_uri = http://127.0.0.1:%d/v3\n'
        'auth_url = http://127.0.0.1:%d/v3\nusername = nova\npassword = x\n'
        'project_name = service\nuser_domain_name = Default\n'
        'project_domain_name = Default\nhttp_request_max_retries = 0\n'
        % (unused_port, unused_port))
    conf = nova_conf.new_config(['--config-file', str(path)])
    seen = _Seen()
    resp = webob.Request.blank('/v2.1/servers', headers={
        'X-Auth-Token': 'some-token'}).get_response(auth.protect(seen, conf))
    assert resp.status_int == 503, resp.body
    assert json.loads(resp.body) == {'serviceUnavailable': {
        'code': 503, 'message': auth.KEYSTONE_DOWN}}
    assert seen.ctx is None
