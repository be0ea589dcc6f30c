"""Shared start-up for console scripts: config parsing, logging, signal handling."""

import signal
import sys
import threading

from oslo_log import log as logging

import nova.conf
from nova import objects


def parse_args(argv=None, default_config_files=None, conf=None):
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
