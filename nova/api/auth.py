"""Authentication middleware: build the RequestContext (noauth2 or keystonemiddleware)."""

import webob.dec

from nova import context as nova_context
from nova.api import wsgi

# Paths that answer without credentials: version discovery.
PUBLIC_PATHS = ('', '/', '/v2.1', '/v2.1/')


def _is_public(environ):
    return environ.get('PATH_INFO', '') in PUBLIC_PATHS


class NoAuth2:
    """Trust the caller: token ``user:project`` or X-Auth-User/X-Auth-Project-Id.

    The user ``admin`` gets the admin role. For tests and the all-in-one only.
    """

    def __init__(self, app):
        self.app = app

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        if _is_public(req.environ):
            return self.app
        token = req.headers.get('X-Auth-Token', '')
        user = req.headers.get('X-Auth-User')
        project = req.headers.get('X-Auth-Project-Id')
        if not user:
            if not token:
                return wsgi.fault(401, 'The request you have made requires authentication.')
            user, _sep, project_from_token = token.partition(':')
            project = project or project_from_token or user
        project = project or user
        roles = ['reader', 'member'] + (['admin'] if user == 'admin' else [])
        req.environ['nova.context'] = nova_context.RequestContext(
            user_id=user, project_id=project, roles=roles, is_admin=user == 'admin',
            auth_token=token or None,
            request_id=req.environ.get('openstack.request_id'))
        return self.app


class KeystoneContext:
    """Turn the headers keystonemiddleware sets into a RequestContext."""

    def __init__(self, app):
        self.app = app

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        if _is_public(req.environ):
            return self.app
        if req.headers.get('X-Identity-Status', 'Confirmed') != 'Confirmed':
            return wsgi.fault(401, 'The request you have made requires authentication.')
        ctx = nova_context.RequestContext.from_environ(
            req.environ, request_id=req.environ.get('openstack.request_id'))
        catalog = req.headers.get('X-Service-Catalog')
        if catalog:
            import json
            try:
                ctx.service_catalog = json.loads(catalog)
            except ValueError:
                return wsgi.fault(500, 'Invalid service catalog json.')
        req.environ['nova.context'] = ctx
        return self.app


def keystone_pipeline(app, conf):
    """keystonemiddleware validates tokens, except on the version documents."""
    from keystonemiddleware import auth_token
    protected = auth_token.AuthProtocol(KeystoneContext(app), {'oslo_config_config': conf})

    def dispatch(environ, start_response):
        target = app if _is_public(environ) else protected
        return target(environ, start_response)
    return dispatch
