"""Compose the compute API WSGI application; middleware order is explained inline."""

import logging
import threading

import oslo_messaging as messaging
import webob.dec
import webob.exc

import nova.conf
from nova import exception, outage
from nova.api import access_log, auth, request_id, router, wsgi
from nova.api import microversion as mv
from nova.api.handlers import versions
from nova.conf import wsgi as nova_wsgi_conf

LOG = logging.getLogger(__name__)

_VERSION_HEADER = 'OpenStack-API-Version'
_LEGACY_HEADER = 'X-OpenStack-Nova-API-Version'
_UNEXPECTED = ('Unexpected API Error. Please report this at the project bug tracker and '
               'attach the Nova API log if possible.')


def _bus_error(req, path, exc):
    """503: the message bus refused or lost a message no family answered for.

    The families undo their writes first (nova/compute/api_handoff.py).
    """
    LOG.warning('%s %s: message bus error %s: %s', req.method, path,
                exc.__class__.__name__, exc)
    return wsgi.fault(503, 'The message bus did not carry the request (%s); '
                           'try again.' % exc.__class__.__name__).wsgi_response


def _database_error(req, path, exc):
    """503: the database server is away (restarting, unreachable); one line, no traceback."""
    LOG.warning('%s %s: the database is unavailable: %s: %s', req.method, path,
                exc.__class__.__name__, str(exc).splitlines()[0][:200] if str(exc) else '')
    return wsgi.fault(503, 'The database is unavailable; try again.').wsgi_response


class ComputeApp:
    """Core app: microversion negotiation, dispatch, and error-to-fault mapping."""

    def __init__(self, conf, compute_api):
        # No database handle: handlers reach data only through the compute API.
        self.conf = conf
        self.compute_api = compute_api

    def link_prefix(self, req):
        base = self.conf.api.compute_link_prefix or req.host_url + req.script_name
        return base.rstrip('/') + '/v2.1'

    def __call__(self, environ, start_response):
        environ['nova.app'] = self
        req = wsgi.Request(environ)
        try:
            path = req.path_info
            req.GET  # noqa: B018 - decode the query string now, not in a handler.
        except UnicodeDecodeError:
            # Percent-escapes that are not UTF-8 name no resource and no value.
            return wsgi.fault(400, 'The request path or query string is not valid '
                                   'UTF-8.').wsgi_response(environ, start_response)
        versioned = path.startswith('/v2.1')
        try:
            if not versioned:
                if path in ('', '/'):
                    resp = versions.index(req)
                elif path in ('/v2', '/v2/'):
                    resp = versions.show_v20(req)
                else:
                    raise wsgi.fault(404, 'The resource could not be found.')
            else:
                req.environ['nova.api_version'] = self._negotiate(req)
                resp = router.dispatch(req, path[len('/v2.1'):])
        except wsgi.Fault as f:
            resp = f.wsgi_response
        except webob.exc.HTTPException as exc:
            # E.g. the size limiter's reader refusing a body without a length.
            resp = wsgi.fault(exc.code, exc.explanation or exc.title).wsgi_response
        except exception.NovaException as exc:
            if exc.code == 503:
                # A service this one needs is away; the message names it. One
                # line, not a traceback per request while it is away.
                LOG.warning('%s %s: %s', req.method, path, exc.format_message())
            elif exc.code >= 500:
                LOG.exception('API request failed')
            resp = wsgi.fault(exc.code, exc.format_message()).wsgi_response
        except messaging.MessagingException as exc:
            if outage.database_unavailable(exc):
                resp = _database_error(req, path, exc)
            elif isinstance(exc, messaging.RemoteError):
                LOG.exception('Unexpected error in %s %s', req.method, path)
                resp = wsgi.fault(500, _UNEXPECTED).wsgi_response
            else:
                resp = _bus_error(req, path, exc)
        except Exception as exc:  # noqa: BLE001 - the last line of defence must not leak.
            # oslo.messaging passes the AMQP client's own error through when
            # the broker refuses a new connection.
            from nova import rpc
            if isinstance(exc, rpc.amqp_errors()):
                resp = _bus_error(req, path, exc)
            elif outage.database_unavailable(exc):
                resp = _database_error(req, path, exc)
            else:
                LOG.exception('Unexpected error in %s %s', req.method, path)
                resp = wsgi.fault(500, _UNEXPECTED).wsgi_response
        if versioned:
            self._echo_version(req, resp)
        return resp(environ, start_response)

    @staticmethod
    def _negotiate(req):
        """Requested microversion: 400 if malformed, 406 if out of range."""
        text = None
        header = req.headers.get(_VERSION_HEADER)
        if header:
            for item in header.split(','):
                service, _sep, value = item.strip().partition(' ')
                if service.lower() == 'compute':
                    text = value.strip()
        if text is None:
            text = req.headers.get(_LEGACY_HEADER)
        if not text:
            return mv.MIN
        if text.lower() == 'latest':
            return mv.MAX
        try:
            version = mv.parse(text)
        except mv.MalformedVersion as exc:
            raise wsgi.fault(400, 'API Version String %s is of invalid format. Must be '
                                  'of format MajorNum.MinorNum.' % exc.args[0])
        if not mv.in_range(version):
            req.environ['nova.api_version'] = None
            raise wsgi.fault(406, 'Version %s is not supported by the API. Minimum is %s '
                                  'and maximum is %s.' % (text, mv.MIN_VERSION, mv.MAX_VERSION))
        return version

    @staticmethod
    def _echo_version(req, resp):
        version = req.environ.get('nova.api_version')
        if version is not None:
            text = mv.as_string(version)
            resp.headers[_VERSION_HEADER] = 'compute ' + text
            resp.headers[_LEGACY_HEADER] = text
        resp.headers['Vary'] = '%s, %s' % (_VERSION_HEADER, _LEGACY_HEADER)


# oslo.middleware's package imports every middleware it ships (jinja2,
# greenlet and bcrypt with them, about 3 MB) before any of its modules. Its
# health check, CORS, proxy headers and body size limit are built at start
# when their option group is set outside the code (a configuration file
# section or an OS_<GROUP>__ environment variable, see
# nova.conf.set_outside_code) or registered already; otherwise their
# defaults are in effect, under which the proxy middleware does nothing,
# CORS changes only OPTIONS answers, and the health check and the body size
# limit's reader are needed only by a /healthcheck request and a body without
# a Content-Length: each is built (and the package imported) for the first
# request that needs it. The unit tests run requests through both ways.
OSLO_MIDDLEWARE_GROUP = 'oslo_middleware'

# [oslo_middleware] defaults, as oslo.middleware defines them (the unit tests
# compare): max_request_body_size and enable_proxy_headers_parsing.
DEFAULT_MAX_REQUEST_BODY_SIZE = 114688
DEFAULT_PROXY_HEADERS_PARSING = False


def group_configured(conf, group):
    """Whether options of ``group`` may differ from their defaults."""
    return ((group in conf and len(conf[group]) > 0)
            or nova.conf.set_outside_code(conf, group))


class _Once:
    """The middleware ``build()`` returns, built by the first caller only."""

    def __init__(self, build):
        self._build = build
        self._built = None
        self._lock = threading.Lock()

    def __call__(self):
        if self._built is None:
            with self._lock:
                if self._built is None:
                    self._built = self._build()
        return self._built


class LimitedBody:
    """oslo.middleware's LimitingReader over a body without a length, made when first read."""

    def __init__(self, data, limit):
        self.data = data
        self.limit = limit
        self._reader = None

    def _limiting(self):
        if self._reader is None:
            from oslo_middleware import sizelimit
            self._reader = sizelimit.LimitingReader(self.data, self.limit)
        return self._reader

    def read(self, i=None):
        return self._limiting().read(i)

    def __iter__(self):
        return iter(self._limiting())


class BodySizeLimit:
    """oslo.middleware's body size limit, answering 413 in the compute fault shape.

    A declared Content-Length over ``[oslo_middleware] max_request_body_size``
    is refused here; a body without one is read through oslo.middleware's
    LimitingReader, whose 413 the core app maps: what oslo.middleware's
    ``RequestBodySizeLimiter`` does, with the compute API's fault body.
    """

    def __init__(self, application, conf):
        self.application = application
        if group_configured(conf, OSLO_MIDDLEWARE_GROUP):
            from oslo_middleware import sizelimit
            conf.register_opts(sizelimit.OPTS, group=OSLO_MIDDLEWARE_GROUP)
            self._max_size = lambda: conf[OSLO_MIDDLEWARE_GROUP].max_request_body_size
        else:
            self._max_size = lambda: DEFAULT_MAX_REQUEST_BODY_SIZE

    @webob.dec.wsgify
    def __call__(self, req):
        max_size = self._max_size()
        if req.content_length is not None and req.content_length > max_size:
            _drain(req, req.content_length)
            return wsgi.fault(413, 'Request is too large. Larger than '
                                   'max_request_body_size (%d).' % max_size)
        if req.content_length is None:
            req.body_file = LimitedBody(req.body_file, max_size)
        return req.get_response(self.application)


# Bodies up to this size are read and dropped before a 413, so a client that
# writes its whole body first still reads the answer; larger ones are cut off.
_DRAIN_LIMIT = 4 * 1024 * 1024


def _drain(req, length):
    if length > _DRAIN_LIMIT:
        return
    stream = req.environ['wsgi.input']
    while length > 0:
        chunk = stream.read(min(length, 65536))
        if not chunk:
            return
        length -= len(chunk)


def with_proxy_headers(app, conf):
    """oslo.middleware's proxy headers parsing, when it may be enabled."""
    if not group_configured(conf, OSLO_MIDDLEWARE_GROUP):
        return app      # enable_proxy_headers_parsing is False: it would do nothing.
    from oslo_middleware import http_proxy_to_wsgi
    return http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)


HEALTHCHECK_PATH = '/healthcheck'


def with_healthcheck(app, conf):
    """``GET /healthcheck`` answered by oslo.middleware, without credentials."""
    def build():
        from oslo_middleware import healthcheck
        return healthcheck.Healthcheck(app, conf)
    check = _Once(build)
    if group_configured(conf, 'healthcheck'):
        check()     # At start: a [healthcheck] error stops the service, as before.

    def dispatch(environ, start_response):
        if environ.get('PATH_INFO') == HEALTHCHECK_PATH:
            return check()(environ, start_response)
        return app(environ, start_response)
    return dispatch


def with_cors(app, conf):
    """oslo.middleware's CORS with [cors] (and upstream Nova's default headers)."""
    def build():
        from oslo_middleware import cors
        nova_wsgi_conf.set_cors_defaults()
        return cors.CORS(app, conf)
    if group_configured(conf, 'cors'):
        return build()
    cors_app = _Once(build)

    def dispatch(environ, start_response):
        # With no allowed origin, CORS changes only the answer to OPTIONS (a
        # non-2xx one becomes an empty 200).
        if environ.get('REQUEST_METHOD') == 'OPTIONS':
            return cors_app()(environ, start_response)
        return app(environ, start_response)
    return dispatch


class ComputeRequestId(request_id.RequestId):
    """x-openstack-request-id, and upstream's x-compute-request-id with the same id."""

    compat_headers = ['x-compute-request-id']


def build_app(conf, compute_api):
    """Outermost first: access log, request id, CORS, health check, proxy
    headers, size limit, auth, the core app.

    The access log wraps everything so every request gets its one line,
    with the request id RequestId chose (a valid inbound
    X-OpenStack-Request-ID becomes the global request id). RequestId sits
    outside CORS and the health check so even preflight answers, health
    checks and auth failures carry x-openstack-request-id (and
    x-compute-request-id, which upstream's compute API also sends). CORS answers
    preflight requests before auth (browsers send no token with them); the
    health check answers without credentials, as upstream's; the proxy
    middleware fixes host_url before links are built; the size limit
    refuses an over-long body (413, as upstream's ``[oslo_middleware]
    max_request_body_size``) before auth or any handler reads it; auth runs
    before any handler sees the request.
    """
    app = ComputeApp(conf, compute_api)
    app = auth.protect(app, conf, public_paths=auth.PUBLIC_PATHS)
    app = BodySizeLimit(app, conf)
    app = with_proxy_headers(app, conf)
    app = with_healthcheck(app, conf)
    app = with_cors(app, conf)
    app = ComputeRequestId(app)
    app = access_log.AccessLog(app)
    return app
