"""Build the WSGI applications for an external server from the configuration files."""

import logging
import os
import sys
import threading

import nova.conf
from nova.cmd import common

LOG = logging.getLogger(__name__)

CONFIG_DIR = '/etc/nova'
CONFIG_FILES = ['nova.conf']
_lock = threading.Lock()
_parsed = []


def config_files(env=None):
    """The files to read, as upstream: ``OS_NOVA_CONFIG_FILES`` (names separated
    by ";") inside ``OS_NOVA_CONFIG_DIR`` (default /etc/nova); nova.conf if unset."""
    env = os.environ if env is None else env
    dirname = env.get('OS_NOVA_CONFIG_DIR', CONFIG_DIR).strip()
    names = [n.strip() for n in env.get('OS_NOVA_CONFIG_FILES', '').split(';') if n.strip()]
    return [os.path.join(dirname, name) for name in names or CONFIG_FILES]


def _conf():
    """Parse the configuration once per process (several apps may share it)."""
    conf = nova.conf.CONF
    with _lock:
        if not _parsed:
            # No command line: the server's own arguments are not ours.
            common.parse_args([], default_config_files=config_files(), conf=conf)
            _parsed.append(True)
    return conf


def _build(name, conf):
    from nova import wiring
    from nova.api import auth
    from nova.cmd import aio
    if name == 'osapi_compute':
        common.require_broker(conf)
        return wiring.api_app(conf, wiring.database(conf))
    if name == 'metadata':
        return wiring.metadata_app(conf, wiring.database(conf))
    if name == 'image':
        from nova.embedded.image import app as image_app
        images = image_app.make_app(os.path.join(conf.state_path, 'images'))
        return aio.with_request_log(auth.protect(images, conf, aio.IMAGE_PUBLIC_PATHS))
    if name == 'volume':
        from nova.embedded.volume import app as volume_app
        from nova.image import glance
        images = glance.GlanceClient(conf)
        volume = volume_app.make_app(os.path.join(conf.state_path, 'volumes'),
                                     image_fetcher=images.download)
        return aio.with_request_log(auth.protect(volume, conf, aio.VOLUME_PUBLIC_PATHS))
    if name == 'identity':
        return aio.with_request_log(_identity(conf))
    raise ValueError('unknown application %r' % name)


def identity_catalog(conf):
    """The catalog the identity stand-in hands out, from the options that already
    name the public endpoints; a service whose option is unset is left out."""
    def url(value):
        # '%' in an operator's URL is not a placeholder.
        return value.rstrip('/').replace('%', '%%')
    entries = []
    for group in nova.conf.CLIENT_GROUPS:
        nova.conf.register_client_opts(conf, group)
    if conf.api.compute_link_prefix:
        entries.append(('compute', 'nova', url(conf.api.compute_link_prefix) + '/v2.1'))
    if conf.glance.endpoint_override:
        entries.append(('image', 'glance', url(conf.glance.endpoint_override)))
    if conf.cinder.endpoint_override:
        entries.append(('block-storage', 'cinder',
                        url(conf.cinder.endpoint_override) + '/v3/%(project_id)s'))
    return entries


def _identity(conf):
    from nova.embedded import identity
    if conf.api.auth_strategy != 'noauth2':
        raise common.StartupError(
            'the identity stand-in serves noauth2 deployments only ([api] auth_strategy '
            '= %s); clients authenticate with Keystone' % conf.api.auth_strategy)
    catalog = identity_catalog(conf)
    if not any(kind == 'compute' for kind, _n, _u in catalog):
        LOG.warning('The identity stand-in\'s catalog has no compute endpoint: set '
                    '[api] compute_link_prefix to the compute API\'s public URL')
    return identity.IdentityStub(catalog)


# The exit status of a worker whose application failed to load that makes the
# server stop instead of starting another worker to fail the same way.
UWSGI_FAILED_APP = 22       # uWSGI with need-app destroys the instance
GUNICORN_APP_LOAD_ERROR = 4     # gunicorn's arbiter halts: "App failed to load."


def _load_failed_status():
    if 'uwsgi' in sys.modules:      # uWSGI's embedded module, loaded before the app
        return UWSGI_FAILED_APP
    if 'gunicorn.arbiter' in sys.modules:
        return GUNICORN_APP_LOAD_ERROR
    return 1


def init_application(name):
    """The WSGI application ``name`` (osapi_compute, metadata, image, volume or identity).

    A misconfiguration is logged as the same one line the console scripts
    print, written to standard error, and the process exits with the status
    that makes uWSGI (need-app) or gunicorn stop rather than respawn workers.
    """
    try:
        conf = _conf()
        app = _build(name, conf)
    except Exception as exc:
        line = common._one_line(exc)
        if line is None:
            raise
        LOG.error('nova %s: %s', name, line)
        sys.stderr.write('nova %s: error: %s\n' % (name, line))
        sys.stderr.flush()
        raise SystemExit(_load_failed_status()) from None
    LOG.info('nova %s WSGI application loaded (config: %s)', name,
             ', '.join(config_files()))
    return app
