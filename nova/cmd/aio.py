"""nova-aio: the whole cloud in one process (API, conductor, compute, image endpoint)."""

import logging
import os

import nova.conf
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


def write_clouds_yaml(conf, compute_url, image_url, volume_url):
    path = os.path.join(conf.state_path, 'clouds.yaml')
    with open(path, 'w') as handle:
        handle.write(
            'clouds:\n'
            '  nova-aio:\n'
            '    auth_type: none\n'
            '    compute_endpoint_override: %s\n'
            '    image_endpoint_override: %s\n'
            # openstackclient sets up an identity client even with auth_type
            # none; any endpoint that answers a version document will do.
            '    identity_endpoint_override: %s\n'
            '    identity_api_version: 3\n'
            # The 'none' auth plugin makes the caller project 'notused' under
            # noauth2; volumes live under that project's URL.
            '    block_storage_endpoint_override: %s/v3/notused\n'
            % (compute_url, image_url, image_url, volume_url))
    return path


class AllInOne:
    """Owns every part of the all-in-one so tests can start and stop it in-process."""

    def __init__(self, conf):
        self.conf = conf
        self.servers = []
        self.services = []
        self.urls = {}

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
        for path, option in ((conf.state_path, '[DEFAULT] state_path'),
                             (conf.instances_path, '[DEFAULT] instances_path')):
            try:
                os.makedirs(path, exist_ok=True)
                if not os.access(path, os.W_OK):
                    raise PermissionError('not writable')
            except OSError as exc:
                raise common.StartupError('cannot use %s as %s: %s'
                                          % (path, option, exc.strerror or exc)) from None
        db = wiring.database(conf)
        db.sync()
        if conf.aio.seed_flavors:
            manage.seed_flavors(db)
        from nova.embedded.image import app as image_app
        image = image_app.make_app(os.path.join(conf.state_path, 'images'))
        # The image endpoint takes identity only from the auth layer's
        # RequestContext: the same decision as the compute API's.
        from nova.api import auth
        image = (auth.NoAuth2(image) if conf.api.auth_strategy == 'noauth2'
                 else auth.keystone_pipeline(image, conf))
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
        server, _t, url = wsgi_server.serve_in_thread(wiring.api_app(conf, db),
                                                      conf.aio.listen, conf.aio.compute_port)
        self.servers.append(server)
        self.urls['compute'] = url.rstrip('/') + '/v2.1'
        self.db = db
        return self

    def _start_volume_endpoint(self, conf):
        from nova.embedded.volume import app as volume_app
        from nova.image import glance
        images = glance.GlanceClient(conf)

        def fetch(context, image_id, dest_path):
            # As the volume's requester: only images it may use.
            return images.download(context, image_id, dest_path)
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


@common.clean_exit
def main(argv=None):
    conf = nova.conf.CONF
    set_aio_defaults(conf)
    common.parse_args(argv, conf=conf)
    aio = AllInOne(conf).start()
    clouds = write_clouds_yaml(conf, aio.urls['compute'], aio.urls['image'],
                               aio.urls['volume'])
    LOG.info('nova-aio ready: compute %s, image %s; clouds.yaml at %s',
             aio.urls['compute'], aio.urls['image'], clouds)
    print('nova-aio ready\n  compute: %s\n  image:   %s\n  volume:  %s/v3\n'
          '  export OS_CLIENT_CONFIG_FILE=%s OS_CLOUD=nova-aio'
          % (aio.urls['compute'], aio.urls['image'], aio.urls['volume'], clouds), flush=True)
    common.wait_for_signal(aio.stop)
