"""keystoneauth1 plumbing of the image and volume clients; imported only when they use it."""

from keystoneauth1 import discover, noauth, plugin
from keystoneauth1 import exceptions as ksa_exc
from keystoneauth1 import loading as ks_loading
from keystoneauth1.access import service_catalog as ksa_catalog
from oslo_config import cfg

# The client code picks the API version it speaks; letting an operator
# override it would only break the client, so these are not advertised.
_VERSION_OPTS = ('version', 'min_version', 'max_version')


def adapter_opts(service_type):
    """Adapter options (endpoint_override, region_name, ...) for a group."""
    opts = [opt for opt in
            ks_loading.get_adapter_conf_options(include_deprecated=False)
            if opt.dest not in _VERSION_OPTS]
    cfg.set_defaults(opts, valid_interfaces=['internal', 'public'],
                     service_type=service_type)
    return opts


def list_opts(service_type):
    """Every keystoneauth option of a group, for the sample config."""
    return (ks_loading.get_session_conf_options()
            + ks_loading.get_auth_common_conf_options()
            + ks_loading.get_auth_plugin_conf_options('password')
            + adapter_opts(service_type))


def register_opts(conf, group, service_type):
    """Register session, auth and adapter options on ``group``."""
    group = getattr(group, 'name', group)
    ks_loading.register_session_conf_options(conf, group)
    ks_loading.register_auth_conf_options(conf, group)
    conf.register_opts(adapter_opts(service_type), group=group)
    # The adapter loader reads these; keep them registered but unadvertised.
    conf.register_opts([cfg.StrOpt(name, help='Chosen by the client; unused.')
                        for name in _VERSION_OPTS], group=group)


def load_session(conf, group, default_timeout):
    """A keystoneauth Session from the group's TLS/timeout options; without
    a [group] timeout, ``default_timeout`` seconds."""
    session = ks_loading.load_session_from_conf_options(conf, group)
    if session.timeout is None:
        session.timeout = default_timeout
    return session


def load_service_auth(conf, group):
    """The group's own credentials (a service user), or None if unset.

    ``auth_type = none`` counts as unset: it is the no-Keystone case, where
    requests go to ``endpoint_override`` without a token.
    """
    auth = ks_loading.load_auth_from_conf_options(conf, group)
    if auth is None or isinstance(auth, noauth.NoAuth):
        return None
    return auth


def _is_v2_catalog(catalog):
    """v2 endpoints name each interface's URL (publicURL...); v3 ones carry
    an ``interface`` key. keystonemiddleware hands services the v2 layout."""
    for service in catalog:
        for endpoint in service.get('endpoints') or ():
            return 'interface' not in endpoint
    return False


def catalog_url(catalog, service_type, interface=None, region_name=None,
                service_name=None):
    """The URL of ``service_type`` in a v2 or v3 service catalog, or None.

    ``interface`` is one name or a list in order of preference (an
    adapter's ``valid_interfaces``: internal, then public by default).
    """
    if not (catalog and service_type):
        return None
    layout = (ksa_catalog.ServiceCatalogV2 if _is_v2_catalog(catalog)
              else ksa_catalog.ServiceCatalogV3)
    try:
        return layout(catalog).url_for(service_type=service_type,
                                       interface=interface or 'public',
                                       region_name=region_name,
                                       service_name=service_name)
    except (ksa_exc.EndpointNotFound, ksa_exc.EmptyCatalog):
        return None


class TokenAuth(plugin.BaseAuthPlugin):
    """Calls made with a token already in hand (the user's), or anonymously.

    The endpoint comes from the adapter's ``endpoint_override`` or from the
    caller's service catalog, and version discovery honours the adapter's
    min/max version (keystoneauth's Token/NoAuth plugins ignore them).
    """

    def __init__(self, token=None, service_catalog=None, project_id=None):
        super().__init__()
        self._token = token
        self._catalog = service_catalog or []
        # Lets discovery keep a catalog URL's trailing project id
        # (Cinder's http://host:8776/v3/<project>).
        self._project_id = project_id

    def get_token(self, session):
        return self._token

    def get_headers(self, session):
        # An empty dict (not None) means "no auth needed" to keystoneauth.
        return {'X-Auth-Token': self._token} if self._token else {}

    def _catalog_url(self, service_type, interface, region_name,
                     service_name):
        return catalog_url(self._catalog, service_type, interface,
                           region_name, service_name)

    def get_endpoint_data(self, session, *, endpoint_override=None,
                          discover_versions=True, service_type=None,
                          interface=None, region_name=None, service_name=None,
                          version=None, min_version=None, max_version=None,
                          allow_version_hack=True, **kwargs):
        url = endpoint_override or self._catalog_url(
            service_type, interface, region_name, service_name)
        if not url:
            return None
        if version and not (min_version or max_version):
            # keystoneauth's meaning of "version": at least it, same major.
            min_version = version
            max_version = '%s.latest' % str(version).split('.')[0]
        data = discover.EndpointData(catalog_url=url,
                                     service_type=service_type,
                                     region_name=region_name)
        return data.get_versioned_data(
            session, cache=self._discovery_cache,
            discover_versions=discover_versions,
            allow_version_hack=allow_version_hack,
            project_id=self._project_id,
            min_version=min_version, max_version=max_version)


def context_auth(context):
    """An auth plugin acting as the caller of ``context`` (its token)."""
    return TokenAuth(getattr(context, 'auth_token', None),
                     getattr(context, 'service_catalog', None),
                     getattr(context, 'project_id', None))


def get_adapter(conf, group, session, context=None, service_auth=None,
                **kwargs):
    """An Adapter for ``group``'s service, authenticated for this call.

    The user's token from ``context`` wins; without one the group's service
    credentials (``service_auth``, from load_service_auth) are used; with
    neither the calls are anonymous, which suits an embedded endpoint
    reached through ``endpoint_override``. ``kwargs`` (min_version,
    connect_retries, ...) override the configured adapter options.
    """
    if context is not None and getattr(context, 'auth_token', None):
        auth = context_auth(context)
    else:
        auth = service_auth or TokenAuth()
    if context is not None:
        kwargs.setdefault('global_request_id',
                          getattr(context, 'global_id', None))
    return ks_loading.load_adapter_from_conf_options(
        conf, group, session=session, auth=auth, **kwargs)


def versioned_endpoint(adapter):
    """The discovered base URL (e.g. http://host:9292/v2/) of a service.

    Raises keystoneauth1.exceptions.EndpointNotFound when there is none.
    Discovery results are cached on the session, so this costs one GET
    per endpoint per process.
    """
    data = adapter.get_endpoint_data()
    if data is None or not data.url:
        raise ksa_exc.EndpointNotFound(
            'No endpoint for service type %s' % adapter.service_type)
    # When discovery cannot reach the service keystoneauth falls back to
    # the unversioned URL; requests sent there would get misleading 404s.
    if data.api_version is None:
        raise ksa_exc.EndpointNotFound(
            'No usable API version of %s found at %s'
            % (adapter.service_type, data.catalog_url))
    return data.url

