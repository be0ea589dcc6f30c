"""nova-aio: the whole cloud in one process (API, metadata, conductor, compute, endpoints)."""

import http.client
import json
import logging
import os
import threading
import urllib.parse

import nova.conf
from nova import service_client, wiring, wsgi_server
from nova.api import auth
from nova.cmd import common, manage

LOG = logging.getLogger(__name__)

# Version documents of the embedded endpoints answer without credentials,
# as Glance's and Cinder's do.
IMAGE_PUBLIC_PATHS = ('', '/', '/versions', '/v2', '/v2/')
VOLUME_PUBLIC_PATHS = ('', '/', '/v3', '/v3/')
# Neutron's version list answers without credentials; /v2.0/ needs a token.
NETWORK_PUBLIC_PATHS = ('', '/')
# Under noauth2 the administrator's token: port events need that role.
NOAUTH_ADMIN_TOKEN = 'admin:admin'
# RPC worker threads per server (conductor, compute) of the all-in-one.
AIO_EXECUTOR_THREADS = 16
# [glance] download_chunk_size of the all-in-one (1 MiB elsewhere).
AIO_DOWNLOAD_CHUNK_SIZE = 64 * 1024


def _default_state_path():
    if os.geteuid() == 0:
        return '/var/lib/nova'
    return os.path.join(os.path.expanduser('~'), '.local', 'share', 'nova')


def set_aio_defaults(conf):
    """Embedded defaults: SQLite, in-process messaging, noauth2, local endpoints."""
    conf.set_default('state_path', _default_state_path())
    conf.set_default('transport_url', 'fake:/')
    conf.set_default('auth_strategy', 'noauth2', group='api')
    conf.set_default('report_interval', 5)
    conf.set_default('service_down_time', 3600)
    # oslo.messaging's executor starts a thread per message until it has
    # executor_thread_pool_size of them (64), for the conductor and compute
    # servers alike: 128 threads that one process never keeps busy at once.
    conf.set_default('executor_thread_pool_size', AIO_EXECUTOR_THREADS)
    # The metadata API beside the other endpoints, on loopback ([aio] listen's default).
    conf.set_default('metadata_listen', '127.0.0.1')
    # Image downloads from the image endpoint of the same process: http.client
    # allocates each chunk twice (read into a buffer, then copied), so 1 MiB
    # chunks put 1.5 to 2 MB on the peak of a boot from a new image.
    conf.set_default('download_chunk_size', AIO_DOWNLOAD_CHUNK_SIZE, group='glance')


def _keystone_mode(conf):
    return conf.api.auth_strategy != 'noauth2'


register_keystone_opts = common.register_keystone_opts


def _point_client(conf, group, url):
    """Send a service client to an embedded endpoint, authenticated as the
    deployment authenticates."""
    if not (_keystone_mode(conf) or nova.conf.client_opts_configured(conf, group)):
        # noauth2 and nothing configured for the client: it calls the
        # endpoint directly (http.client), without keystoneauth1 loaded.
        service_client.use_embedded(conf, group, url)
        return
    nova.conf.register_client_opts(conf, group)
    if _keystone_mode(conf):
        # Calls without a user token (periodic tasks, actions on another
        # project's server) use the service user; by default the one
        # keystonemiddleware already has.
        # With auth_section set, keystoneauth registers auth_type in that
        # section's group (the options are registered after parsing), not here.
        if not (conf[group].auth_section or conf[group].auth_type):
            conf.set_override('auth_section', 'keystone_authtoken', group=group)
        if conf.aio.catalog_endpoints:
            return
    elif not (conf[group].endpoint_override or conf[group].auth_section):
        # noauth2: tokens are made up on the spot, no credentials needed.
        conf.set_override('auth_type', 'none', group=group)
    # Only when the operator did not point the client elsewhere.
    if not conf[group].endpoint_override:
        conf.set_override('endpoint_override', url, group=group)


def _network_line(url):
    return '    network_endpoint_override: %s\n' % url if url else ''


def _noauth_clouds(compute_url, image_url, volume_url, network_url=None):
    return (
        '    auth_type: none\n'
        '    compute_endpoint_override: %s\n'
        '    image_endpoint_override: %s\n'
        '%s'
        # openstackclient sets up an identity client even with auth_type
        # none; any endpoint that answers a version document will do.
        '    identity_endpoint_override: %s\n'
        '    identity_api_version: 3\n'
        # The 'none' auth plugin makes the caller project 'notused' under
        # noauth2; volumes live under that project's URL.
        '    block_storage_endpoint_override: %s/v3/notused\n'
        # The administrator (os-services, os-hypervisors, aggregates...):
        # noauth2 takes user and project from the token 'admin:admin'.
        '  nova-aio-admin:\n'
        '    auth_type: admin_token\n'
        '    auth:\n'
        '      token: admin:admin\n'
        '      endpoint: %s\n'
        '    compute_endpoint_override: %s\n'
        '    image_endpoint_override: %s\n'
        '%s'
        '    identity_endpoint_override: %s\n'
        '    identity_api_version: 3\n'
        % (compute_url, image_url, _network_line(network_url), image_url, volume_url,
           compute_url, compute_url, image_url, _network_line(network_url), image_url))


def _keystone_clouds(conf, compute_url, image_url, volume_url, network_url=None):
    authtoken = conf.keystone_authtoken
    auth_url = (conf.aio.cloud_auth_url or authtoken.www_authenticate_uri
                or getattr(authtoken, 'auth_url', None))
    auth = [('auth_url', auth_url), ('username', conf.aio.cloud_username),
            ('project_name', conf.aio.cloud_project_name),
            ('user_domain_name', conf.aio.cloud_user_domain_name),
            ('project_domain_name', conf.aio.cloud_project_domain_name)]
    text = '    auth_type: password\n    auth:\n'
    # Names only: the password comes from OS_PASSWORD, never from this file.
    text += ''.join('      %s: %s\n' % (k, v) for k, v in auth if v)
    text += '    identity_api_version: 3\n'
    if not conf.aio.catalog_endpoints:
        # The project-less volume URL: the embedded endpoint takes the
        # project from the token (clients do not fill in a project id here).
        text += ('    compute_endpoint_override: %s\n'
                 '    image_endpoint_override: %s\n'
                 '    block_storage_endpoint_override: %s/v3\n'
                 % (compute_url, image_url, volume_url)) + _network_line(network_url)
    return text


def _password_cloud(name, identity_url, user):
    # A password login to the identity stand-in: the token is "user:user" and
    # comes with a catalog, from which clients learn the other endpoints.
    return ('  %s:\n'
            '    auth_type: password\n'
            '    auth:\n'
            '      auth_url: %s\n'
            '      username: %s\n'
            '      password: %s\n'
            '      project_name: %s\n'
            '      user_domain_name: Default\n'
            '      project_domain_name: Default\n'
            '    identity_api_version: 3\n' % (name, identity_url, user, user, user))


def write_clouds_yaml(conf, compute_url, image_url, volume_url, identity_url=None,
                      network_url=None):
    """clouds.yaml: nova-aio (user and project "notused") and nova-aio-admin (admin)."""
    path = os.path.join(conf.state_path, 'clouds.yaml')
    if _keystone_mode(conf):
        text = 'clouds:\n  nova-aio:\n' + _keystone_clouds(conf, compute_url, image_url,
                                                          volume_url, network_url)
    elif identity_url:
        text = ('clouds:\n' + _password_cloud('nova-aio', identity_url, 'notused')
                + _password_cloud('nova-aio-admin', identity_url, 'admin'))
    else:
        text = 'clouds:\n  nova-aio:\n' + _noauth_clouds(compute_url, image_url, volume_url,
                                                        network_url)
    with open(path, 'w') as handle:
        handle.write(text)
    return path


def _with_identity(app, endpoints):
    """Serve the noauth2 identity stand-in under /identity beside the compute API."""
    from nova.embedded import identity
    stub = identity.IdentityStub(endpoints)

    def dispatch(environ, start_response):
        path = environ.get('PATH_INFO', '')
        if path == '/identity' or path.startswith('/identity/'):
            environ['SCRIPT_NAME'] = environ.get('SCRIPT_NAME', '') + '/identity'
            environ['PATH_INFO'] = path[len('/identity'):]
            return stub(environ, start_response)
        return app(environ, start_response)
    return dispatch


def with_request_log(app):
    """x-openstack-request-id on every response and one access-log line per request."""
    from nova.api import access_log, request_id
    return access_log.AccessLog(request_id.RequestId(app))


def extra_host_dirs(conf):
    """{name: instances_path} of [aio] extra_compute_hosts; StartupError on a bad name."""
    from nova.conductor import host_auth
    dirs = {}
    for name in conf.aio.extra_compute_hosts:
        # A host name, never a path: it names a directory under state_path.
        if not host_auth.valid_host_name(name) or name in (conf.host, *dirs):
            raise common.StartupError(
                '[aio] extra_compute_hosts: %r is not a host name of its own '
                '(letters, digits, ".", "_", "-"; unique, not [DEFAULT] host %s)'
                % (name, conf.host))
        dirs[name] = os.path.join(conf.state_path, 'hosts', name, 'instances')
    unknown = set(conf.aio.extra_compute_host_uris) - set(dirs)
    if unknown:
        raise common.StartupError(
            '[aio] extra_compute_host_uris names hosts that are not extra compute '
            'hosts: %s' % ', '.join(sorted(unknown)))
    return dirs


def _compute_services(conf, db):
    """[DEFAULT] host's compute service, then one per [aio] extra_compute_hosts name."""
    # One libvirtd for all: one spawn at a time picks serial ports and CPUs.
    lock = threading.Lock()
    # The embedded network's taps go where its data plane (and libvirtd) is.
    taps = conf.libvirt.tap_namespace or conf.aio.network_namespace
    services = [wiring.compute_service(conf, db, placement_lock=lock, tap_namespace=taps)]
    uris = conf.aio.extra_compute_host_uris
    for name, path in extra_host_dirs(conf).items():
        services.append(wiring.compute_service(conf, db, host=name, instances_path=path,
                                               placement_lock=lock,
                                               connection_uri=uris.get(name),
                                               tap_namespace=taps))
    return services


def _service_session(conf):
    """A keystoneauth session as the service user of [keystone_authtoken]."""
    from keystoneauth1 import loading as ks_loading
    auth = ks_loading.load_auth_from_conf_options(conf, 'keystone_authtoken')
    return ks_loading.load_session_from_conf_options(conf, 'keystone_authtoken', auth=auth)


class AllInOne:
    """Owns every part of the all-in-one so tests can start and stop it in-process."""

    def __init__(self, conf, migrate_in_child=False):
        self.conf = conf
        # The nova-aio process migrates a new database in a child process, so
        # that it never keeps alembic in memory; in-process users (tests) need not.
        self.migrate_in_child = migrate_in_child
        self.servers = []
        self.services = []
        self.urls = {}
        # The embedded network service and its data plane (None when disabled):
        # the metadata API serves guests on plane.metadata_socket().
        self.network = None
        self.plane = None
        self._notifier = None

    def start(self):
        try:
            return self._start()
        except BaseException:
            # Stop what did start: its RPC and HTTP threads would keep a
            # failed process alive instead of letting it exit with the error.
            self.stop()
            raise

    def _start(self):
        conf = self.conf
        common.require_writable_paths(conf)
        extra_host_dirs(conf)   # a bad name stops the start before anything runs
        db = wiring.database(conf)
        if self.migrate_in_child:
            try:
                db.sync_in_child()
            except RuntimeError as exc:
                raise common.StartupError(str(exc)) from None
        else:
            db.sync()
        if conf.aio.seed_flavors:
            manage.seed_flavors(db)
        if _keystone_mode(conf):
            register_keystone_opts(conf)
        from nova.embedded.image import app as image_app
        # Request ids and an access line per request, as the compute API.
        image = with_request_log(auth.protect(
            image_app.make_app(os.path.join(conf.state_path, 'images')), conf,
            IMAGE_PUBLIC_PATHS))
        server, _t, image_url = wsgi_server.serve_in_thread(
            image, conf.aio.listen, conf.aio.image_port, **wsgi_server.options(conf))
        self.servers.append(server)
        self.urls['image'] = image_url
        _point_client(conf, 'glance', image_url)
        self._start_volume_endpoint(conf)
        # Before the compute services: a build asks it for ports.
        if conf.aio.embedded_network:
            self._start_network_endpoint(conf)
        for svc in [wiring.conductor_service(conf, db)] + _compute_services(conf, db):
            svc.start()
            self.services.append(svc)
        # Before the API: a proxy on port 0 fixes the console base URLs.
        from nova.console import service as console_service
        for server in console_service.start_enabled(conf, db):
            self.servers.append(server)
        if 'metadata' in conf.enabled_apis:
            # Before the compute API, which stop() finds last in self.servers.
            metadata = wiring.metadata_app(conf, db)
            server, _t, url = wsgi_server.serve_in_thread(
                metadata, conf.metadata_listen, conf.metadata_listen_port,
                **wsgi_server.options(conf))
            self.servers.append(server)
            self.urls['metadata'] = url
            if self.plane is not None:
                # The guests' 169.254.169.254, in the data plane's namespace:
                # they are found by their fixed IP, as without Neutron's proxy.
                server, _t, _url = wsgi_server.serve_in_thread(
                    metadata, self.plane.config.metadata_address,
                    self.plane.config.metadata_port, sock=self.plane.metadata_socket(),
                    **wsgi_server.options(conf))
                self.servers.append(server)
        app = wiring.api_app(conf, db)
        noauth = conf.api.auth_strategy == 'noauth2'
        endpoints = []
        if noauth:
            app = _with_identity(app, endpoints)
        server, _t, url = wsgi_server.serve_in_thread(
            app, conf.aio.listen, conf.aio.compute_port, **wsgi_server.options(conf))
        self.servers.append(server)
        self.urls['compute'] = url.rstrip('/') + '/v2.1'
        if noauth:
            self.urls['identity'] = url.rstrip('/') + '/identity'
            # Filled in place: the ports are known only once the servers listen.
            endpoints.extend([
                ('compute', 'nova', self.urls['compute']),
                ('image', 'glance', self.urls['image']),
                ('block-storage', 'cinder', self.urls['volume'] + '/v3/%(project_id)s'),
                ('identity', 'keystone', self.urls['identity'])])
            if 'network' in self.urls:
                endpoints.append(('network', 'neutron', self.urls['network']))
        self.db = db
        return self

    def _start_volume_endpoint(self, conf):
        from nova.embedded.volume import app as volume_app
        from nova.image import glance
        images = glance.GlanceClient(conf)

        def fetch(context, image_id, dest_path):
            # As the volume's requester (its RequestContext, handed over by
            # the volume endpoint): only images it may use, never as admin.
            return images.download(context, image_id, dest_path)
        volume = volume_app.make_app(os.path.join(conf.state_path, 'volumes'),
                                     image_fetcher=fetch)
        server, _t, url = wsgi_server.serve_in_thread(
            with_request_log(auth.protect(volume, conf, VOLUME_PUBLIC_PATHS)), conf.aio.listen,
            conf.aio.volume_port, **wsgi_server.options(conf))
        self.servers.append(server)
        self.urls['volume'] = url
        _point_client(conf, 'cinder', url)

    def _start_network_endpoint(self, conf):
        from nova.embedded.network import app as network_app
        from nova.embedded.network import events, networks, seed
        self._notifier = events.PortEventNotifier(self._send_port_events)
        data_dir = os.path.join(conf.state_path, 'network')
        self.network = network_app.make_app(
            data_dir, networks.NetworkSettings(mtu=conf.aio.network_mtu), self._notifier,
            bridge_name=conf.aio.network_bridge)
        network, subnet = seed.ensure(self.network, seed.DefaultNetworkSpec(
            name=conf.aio.network_name, cidr=conf.aio.network_cidr,
            project_id=conf.aio.network_project,
            dns_nameservers=tuple(conf.aio.network_dns_servers), mtu=conf.aio.network_mtu))
        if conf.aio.network_dataplane:
            self._start_plane(conf, data_dir, network, subnet)
        server, _t, url = wsgi_server.serve_in_thread(
            with_request_log(auth.protect(self.network, conf, NETWORK_PUBLIC_PATHS)),
            conf.aio.listen, conf.aio.network_port, **wsgi_server.options(conf))
        self.servers.append(server)
        self.urls['network'] = url.rstrip('/')
        _point_client(conf, 'neutron', self.urls['network'])

    def _start_plane(self, conf, data_dir, network, subnet):
        from nova.embedded.network import dataplane, netns
        config = dataplane.PlaneConfig(
            bridge=conf.aio.network_bridge, namespace=conf.aio.network_namespace,
            metadata_address=conf.aio.metadata_address, metadata_port=conf.aio.metadata_port,
            state_dir=os.path.join(data_dir, 'dataplane'),
            run_dir=dataplane.run_dir_for(conf.aio.network_bridge,
                                          conf.aio.network_namespace))
        plane = dataplane.DataPlane(self.network.store, self.network.ports, network['id'],
                                    subnet['id'], config)
        try:
            plane.start()
        except netns.PlaneError as exc:
            raise common.StartupError(str(exc)) from None
        self.plane = plane
        self.network.ports.plane_managed = True
        # Only its network has a bridge: ports elsewhere fail to bind, at once.
        self.network.binder.networks = frozenset([network['id']])
        self.network.changes.subscribe(plane.refresh)

    def _send_port_events(self, events):
        """POST Neutron's port events to this all-in-one's compute API, as an administrator."""
        url = self.urls.get('compute')
        if url is None:
            raise RuntimeError('the compute API is not serving yet')
        body = {'events': events}
        if _keystone_mode(self.conf):
            session = _service_session(self.conf)
            session.post(url + '/os-server-external-events', json=body, raise_exc=True)
            return
        parts = urllib.parse.urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            conn.request('POST', parts.path + '/os-server-external-events',
                         body=json.dumps(body),
                         headers={'Content-Type': 'application/json',
                                  'X-Auth-Token': NOAUTH_ADMIN_TOKEN})
            resp = conn.getresponse()
            resp.read()
            # 207: some servers are gone; the others got theirs.
            if resp.status not in (200, 207):
                raise RuntimeError('os-server-external-events answered %d' % resp.status)
        finally:
            conn.close()

    def stop(self):
        # The compute API first (graceful: requests in flight finish), then
        # the services: an in-flight build may still call the image, volume
        # or network endpoint, which must keep answering until it is done.
        timeout = self.conf.graceful_shutdown_timeout
        if 'compute' in self.urls:
            self.servers[-1].stop(timeout)
        for svc in reversed(self.services):
            svc.stop()
        for server in self.servers:
            server.stop(timeout)
        if self._notifier is not None:
            self._notifier.stop()
        if self.plane is not None:
            self.plane.stop()
            self.plane = None
        if self.network is not None:
            self.network.close()
            self.network = None


def _plane_line(aio):
    if aio.plane is None:
        return ' (no data plane: guests get no connectivity)'
    return ' (bridge %s, host addresses %s)' % (aio.plane.config.bridge,
                                               ', '.join(aio.plane.addresses()))


@common.clean_exit
def main(argv=None):
    conf = nova.conf.CONF
    set_aio_defaults(conf)
    common.parse_args(argv, conf=conf)
    aio = AllInOne(conf, migrate_in_child=True).start()
    clouds = write_clouds_yaml(conf, aio.urls['compute'], aio.urls['image'],
                               aio.urls['volume'], aio.urls.get('identity'),
                               aio.urls.get('network'))

    def ready():
        LOG.info('nova-aio ready: compute %s, image %s; clouds.yaml at %s',
                 aio.urls['compute'], aio.urls['image'], clouds)
        metadata = ('  metadata: %s\n' % aio.urls['metadata']) if 'metadata' in aio.urls else ''
        print('nova-aio ready\n  compute: %s\n  image:   %s\n  volume:  %s/v3\n'
              '  network: %s%s\n%s'
              '  export OS_CLIENT_CONFIG_FILE=%s OS_CLOUD=nova-aio%s'
              % (aio.urls['compute'], aio.urls['image'], aio.urls['volume'],
                 aio.urls.get('network', 'external ([neutron])'), _plane_line(aio),
                 metadata, clouds,
                 # The password never goes into clouds.yaml.
                 ' OS_PASSWORD=...' if _keystone_mode(conf) else ''), flush=True)
    common.wait_for_signal(aio.stop, ready=ready)
