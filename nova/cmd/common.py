"""Shared start-up for console scripts: config parsing, logging, signal handling."""

import signal
import sys
import threading

from oslo_log import log as logging

import nova.conf
from nova import objects


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
         default_config_files=default_config_files)
    logging.setup(conf, 'nova')
    objects.register_all()
    return conf


def wait_for_signal(on_stop):
    """Block until SIGINT/SIGTERM, then call ``on_stop``."""
    done = threading.Event()

    def handler(signum, frame):
        done.set()
    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    while not done.wait(1):
        pass
    on_stop()
