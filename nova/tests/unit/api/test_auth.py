"""Authentication strategies: keystonemiddleware in front, noauth2 for the all-in-one."""

import json

import webob
from keystonemiddleware import auth_token

from nova import conf as nova_conf
from nova.api import auth, deploy


class _Compute:
    """Stands in for compute.api.API: these requests never reach it."""


def _app(strategy):
    conf = nova_conf.new_config()
    conf.set_override('auth_strategy', strategy, group='api')
    if strategy == 'keystone':
        # With this set, keystonemiddleware answers 401 itself, without
        # asking an identity service where to send the client.
        for group, opts in auth_token.list_opts():
            conf.register_opts(opts, group=group)
        conf.set_override('www_authenticate_uri', 'http://keystone.invalid/v3',
                          group='keystone_authtoken')
    return deploy.build_app(conf, _Compute(), db=None)


def test_keystone_rejects_requests_without_a_token():
    resp = webob.Request.blank('/v2.1/servers').get_response(_app('keystone'))
    assert resp.status_int == 401
    assert resp.headers.get('x-openstack-request-id', '').startswith('req-')


def test_keystone_leaves_version_documents_public():
    app = _app('keystone')
    for path in ('/', '/v2.1', '/v2.1/'):
        resp = webob.Request.blank(path).get_response(app)
        assert resp.status_int == 200, path
        body = json.loads(resp.body)
        assert 'version' in body or 'versions' in body


def test_keystone_context_from_identity_headers():
    seen = {}

    def inner(environ, start_response):
        seen['ctx'] = environ['nova.context']
        return webob.Response()(environ, start_response)
    req = webob.Request.blank('/v2.1/servers', headers={
        'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u1', 'X-Project-Id': 'p1',
        'X-Roles': 'member,reader'})
    req.get_response(auth.KeystoneContext(inner))
    ctx = seen['ctx']
    assert (ctx.user_id, ctx.project_id) == ('u1', 'p1')
    assert set(ctx.roles) == {'member', 'reader'} and not ctx.is_admin


def test_noauth2_requires_a_token_and_makes_admin_from_admin():
    seen = {}

    def inner(environ, start_response):
        seen['ctx'] = environ['nova.context']
        return webob.Response()(environ, start_response)
    app = auth.NoAuth2(inner)
    assert webob.Request.blank('/v2.1/servers').get_response(app).status_int == 401
    webob.Request.blank('/v2.1/servers',
                        headers={'X-Auth-Token': 'admin:proj'}).get_response(app)
    assert seen['ctx'].is_admin and seen['ctx'].project_id == 'proj'
    webob.Request.blank('/v2.1/servers',
                        headers={'X-Auth-Token': 'notused'}).get_response(app)
    assert not seen['ctx'].is_admin and seen['ctx'].project_id == 'notused'
