"""One authentication decision for every endpoint: keystonemiddleware or the noauth token."""

import json
import logging

import webob
import webob.dec

from nova import context as nova_context
from nova.api import wsgi

LOG = logging.getLogger(__name__)

# Version discovery of the compute API answers without credentials.
PUBLIC_PATHS = ('', '/', '/v2.1', '/v2.1/')
UNAUTHORIZED = 'The request you have made requires authentication.'
KEYSTONE_DOWN = 'The Keystone service is temporarily unavailable.'
# Set in the environ once keystonemiddleware has passed a request on.
_PASSED = 'nova.auth.keystone_passed'

# WSGI keys of the identity headers keystonemiddleware (or this module) sets.
# Whatever a client sends under these names is dropped before auth runs, so
# no endpoint behind protect() can be lied to through them.
_IDENTITY_PREFIXES = (
    'HTTP_X_USER', 'HTTP_X_PROJECT', 'HTTP_X_TENANT', 'HTTP_X_ROLE',
    'HTTP_X_DOMAIN', 'HTTP_X_DEFAULT_PROJECT', 'HTTP_X_SERVICE_',
    'HTTP_X_IDENTITY_STATUS', 'HTTP_X_IS_ADMIN_PROJECT', 'HTTP_X_TRUST',
    'HTTP_X_SYSTEM_SCOPE', 'HTTP_OPENSTACK_SYSTEM_SCOPE', 'HTTP_X_AUTH_USER',
    'HTTP_X_AUTH_PROJECT', 'HTTP_X_APP_CRED',
)
# The service token is a credential keystonemiddleware validates, not a claim.
_KEEP = frozenset(['HTTP_X_SERVICE_TOKEN'])


def strip_identity_headers(environ):
    """Drop every identity header from ``environ`` (in place)."""
    for key in [k for k in environ if k.startswith(_IDENTITY_PREFIXES)]:
        if key not in _KEEP:
            del environ[key]


def set_identity_headers(environ, ctx):
    """Identity headers derived from ``ctx`` alone, keystonemiddleware's names."""
    strip_identity_headers(environ)
    roles = ','.join(ctx.roles or [])
    values = {
        'HTTP_X_IDENTITY_STATUS': 'Confirmed',
        'HTTP_X_USER_ID': ctx.user_id, 'HTTP_X_USER_NAME': ctx.user_name,
        'HTTP_X_USER': ctx.user_name,
        'HTTP_X_USER_DOMAIN_ID': ctx.user_domain_id,
        'HTTP_X_PROJECT_ID': ctx.project_id, 'HTTP_X_TENANT_ID': ctx.project_id,
        'HTTP_X_PROJECT_NAME': ctx.project_name, 'HTTP_X_TENANT_NAME': ctx.project_name,
        'HTTP_X_TENANT': ctx.project_name,
        'HTTP_X_PROJECT_DOMAIN_ID': ctx.project_domain_id,
        'HTTP_X_ROLES': roles, 'HTTP_X_ROLE': roles,
    }
    if ctx.service_catalog:
        values['HTTP_X_SERVICE_CATALOG'] = json.dumps(ctx.service_catalog)
    environ.update((k, v) for k, v in values.items() if v is not None)


def _path(environ):
    return environ.get('PATH_INFO', '')


def _unauthorized():
    return wsgi.fault(401, UNAUTHORIZED)


class NoAuth2:
    """Identity from the token ``user:project`` only (tests and the all-in-one).

    A token without ``:`` names a user whose project has the same name. The
    user ``admin`` holds the admin role (and so is an administrator);
    everyone holds member and reader in the token's project.
    """

    def __init__(self, app):
        self.app = app

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        token = req.headers.get('X-Auth-Token', '').strip()
        user, _sep, project = token.partition(':')
        if not user:
            return _unauthorized()
        roles = ['reader', 'member'] + (['admin'] if user == 'admin' else [])
        ctx = nova_context.RequestContext(
            user_id=user, project_id=project or user, roles=roles, auth_token=token,
            request_id=req.environ.get('openstack.request_id'),
            global_request_id=req.environ.get('openstack.global_request_id'))
        _attach(req.environ, ctx)
        return self.app


class KeystoneContext:
    """Turn what keystonemiddleware validated into a RequestContext."""

    def __init__(self, app):
        self.app = app

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        # keystonemiddleware let the request through: a 503 now is the app's own.
        req.environ[_PASSED] = True
        if req.headers.get('X-Identity-Status', 'Invalid') != 'Confirmed':
            return _unauthorized()
        ctx = nova_context.RequestContext.from_environ(
            req.environ, request_id=req.environ.get('openstack.request_id'))
        catalog = req.headers.get('X-Service-Catalog')
        if catalog:
            try:
                ctx.service_catalog = json.loads(catalog)
            except ValueError:
                # keystonemiddleware wrote it; a bad one is our fault, not
                # the caller's, but it must not take the request down.
                LOG.warning('Ignoring an undecodable service catalog')
        _attach(req.environ, ctx)
        return self.app


def _attach(environ, ctx):
    ctx.is_admin = nova_context.check_is_admin(ctx)
    environ['nova.context'] = ctx
    set_identity_headers(environ, ctx)


def _keystone(app, conf):
    """keystonemiddleware in front of KeystoneContext; Keystone down is a 503."""
    from keystoneauth1 import exceptions as ksa_exc
    from keystonemiddleware import auth_token
    from keystonemiddleware.auth_token import _exceptions as ksm_exc
    guarded = auth_token.AuthProtocol(KeystoneContext(app), {'oslo_config_config': conf})
    outage = (ksa_exc.ConnectFailure, ksa_exc.DiscoveryFailure, ksa_exc.RequestTimeout,
              ksa_exc.EndpointNotFound, ksm_exc.ServiceError)

    def call(environ, start_response):
        refused = []

        def answer(status, headers, exc_info=None):
            if status.startswith('503') and not environ.get(_PASSED):
                # keystonemiddleware's own 503 (it could not validate the
                # token): answered below in the compute fault shape.
                refused.append(status)
                return lambda data: None
            return start_response(status, headers, exc_info)
        try:
            body = guarded(environ, answer)
        except outage as exc:
            # E.g. the identity endpoint could not be discovered to name it in
            # a 401's WWW-Authenticate: the caller should retry, not give up.
            LOG.error('Keystone unreachable: %s', exc)
            return wsgi.fault(503, KEYSTONE_DOWN)(environ, start_response)
        if refused:
            getattr(body, 'close', lambda: None)()
            return wsgi.fault(503, KEYSTONE_DOWN)(environ, start_response)
        return body
    return call


def protect(app, conf, public_paths=PUBLIC_PATHS):
    """``app`` behind the deployment's auth (``[api] auth_strategy``).

    After it, ``environ['nova.context']`` is the caller's RequestContext and
    the identity headers (X-User-Id, X-Project-Id, X-Roles, ...) describe
    that context only. ``public_paths`` (exact PATH_INFO values: version
    documents) pass without credentials, and without identity headers.
    """
    from nova import policy
    # Who is an administrator is a policy decision (context_is_admin).
    policy.init(conf)
    if conf.api.auth_strategy == 'noauth2':
        guarded = NoAuth2(app)
    else:
        guarded = _keystone(app, conf)
    public = frozenset(public_paths)

    def dispatch(environ, start_response):
        strip_identity_headers(environ)
        environ.pop('nova.context', None)
        if _path(environ) in public:
            return app(environ, start_response)
        return guarded(environ, start_response)
    return dispatch
