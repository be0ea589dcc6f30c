"""oslo.middleware built at start when configured, else on the first request that needs it."""

import io
import json
import subprocess
import sys

import pytest
import webob
from oslo_context import context as oslo_context
from oslo_middleware import healthcheck as oslo_healthcheck
from oslo_middleware import http_proxy_to_wsgi, sizelimit
from oslo_middleware import request_id as oslo_request_id

from nova import conf as nova_conf
from nova.api import deploy, request_id
from nova.conf import opts as conf_opts

ID_HEADERS = ('x-openstack-request-id', 'x-compute-request-id')
SET_ALL = '[oslo_middleware]\n[cors]\n[healthcheck]\n'


class _Compute:
    """Stands in for compute.api.API: these requests never reach it."""


def _conf(tmp_path, text=''):
    path = tmp_path / 'nova.conf'
    path.write_text('[api]\nauth_strategy = noauth2\n' + text)
    return nova_conf.new_config(['--config-file', str(path)])


def test_defaults_are_oslo_middlewares():
    conf_opts.set_defaults()     # nova's defaults hook (the sample generator's)
    assert deploy.DEFAULT_MAX_REQUEST_BODY_SIZE == sizelimit.OPTS[0].default
    assert deploy.DEFAULT_PROXY_HEADERS_PARSING is http_proxy_to_wsgi.OPTS[0].default


def test_a_section_or_environment_variable_counts_as_configured(tmp_path, monkeypatch):
    assert not deploy.group_configured(_conf(tmp_path), 'cors')
    assert deploy.group_configured(_conf(tmp_path, '[cors]\n'), 'cors')
    monkeypatch.setenv('OS_CORS__ALLOWED_ORIGIN', 'http://a.example.org')
    assert deploy.group_configured(_conf(tmp_path), 'cors')


class _OsloComputeRequestId(oslo_request_id.RequestId):
    compat_headers = ['x-compute-request-id']


@pytest.mark.parametrize('inbound', [
    None, 'req-0f8e6c1c-8ed6-4a3e-9a53-7c6a2b1d9e4f', 'req-0f8e6c1c-8ed6-4a3e-9a53-7c6a2b1d9e4f\n',
    'req-NOT-A-UUID', 'x' * 300])
@pytest.mark.parametrize('inner_sets_id', [False, True])
def test_request_id_does_what_oslo_middlewares_does(monkeypatch, inbound, inner_sets_id):
    monkeypatch.setattr(oslo_context, 'generate_request_id', lambda: 'req-fixed')

    def inner(environ, start_response):
        headers = [('Content-Type', 'text/plain')]
        if inner_sets_id:
            headers.append(('x-openstack-request-id', 'req-inner'))
        start_response('200 OK', headers)
        return [json.dumps({k: environ.get(k) for k in (
            'openstack.request_id', 'openstack.global_request_id')}).encode()]

    seen = []
    for middleware in (_OsloComputeRequestId(inner), deploy.ComputeRequestId(inner)):
        req = webob.Request.blank('/')
        if inbound is not None:
            req.headers['X-OpenStack-Request-ID'] = inbound
        resp = req.get_response(middleware)
        seen.append((resp.status, resp.headerlist, resp.body))
    assert seen[0] == seen[1]
    assert isinstance(deploy.ComputeRequestId(inner), request_id.RequestId)


def _requests():
    token = {'X-Auth-Token': 'demo:demo'}
    big = b'{"server": {"name": "' + b'x' * 200000 + b'"}}'
    chunked = webob.Request.blank('/v2.1/servers', method='POST', headers=token)
    chunked.environ.pop('CONTENT_LENGTH', None)
    chunked.environ['HTTP_TRANSFER_ENCODING'] = 'chunked'
    chunked.environ['wsgi.input'] = io.BytesIO(big)
    chunked.environ['wsgi.input_terminated'] = True     # the server decoded the chunks
    preflight = {'Origin': 'http://a.example.org', 'Access-Control-Request-Method': 'GET'}
    return [
        ('GET /', webob.Request.blank('/')),
        ('GET /v2.1 proxied', webob.Request.blank('/v2.1/', headers={
            'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org'})),
        ('HEAD /', webob.Request.blank('/', method='HEAD')),
        ('GET unauthenticated', webob.Request.blank('/v2.1/servers')),
        ('GET with origin', webob.Request.blank('/v2.1/', headers={
            'Origin': 'http://a.example.org'})),
        ('OPTIONS', webob.Request.blank('/v2.1/servers', method='OPTIONS')),
        ('OPTIONS preflight', webob.Request.blank('/v2.1/servers', method='OPTIONS',
                                                  headers=preflight)),
        ('POST declared too long', webob.Request.blank(
            '/v2.1/servers', method='POST', body=big, headers=token)),
        ('POST chunked too long', chunked),
        ('POST small', webob.Request.blank('/v2.1/servers', method='POST',
                                           body=b'{"server": 1}', headers=token)),
        ('GET /healthcheck', webob.Request.blank('/healthcheck')),
        ('HEAD /healthcheck', webob.Request.blank('/healthcheck', method='HEAD')),
    ]


def _answers(app):
    out = {}
    for name, req in _requests():
        resp = req.get_response(app)
        body = resp.body
        for header in ID_HEADERS:
            assert resp.headers.get(header, 'req-').startswith('req-'), name
            if header in resp.headers:
                body = body.replace(resp.headers[header].encode(), b'REQ-ID')
        headers = sorted((k, v) for k, v in resp.headerlist
                         if k.lower() not in ID_HEADERS + ('date',))
        out[name] = (resp.status, headers, body)
    return out


def test_defaults_answer_as_the_middlewares_built_at_start(tmp_path):
    lean = _conf(tmp_path)
    eager = _conf(tmp_path, SET_ALL)
    assert all(deploy.group_configured(eager, g) for g in ('oslo_middleware', 'cors',
                                                              'healthcheck'))
    lean_answers = _answers(deploy.build_app(lean, _Compute()))
    eager_answers = _answers(deploy.build_app(eager, _Compute()))
    assert lean_answers == eager_answers
    assert lean_answers['POST declared too long'][0].startswith('413')
    assert lean_answers['POST chunked too long'][0].startswith('413')
    assert lean_answers['GET /healthcheck'][0] == '200 OK'
    # Without [cors] the OPTIONS answer is CORS's empty 200, not the 405.
    assert lean_answers['OPTIONS'][0] == '200 OK'


def test_configured_options_take_effect(tmp_path, monkeypatch):
    monkeypatch.setenv('OS_OSLO_MIDDLEWARE__ENABLE_PROXY_HEADERS_PARSING', 'true')
    app = deploy.build_app(_conf(tmp_path, '[oslo_middleware]\nmax_request_body_size = 20\n'
                                           '[cors]\nallowed_origin = http://a.example.org\n'),
                           _Compute())
    body = b'{"server": "%s"}' % (b'x' * 30)
    resp = webob.Request.blank('/v2.1/servers', method='POST', body=body,
                               headers={'X-Auth-Token': 'demo:demo'}).get_response(app)
    assert resp.status_int == 413 and b'max_request_body_size (20)' in resp.body
    resp = webob.Request.blank('/v2.1/', headers={
        'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org',
        'Origin': 'http://a.example.org'}).get_response(app)
    assert resp.headers['Access-Control-Allow-Origin'] == 'http://a.example.org'
    assert 'https://api.example.org/v2.1/' in resp.text


def test_a_healthcheck_error_still_stops_the_start(tmp_path):
    conf = _conf(tmp_path, '[healthcheck]\nbackends = disable_by_file,enable_by_files\n')
    with pytest.raises(oslo_healthcheck.ConfigInvalid):
        deploy.build_app(conf, _Compute())


def test_the_api_and_endpoints_run_without_importing_oslo_middleware():
    # A fresh interpreter: the compute API (and the image endpoint's request
    # log) answer GET, POST, DELETE and a 413 without oslo.middleware's
    # package (jinja2, greenlet, bcrypt); /healthcheck and OPTIONS load it.
    code = '''if True:
        import sys, webob
        from nova import conf
        from nova.api import deploy
        from nova.cmd import aio
        c = conf.new_config()
        c.set_override('auth_strategy', 'noauth2', group='api')
        app = deploy.build_app(c, None)
        image = aio.with_request_log(lambda e, s: s('204 No Content', []) or [])
        def run(app, *args, **kw):
            return webob.Request.blank(*args, **kw).get_response(app).status_int
        def loaded():
            return sorted({m.split('.')[0] for m in sys.modules}
                          & {'oslo_middleware', 'jinja2', 'greenlet', 'bcrypt'})
        t = {'X-Auth-Token': 'demo:demo'}
        codes = [run(app, '/v2.1/flavors', headers=t),
                 run(app, '/v2.1/servers', method='POST', body=b'{}', headers=t),
                 run(app, '/v2.1/servers', method='POST', body=b'x' * 200000, headers=t),
                 run(app, '/v2.1/servers/x', method='DELETE', headers=t),
                 run(image, '/v2/images')]
        print(codes[2], codes[4], loaded())
        print(run(app, '/healthcheck'), loaded())
        '''
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == "413 204 []", out
    assert out[1] == "200 ['bcrypt', 'greenlet', 'jinja2', 'oslo_middleware']", out
