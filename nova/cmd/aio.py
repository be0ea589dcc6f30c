"""nova-aio: the whole cloud in one process (API, conductor, compute, image endpoint)."""

import logging
import os

import nova.conf
from nova import context as nova_context
from nova import wiring, wsgi_server
from nova.cmd import common, manage

LOG = logging.getLogger(__name__)


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


def _point_image_client(conf, url):
    # Only when the operator did not point the image client elsewhere.
    if not conf.glance.endpoint_override:
        conf.set_override('endpoint_override', url, group='glance')
        conf.set_override('auth_type', 'none', group='glance')


def _password_cloud(name, identity_url, user):
    # A password login to the identity stand-in: the token is "user:user" and
    # comes with a catalog, so clients also learn there is no network service.
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


def write_clouds_yaml(conf, compute_url, image_url, volume_url, identity_url=None):
    """clouds.yaml: nova-aio (user and project "notused") and nova-aio-admin (admin)."""
    path = os.path.join(conf.state_path, 'clouds.yaml')
    if identity_url:
        text = ('clouds:\n' + _password_cloud('nova-aio', identity_url, 'notused')
                + _password_cloud('nova-aio-admin', identity_url, 'admin'))
    else:
        text = ('clouds:\n'
                '  nova-aio:\n'
                '    auth_type: none\n'
                '    compute_endpoint_override: %s\n'
                '    image_endpoint_override: %s\n'
                # openstackclient sets up an identity client even with
                # auth_type none; any endpoint with a version document will do.
                '    identity_endpoint_override: %s\n'
                '    identity_api_version: 3\n'
                # The 'none' auth plugin makes the caller project 'notused'
                # under noauth2; volumes live under that project's URL.
                '    block_storage_endpoint_override: %s/v3/notused\n'
                % (compute_url, image_url, image_url, volume_url))
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


class AllInOne:
    """Owns every part of the all-in-one so tests can start and stop it in-process."""

    def __init__(self, conf):
        self.conf = conf
        self.servers = []
        self.services = []
        self.urls = {}

    def start(self):
        conf = self.conf
        os.makedirs(conf.state_path, exist_ok=True)
        os.makedirs(conf.instances_path, exist_ok=True)
        db = wiring.database(conf)
        db.sync()
        if conf.aio.seed_flavors:
            manage.seed_flavors(db)
        from nova.embedded.image import app as image_app
        image = image_app.make_app(os.path.join(conf.state_path, 'images'))
        server, _t, image_url = wsgi_server.serve_in_thread(image, conf.aio.listen,
                                                            conf.aio.image_port)
        self.servers.append(server)
        self.urls['image'] = image_url
        _point_image_client(conf, image_url)
        self._start_volume_endpoint(conf)
        for build in (wiring.conductor_service, wiring.compute_service):
            svc = build(conf, db)
            svc.start()
            self.services.append(svc)
        app = wiring.api_app(conf, db)
        noauth = conf.api.auth_strategy == 'noauth2'
        endpoints = []
        if noauth:
            app = _with_identity(app, endpoints)
        server, _t, url = wsgi_server.serve_in_thread(app, conf.aio.listen,
                                                      conf.aio.compute_port)
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
        self.db = db
        return self

    def _start_volume_endpoint(self, conf):
        from nova.embedded.volume import app as volume_app
        from nova.image import glance
        images = glance.GlanceClient(conf)
        admin = nova_context.get_admin_context()

        def fetch(image_id, dest_path):
            return images.download(admin, image_id, dest_path)
        volume = volume_app.make_app(os.path.join(conf.state_path, 'volumes'),
                                     image_fetcher=fetch)
        server, _t, url = wsgi_server.serve_in_thread(volume, conf.aio.listen,
                                                      conf.aio.volume_port)
        self.servers.append(server)
        self.urls['volume'] = url
        if not conf.cinder.endpoint_override:
            conf.set_override('endpoint_override', url, group='cinder')
            conf.set_override('auth_type', 'none', group='cinder')

    def stop(self):
        # Services first: an in-flight build may still call the image or
        # volume endpoint, which must keep answering until it is done.
        for svc in reversed(self.services):
            svc.stop()
        for server in self.servers:
            server.shutdown()
            server.server_close()


def main(argv=None):
    conf = nova.conf.CONF
    set_aio_defaults(conf)
    common.parse_args(argv, conf=conf)
    aio = AllInOne(conf).start()
    clouds = write_clouds_yaml(conf, aio.urls['compute'], aio.urls['image'],
                               aio.urls['volume'], aio.urls.get('identity'))
    LOG.info('nova-aio ready: compute %s, image %s; clouds.yaml at %s',
             aio.urls['compute'], aio.urls['image'], clouds)
    print('nova-aio ready\n  compute: %s\n  image:   %s\n  volume:  %s/v3\n'
          '  export OS_CLIENT_CONFIG_FILE=%s OS_CLOUD=nova-aio'
          % (aio.urls['compute'], aio.urls['image'], aio.urls['volume'], clouds), flush=True)
    common.wait_for_signal(aio.stop)
