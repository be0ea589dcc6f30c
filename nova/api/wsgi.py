"""Request/response helpers and upstream-shaped fault bodies for the compute API."""

import json
import urllib.parse

import webob
import webob.exc

from nova import strict_json
from nova.api import microversion

# Upstream's fault names by status code; anything else is a computeFault.
FAULT_NAMES = {
    400: 'badRequest', 401: 'unauthorized', 403: 'forbidden', 404: 'itemNotFound',
    405: 'badMethod', 409: 'conflictingRequest', 413: 'overLimit',
    415: 'badMediaType', 429: 'overLimit', 501: 'notImplemented',
    503: 'serviceUnavailable',
}


class Request(webob.Request):
    """A compute API request; ``api_version`` and ``context`` are set by middleware."""

    @property
    def context(self):
        return self.environ['nova.context']

    @property
    def api_version(self):
        return self.environ.get('nova.api_version', microversion.MIN)

    def is_at_least(self, version):
        return self.api_version >= version

    @property
    def app(self):
        return self.environ['nova.app']

    def json_body(self):
        """The decoded JSON body, or a 400 naming what is wrong with it."""
        try:
            raw = self.body
        except OSError as exc:
            # Broken chunked framing, or the client went away mid-body.
            raise fault(400, 'The request body could not be read: %s' % exc)
        if not raw:
            raise fault(400, 'The request body is missing or empty.')
        ctype = self.content_type
        if ctype and ctype not in ('application/json', 'text/plain') and '+json' not in ctype:
            raise fault(415, 'Unsupported Content-Type %s' % ctype)
        try:
            return strict_json.loads(raw)
        except strict_json.RefusedJSON as exc:
            raise fault(400, str(exc))
        except (ValueError, UnicodeDecodeError):
            raise fault(400, 'Malformed request body')

    def url_for(self, *parts, versioned=True):
        prefix = self.app.link_prefix(self)
        path = '/'.join(urllib.parse.quote(str(p).strip('/'), safe="/:@!$&'()*+,;=~")
                        for p in parts)
        return '%s/%s' % (prefix if versioned else prefix.rsplit('/v2.1', 1)[0], path)


def json_response(body, status=200, headers=None):
    resp = webob.Response(status=status, content_type='application/json', charset=None)
    resp.body = json.dumps(body).encode('utf-8')
    for key, value in (headers or {}).items():
        resp.headers[key] = value
    return resp


def empty_response(status=202):
    resp = webob.Response(status=status)
    resp.content_type = None
    return resp


class Fault(webob.exc.HTTPException):
    """An error answered in upstream's JSON shape: {name: {code, message}}."""

    def __init__(self, code, message, headers=None):
        self.code = code
        self.message = message
        self.wsgi_response = json_response(
            {FAULT_NAMES.get(code, 'computeFault'): {'code': code, 'message': message}},
            status=code, headers=headers)
        Exception.__init__(self, message)

    def __call__(self, environ, start_response):
        return self.wsgi_response(environ, start_response)


def fault(code, message, headers=None):
    return Fault(code, message, headers=headers)
