"""Shared start-up for console scripts: config parsing, logging, signal handling."""

import functools
import signal
import socket
import sys
import threading

from oslo_log import log as logging

import nova.conf
from nova import exception, objects, version
from nova.cmd import sd_notify


class StartupError(Exception):
    """A misconfiguration found at start: printed as one line, exit status 1."""


def limit_malloc_arenas(count=2):
    """Cap glibc malloc arenas: each RPC/WSGI thread otherwise gets its own
    arena and resident memory grows by tens of MB for no benefit here."""
    try:
        import ctypes
        ctypes.CDLL('libc.so.6').mallopt(-8, count)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


def parse_args(argv=None, default_config_files=None, conf=None):
    limit_malloc_arenas()
    conf = conf or nova.conf.CONF
    logging.register_options(conf)
    conf(argv if argv is not None else sys.argv[1:], project='nova',
         version=version.version_string(), default_config_files=default_config_files)
    logging.setup(conf, 'nova')
    objects.register_all()
    if conf.api.auth_strategy == 'keystone':
        # The image and volume clients may take their service credentials from
        # [keystone_authtoken] (auth_section) before keystonemiddleware loads.
        register_keystone_opts(conf)
    return conf


def register_keystone_opts(conf):
    """[keystone_authtoken] options, read before keystonemiddleware loads them."""
    from keystoneauth1 import loading as ks_loading
    from keystonemiddleware import auth_token
    for group, opts in auth_token.list_opts():
        conf.register_opts(opts, group=group)
    ks_loading.register_auth_conf_options(conf, 'keystone_authtoken')


def wait_for_signal(on_stop, conf=None, ready=None):
    """Block until SIGINT/SIGTERM, then call ``on_stop``; SIGHUP reloads.

    SIGHUP re-reads the config files (mutable options such as ``debug`` take
    effect) and reopens the log files, so logrotate can move them away. The
    service tells systemd (``Type=notify``) that it is ready before waiting
    and that it is stopping before ``on_stop`` drains the work in flight.
    """
    done = threading.Event()
    hup = threading.Event()

    def handler(signum, frame):
        done.set()

    def on_hup(signum, frame):
        hup.set()
    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGHUP, on_hup)
    # Announce readiness only once the handlers are in place: a signal sent
    # on the announcement must not meet the default action (exit).
    if ready is not None:
        ready()
    notifier = sd_notify.SystemdNotifier()
    notifier.ready()
    while not done.wait(0.5):
        if hup.is_set():
            hup.clear()
            _reload(conf or nova.conf.CONF)
    # systemd shows the unit as deactivating while work in flight finishes.
    notifier.stopping()
    on_stop()


def _reload(conf):
    log = logging.getLogger(__name__)
    try:
        conf.mutate_config_files()
    except Exception as exc:  # noqa: BLE001 - a bad edit must not kill the service.
        log.error('Configuration not reloaded: %s', exc)
        return
    logging.setup(conf, 'nova')
    log.info('Configuration reloaded and log files reopened on SIGHUP')


def _one_line(exc):
    """The operator-facing sentence for an error at start, or None if unexpected."""
    from oslo_config import cfg
    from oslo_db import exception as db_exc
    if isinstance(exc, StartupError):
        return str(exc)
    from sqlalchemy import exc as sa_exc
    # oslo.db gives up with the driver's own error when max_retries is small.
    # A database that does not exist (PostgreSQL, MySQL), or an SQLite file
    # whose directory is missing, is a DBNonExistentDatabase, not a
    # connection error.
    if isinstance(exc, db_exc.DBNonExistentDatabase):
        return 'cannot open the database ([database] connection): %s' % (
            str(exc).splitlines()[0][:200])
    if isinstance(exc, (db_exc.DBConnectionError, sa_exc.OperationalError,
                        sa_exc.InterfaceError)):
        return 'cannot connect to the database ([database] connection): %s' % (
            str(exc).splitlines()[0][:200])
    if isinstance(exc, exception.HypervisorError):
        return exc.format_message()
    from nova import rpc
    if isinstance(exc, rpc.amqp_errors()):
        # A login or virtual host the broker refuses, e.g. permissions being
        # changed: the unit's Restart=on-failure tries again.
        return 'the message broker refused the connection ([DEFAULT] transport_url): %s' % (
            str(exc).splitlines()[0][:200])
    if isinstance(exc, cfg.Error):
        return 'configuration error: %s' % exc
    if isinstance(exc, OSError):
        return str(exc)
    return None


def clean_exit(func):
    """Console-script wrapper: known start-up failures are one line on stderr and exit 1.

    Unexpected errors keep their traceback: those are bugs, not misconfiguration.
    """
    @functools.wraps(func)
    def main(argv=None):
        try:
            return func(argv)
        except Exception as exc:
            line = _one_line(exc)
            if line is None:
                raise
            prog = func.__module__.rsplit('.', 1)[-1]
            print('nova-%s: error: %s' % (prog, line), file=sys.stderr, flush=True)
            return 1
    return main


def require_writable_paths(conf):
    """state_path and instances_path exist (created if need be) and are writable."""
    import os
    for path, option in ((conf.state_path, '[DEFAULT] state_path'),
                         (conf.instances_path, '[DEFAULT] instances_path')):
        try:
            os.makedirs(path, exist_ok=True)
            if not os.access(path, os.W_OK):
                raise PermissionError('not writable')
        except OSError as exc:
            raise StartupError('cannot use %s as %s: %s'
                               % (path, option, exc.strerror or exc)) from None


def require_broker(conf):
    """A split service needs an explicit, reachable transport_url; say so at once."""
    import oslo_messaging as messaging
    url = conf.transport_url
    if not url or url.rstrip('/') == 'rabbit:':
        raise StartupError('[DEFAULT] transport_url is not set; a split service needs '
                           'a message broker, e.g. rabbit://user:password@host:5672/')
    parsed = messaging.TransportURL.parse(conf, url)
    if parsed.transport.split('+')[0] == 'fake':
        return
    hosts = parsed.hosts or []
    for host in hosts:
        try:
            with socket.create_connection((host.hostname or '127.0.0.1',
                                           host.port or 5672), timeout=5):
                return
        except OSError:
            continue
    where = ', '.join('%s:%s' % (h.hostname, h.port or 5672) for h in hosts)
    raise StartupError('cannot reach the message broker at %s ([DEFAULT] transport_url)'
                       % (where or 'localhost:5672'))
