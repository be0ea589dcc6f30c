"""Neutron v2.0 over keystoneauth1: user and admin clients, errors as Nova exceptions."""

import copy
import json
import logging
import re
import threading
import time
import urllib.parse

from nova import exception, service_client

LOG = logging.getLogger(__name__)

GROUP = 'neutron'
API_PATH = '/v2.0'


def neutron_error(response):
    """(type, message) from a Neutron error body; either may be ''.

    Neutron answers ``{"NeutronError": {"type": "PortNotFound", "message":
    "...", "detail": ""}}``; paths it does not serve get a webob HTML page.
    """
    if response is None:
        return '', ''
    try:
        body = response.json()
    except ValueError:
        text = re.sub(r'<[^>]+>', ' ', response.text or '')
        return '', ' '.join(text.split())[:512]
    if not isinstance(body, dict):
        return '', json.dumps(body)[:512]
    error = body.get('NeutronError', body)
    if isinstance(error, dict):
        return str(error.get('type') or ''), str(error.get('message') or json.dumps(body))[:512]
    return '', str(error)[:512]


def _instance_field(instance, name):
    if isinstance(instance, dict):
        return instance.get(name)
    return getattr(instance, name, None)


class NeutronClient(service_client.ServiceClient):
    """Calls Neutron's v2.0 API as the caller in a RequestContext, or as the
    service (the ``[neutron]`` credentials: ``admin=True``).

    Every call answers Neutron's decoded JSON (None for 204) or raises a
    NovaException: a 4xx through the call's ``errors`` table (keyed by
    Neutron's error type, e.g. ``IpAddressAlreadyAllocated``, or by HTTP
    status; values take Neutron's message), else NotFound (404), Conflict
    (409), Forbidden (403), Unauthorized / NeutronAdminCredentialConfiguration
    Invalid (401) or Invalid (other 4xx); NetworkServiceError (503) when
    Neutron cannot be reached or fails (5xx), after ``[neutron] http_retries``
    connection retries within the session's ``timeout``.
    """

    GROUP = GROUP
    RETRIES_OPTION = 'http_retries'

    def _admin_context(self, context):
        """``context`` without its token: keystoneauth then acts as the
        ``[neutron]`` service user (ksa_utils.get_adapter), still sending
        the request's global id. Under noauth2 with no ``[neutron]``
        credentials (the all-in-one's embedded network endpoint) the token
        names the noauth administrator instead, as the image and volume
        clients do."""
        if context is None:
            from nova import context as nova_context
            context = nova_context.get_admin_context()
        admin = copy.copy(context)
        admin.auth_token = 'admin:admin' if self._noauth_admin() else None
        return admin

    def _noauth_admin(self):
        if self._conf.api.auth_strategy != 'noauth2':
            return False
        group = self._conf[GROUP]
        return 'auth_type' not in group or group.auth_type in (None, 'none')

    def _url(self, transport, path):
        base = transport.endpoint().rstrip('/')
        # A catalog entry may or may not carry the version.
        if not base.endswith(API_PATH):
            base += API_PATH
        return base + path

    def call(self, context, method, path, admin=False, json=None, params=None,
             errors=None):
        """One request to ``path`` (under /v2.0); see the class docstring."""
        if admin:
            context = self._admin_context(context)
        started = time.monotonic()
        try:
            transport = self._transport(context)
            resp = transport.request(self._url(transport, path), method,
                                     headers={'Accept': 'application/json'},
                                     json=json, params=params)
        except service_client.StatusError as exc:
            raise self._translate(exc, admin, errors or {}, method, path) from exc
        except service_client.RequestFailed as exc:
            raise exception.NetworkServiceError(
                reason='%s %s: %s' % (method, path, exc)) from exc
        LOG.debug('Neutron %s %s answered %s in %.3fs', method, path,
                  resp.status_code, time.monotonic() - started)
        if resp.status_code == 204 or not resp.text:
            return None
        try:
            return resp.json()
        except ValueError as exc:
            raise exception.NetworkServiceError(
                reason='%s %s: the answer is not JSON' % (method, path)) from exc

    @staticmethod
    def _translate(exc, admin, errors, method, path):
        status = exc.http_status
        kind, message = neutron_error(exc.response)
        message = message or str(exc)
        LOG.debug('Neutron %s %s refused: %s %s %s', method, path, status, kind, message)
        factory = errors.get(kind) or errors.get(status)
        if factory is not None:
            return factory(message)
        if status == 401:
            if admin:
                return exception.NeutronAdminCredentialConfigurationInvalid()
            return exception.Unauthorized()
        if status == 403:
            return exception.Forbidden(message=message)
        if status == 404:
            return exception.NotFound(message)
        if status == 409:
            return exception.Conflict(reason=message)
        if status is not None and 400 <= status < 500:
            return exception.Invalid(reason=message)
        return exception.NetworkServiceError(reason='%s %s: HTTP %s: %s'
                                             % (method, path, status, message))

    # -- small helpers every part uses ---------------------------------------

    @staticmethod
    def path(collection, ident=None, *rest):
        parts = ['', collection]
        if ident is not None:
            parts.append(urllib.parse.quote(str(ident), safe=''))
        parts.extend(urllib.parse.quote(str(p), safe='') for p in rest)
        return '/'.join(parts)

    def show(self, context, collection, singular, ident, admin=False, not_found=None,
             fields=None):
        """GET one resource; ``not_found`` (a callable) makes a 404's exception."""
        errors = {404: (lambda _msg: not_found())} if not_found else None
        params = {'fields': list(fields)} if fields else None
        return self.call(context, 'GET', self.path(collection, ident), admin=admin,
                         params=params, errors=errors)[singular]

    def list(self, context, collection, admin=False, **filters):
        """GET a collection with Neutron's filters (a list value is an OR)."""
        params = {k: v for k, v in filters.items() if v is not None}
        body = self.call(context, 'GET', '/' + collection, admin=admin, params=params or None)
        return body[collection.replace('-', '_')]

    def update_port(self, context, port_id, values, admin=True, errors=None):
        return self.call(context, 'PUT', self.path('ports', port_id), admin=admin,
                         json={'port': values}, errors=errors)['port']

    def delete_port(self, context, port_id, admin=True):
        """Delete a port; one already gone counts as deleted."""
        try:
            self.call(context, 'DELETE', self.path('ports', port_id), admin=admin)
        except exception.NotFound:
            LOG.debug('Port %s was already deleted', port_id)

    def instance_ports(self, context, instance, admin=True, **filters):
        """The ports whose device_id is the server (admin: whoever's they are)."""
        return self.list(context, 'ports', admin=admin,
                         device_id=_instance_field(instance, 'uuid'), **filters)


class NeutronExtensions:
    """Neutron's API extension aliases, read at most once per
    ``[neutron] extension_sync_interval`` seconds (0: every time)."""

    DNS_INTEGRATION = 'dns-integration'
    DNS_DOMAIN_PORTS = 'dns-domain-ports'
    AUTO_ALLOCATED_TOPOLOGY = 'auto-allocated-topology'
    PORT_BINDING_EXTENDED = 'binding-extended'
    FIP_PORT_DETAILS = 'fip-port-details'
    RESOURCE_REQUEST = 'port-resource-request'
    MULTI_PROVIDER = 'multi-provider'
    SEGMENT = 'segment'
    SECURITY_GROUP = 'security-group'

    def __init__(self, conf, client, clock=time.monotonic):
        self._conf = conf
        self._client = client
        self._clock = clock
        self._lock = threading.Lock()
        self._aliases = None
        self._read_at = None

    def aliases(self, context):
        """The set of loaded extension aliases."""
        with self._lock:
            interval = self._conf.neutron.extension_sync_interval
            now = self._clock()
            if self._aliases is None or now - self._read_at >= interval:
                body = self._client.call(context, 'GET', '/extensions', admin=True)
                self._aliases = frozenset(e['alias'] for e in body.get('extensions', ()))
                self._read_at = now
            return self._aliases

    def has(self, context, alias):
        return alias in self.aliases(context)

    def forget(self):
        """Read the list again at the next question (Neutron was upgraded)."""
        with self._lock:
            self._aliases = None
