"""Base of the image and volume clients: keystoneauth1, or http.client to our own endpoints."""

import contextlib
import http.client
import logging
import os
import sys
import threading
import time
import urllib.parse
import weakref

from oslo_serialization import jsonutils

import nova.conf
from nova import http_pool

LOG = logging.getLogger(__name__)

# Without a timeout a hung image or volume service would pin a compute
# thread (and a service shutdown waiting on it) forever.
DEFAULT_TIMEOUT = 300
# keystoneauth's pause before its first connect retry; it doubles each time.
RETRY_DELAY, RETRY_DELAY_MAX = 0.5, 60.0
# How a kept-alive connection the server has closed meanwhile fails (on the
# send, or as an empty answer); RemoteDisconnected is both.
_STALE_ERRORS = (ConnectionResetError, BrokenPipeError, http.client.BadStatusLine)


class StatusError(Exception):
    """The service answered with an error status (400 or above)."""

    def __init__(self, http_status, response, message):
        super().__init__(message)
        self.http_status = http_status
        self.response = response


class RequestFailed(Exception):
    """No answer: no endpoint, connection refused or reset, timeout."""


class TransferFailed(Exception):
    """The connection failed while a response body was streaming."""


# -- the all-in-one's own endpoints ---------------------------------------------

# {id(conf): (weak reference to conf, {group: url})}: the endpoints of this
# process a client built from that ConfigOpts talks to directly.
_embedded = {}
_embedded_lock = threading.Lock()


def use_embedded(conf, group, url):
    """Send ``group``'s client (from ``conf``) straight to an endpoint of
    this process, over http.client: no Keystone, no keystoneauth session.

    The all-in-one calls this in its default mode (noauth2, nothing set in
    the group's keystoneauth options); each later call still checks that
    nobody pointed the group elsewhere (``endpoint_override``) meanwhile.
    """
    key = id(conf)
    with _embedded_lock:
        ref, urls = _embedded.get(key, (None, None))
        if ref is None or ref() is not conf:
            ref, urls = weakref.ref(conf), {}
            _embedded[key] = (ref, urls)
            weakref.finalize(conf, _forget, key, ref)
        urls[group] = url.rstrip('/')


def _forget(key, ref):
    with _embedded_lock:
        if _embedded.get(key, (None,))[0] is ref:
            del _embedded[key]


def embedded_url(conf, group):
    """The endpoint of this process ``group``'s client talks to, or None."""
    ref, urls = _embedded.get(id(conf), (None, None))
    if ref is None or ref() is not conf:
        return None
    url = urls.get(group)
    if url and nova.conf.client_opts_registered(conf, group) and \
            conf[group].endpoint_override:
        return None
    return url


class Response:
    """An http.client response, read the way the clients read requests'.

    Closing it returns the connection to http_pool (under ``pool_key``) when
    the body was read to its end and the server keeps the connection open.
    """

    def __init__(self, conn, resp, pool_key=None):
        self._conn, self._resp = conn, resp
        self._pool_key = pool_key
        self._broken = False
        self.status_code = resp.status
        self.reason = resp.reason
        self.headers = resp.headers
        self._content = None

    @property
    def content(self):
        if self._content is None:
            try:
                self._content = self._resp.read()
            except (OSError, http.client.HTTPException) as exc:
                self._broken = True
                raise RequestFailed('reading the response: %s' % exc) from exc
            finally:
                self.close()
        return self._content

    @property
    def text(self):
        return self.content.decode('utf-8', 'replace')

    def json(self):
        return jsonutils.loads(self.content)

    def iter_content(self, chunk_size):
        """The body in chunks; TransferFailed if it ends early or breaks."""
        expected = self._resp.length
        got = 0
        try:
            while True:
                data = self._resp.read(chunk_size)
                if not data:
                    break
                got += len(data)
                yield data
        except (OSError, http.client.HTTPException) as exc:
            self._broken = True
            raise TransferFailed(str(exc)) from exc
        # http.client returns an early end of a Content-Length body as its
        # end; requests (urllib3) reports it, so a download is retried.
        if expected is not None and self._resp.length:
            self._broken = True
            raise TransferFailed('connection closed after %d bytes, %d missing'
                                 % (got, self._resp.length))

    def close(self):
        conn, self._conn = self._conn, None
        if conn is None:
            return      # closed already, or its connection serves another request now
        # isclosed(): http.client read the body to its end.
        reusable = (self._pool_key is not None and not self._broken
                    and self._resp.isclosed() and not self._resp.will_close)
        self._resp.close()
        if reusable:
            http_pool.put(self._pool_key, conn)
        else:
            conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def _user_agent():
    return '%s nova python-http.client/%d.%d' % (
        os.path.basename(sys.argv[0] if sys.argv else '') or 'nova',
        sys.version_info[0], sys.version_info[1])


class DirectTransport:
    """One client's calls to an endpoint of this process, as keystoneauth
    would make them: the caller's token, the global request id, the
    microversion header, connect retries; no catalog, no discovery."""

    def __init__(self, url, token=None, global_request_id=None, retries=0,
                 microversion_service=None, version_path=None):
        self.url = url
        self._token = token
        self._global_request_id = global_request_id
        self._retries = retries
        self._microversion_service = microversion_service
        self._version_path = version_path

    def endpoint(self):
        return self.url

    def versioned_endpoint(self):
        return '%s/%s/' % (self.url, self._version_path)

    def project_id(self):
        return None

    def _headers(self, headers, microversion):
        out = {'User-Agent': _user_agent()}
        out.update(headers or {})
        if self._token:
            out['X-Auth-Token'] = self._token
        if self._global_request_id:
            out['X-OpenStack-Request-ID'] = self._global_request_id
        if microversion:
            out['OpenStack-API-Version'] = '%s %s' % (
                self._microversion_service, microversion)
        return out

    def request(self, url, method, headers=None, json=None, data=None,
                params=None, stream=False, microversion=None, **_ignored):
        """Send one request; StatusError at 400 and above, RequestFailed
        when no answer comes (after the connect retries)."""
        headers = self._headers(headers, microversion)
        if json is not None:
            data = jsonutils.dumps(json)
            headers.setdefault('Content-Type', 'application/json')
        if isinstance(data, str):
            data = data.encode('utf-8')
        if isinstance(data, bytes):
            headers['Content-Length'] = str(len(data))
        elif data is not None and 'Content-Length' not in headers:
            # A file is sent with its length, as requests sends it, not chunked.
            headers['Content-Length'] = str(os.fstat(data.fileno()).st_size - data.tell())
        parts = urllib.parse.urlsplit(url)
        target = parts.path or '/'
        # As requests encodes them: a dict or pairs, a list value repeated,
        # None left out.
        pairs = params.items() if hasattr(params, 'items') else params or ()
        query = [(k, one) for k, v in pairs
                 for one in (v if isinstance(v, (list, tuple)) else [v]) if one is not None]
        if parts.query or query:
            target += '?' + '&'.join(
                q for q in (parts.query, urllib.parse.urlencode(query)) if q)
        resp = self._send(parts, method, target, data, headers)
        if resp.status_code >= 400:
            resp.content  # noqa: B018 - read the error body, then close
            raise StatusError(resp.status_code, resp,
                              '%s (HTTP %d)' % (resp.reason, resp.status_code))
        if not stream:
            resp.content  # noqa: B018 - read it all now, as requests does
        return resp

    def _send(self, parts, method, target, data, headers):
        key = (parts.hostname, parts.port)
        start = _body_start(data)
        attempt = 0
        pooled = True
        while True:
            conn = http_pool.get(key) if pooled else None
            reused = conn is not None
            if not reused:
                conn = http.client.HTTPConnection(parts.hostname, parts.port,
                                                  timeout=DEFAULT_TIMEOUT)
            try:
                conn.request(method, target, body=data, headers=headers)
                return Response(conn, conn.getresponse(), key)
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                if reused and isinstance(exc, _STALE_ERRORS) and start is not None:
                    # The server closed it while idle (its timeout, a
                    # restart): once more on a new connection, at once.
                    LOG.debug('kept-alive connection to %s:%s closed (%s); reconnecting',
                              parts.hostname, parts.port, exc)
                    pooled = False
                    if hasattr(data, 'seek'):
                        data.seek(start)
                    continue
                if attempt >= self._retries:
                    raise RequestFailed('Unable to establish connection to %s: %s'
                                        % (urllib.parse.urlunsplit(parts), exc)) from exc
                delay = min(RETRY_DELAY * 2 ** attempt, RETRY_DELAY_MAX)
                attempt += 1
                LOG.info('Failure: %s. Retrying in %.1fs.', exc, delay)
                time.sleep(delay)


def _body_start(data):
    """Where a body to send again starts: 0 for bytes (or none), a file's
    position, or None if it cannot go out twice (an iterator, a pipe)."""
    if data is None or isinstance(data, bytes):
        return 0
    try:
        return data.tell()
    except (AttributeError, OSError):
        return None


# -- keystoneauth -----------------------------------------------------------------

@contextlib.contextmanager
def _keystoneauth_errors():
    """keystoneauth's and requests' errors as this module's."""
    import requests
    from keystoneauth1 import exceptions as ksa_exc
    try:
        yield
    except ksa_exc.HttpError as exc:
        raise StatusError(exc.http_status, exc.response, str(exc)) from exc
    except (ksa_exc.ClientException, requests.RequestException) as exc:
        raise RequestFailed(str(exc)) from exc


class _AdapterResponse:
    """A requests response whose streamed body fails with TransferFailed."""

    def __init__(self, resp):
        self._resp = resp
        self.status_code = resp.status_code
        self.headers = resp.headers

    @property
    def text(self):
        return self._resp.text

    def json(self):
        return self._resp.json()

    def iter_content(self, chunk_size):
        import requests
        try:
            yield from self._resp.iter_content(chunk_size=chunk_size)
        except requests.RequestException as exc:
            raise TransferFailed(str(exc)) from exc

    def close(self):
        self._resp.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class AdapterTransport:
    """A keystoneauth Adapter (ksa_utils.get_adapter) behind the interface of
    DirectTransport."""

    def __init__(self, adapter):
        self.adapter = adapter

    def endpoint(self):
        with _keystoneauth_errors():
            url = self.adapter.get_endpoint()
        if not url:
            raise RequestFailed('No endpoint for service type %s' % self.adapter.service_type)
        return url

    def versioned_endpoint(self):
        from nova import ksa_utils
        with _keystoneauth_errors():
            return ksa_utils.versioned_endpoint(self.adapter)

    def project_id(self):
        with _keystoneauth_errors():
            return self.adapter.get_project_id()

    def request(self, url, method, **kwargs):
        with _keystoneauth_errors():
            return _AdapterResponse(self.adapter.request(url, method, **kwargs))


# -- the base of the clients ------------------------------------------------------

class ServiceClient:
    """Base of the clients of other services: the option group ``GROUP``
    (its keystoneauth session, service credentials and adapter options, and
    a retry count), or, in the all-in-one's default mode, http.client to the
    process's own endpoint (see use_embedded).

    keystoneauth1 (with requests) is imported, and the group's keystoneauth
    options registered, only on the keystoneauth path.
    """

    GROUP = None
    # The group's own retry option, used unless connect_retries is set.
    RETRIES_OPTION = None

    def __init__(self, conf, session=None):
        self._conf = conf
        self._given_session = session
        self._ksa = None
        self._ksa_lock = threading.Lock()
        if session is not None or embedded_url(conf, self.GROUP) is None:
            # Configuration errors (an unknown auth plugin...) stop the
            # service at start, not at its first call.
            self._keystoneauth()

    @classmethod
    def from_conf(cls, conf):
        return cls(conf)

    def _keystoneauth(self):
        """(session, service auth) for the keystoneauth path, made once."""
        with self._ksa_lock:
            if self._ksa is None:
                from nova import ksa_utils
                nova.conf.register_client_opts(self._conf, self.GROUP)
                session = self._given_session or ksa_utils.load_session(
                    self._conf, self.GROUP, DEFAULT_TIMEOUT)
                self._ksa = (session, ksa_utils.load_service_auth(self._conf, self.GROUP))
            return self._ksa

    @property
    def _service_auth(self):
        if embedded_url(self._conf, self.GROUP) is not None:
            return None
        return self._keystoneauth()[1]

    @property
    def _retries(self):
        group = self._conf[self.GROUP]
        if 'connect_retries' in group and group.connect_retries is not None:
            return group.connect_retries
        return group[self.RETRIES_OPTION]

    def _transport(self, context, retries=None, **adapter_kwargs):
        """How this call goes out: a DirectTransport to the embedded endpoint,
        else ksa_utils.AdapterTransport (keystoneauth's Adapter)."""
        retries = self._retries if retries is None else retries
        url = embedded_url(self._conf, self.GROUP)
        if url is not None:
            return DirectTransport(
                url, token=getattr(context, 'auth_token', None),
                global_request_id=getattr(context, 'global_id', None),
                retries=retries, **self._direct_kwargs())
        from nova import ksa_utils
        session, service_auth = self._keystoneauth()
        return AdapterTransport(ksa_utils.get_adapter(
            self._conf, self.GROUP, session, context=context,
            service_auth=service_auth, connect_retries=retries, **adapter_kwargs))

    def _direct_kwargs(self):
        """DirectTransport arguments of this service (its version path...)."""
        return {}
