"""Start the console proxies that configuration enables (own processes or nova-aio)."""

import collections
import functools
import logging

from nova.compute import rpcapi as rpcapi_mod
from nova.console import proxy, tokens

LOG = logging.getLogger(__name__)

# A proxy's options: its group, listen host and port, and the base URL handed out.
Proxy = collections.namedtuple('Proxy', 'title group host port base_url')
PROXIES = {
    'novnc': Proxy('noVNC proxy', 'vnc', 'novncproxy_host', 'novncproxy_port',
                   'novncproxy_base_url'),
    'spice-html5': Proxy('spice-html5 proxy', 'spice', 'html5proxy_host', 'html5proxy_port',
                         'html5proxy_base_url'),
    'serial': Proxy('serial console proxy', 'serial_console', 'serialproxy_host',
                    'serialproxy_port', 'base_url'),
}


def start_proxy(conf, db, console_type, compute_rpcapi=None):
    """The websocket proxy of ``console_type``, serving in a thread.

    Before relaying, it asks the instance's compute host (``compute_rpcapi``)
    whether the token's port is still that instance's console.
    """
    spec = PROXIES[console_type]
    group = conf[spec.group]
    host, port = group[spec.host], group[spec.port]
    rpcapi = compute_rpcapi or rpcapi_mod.ComputeAPI(conf)
    server, _thread = proxy.serve_in_thread(
        db, console_type, host, port, conf.console.allowed_origins,
        is_current=functools.partial(tokens.is_current, db, rpcapi))
    if port == 0:
        # A free port was picked: the URLs handed out must name it.
        conf.set_override(spec.base_url, proxy.base_url_with_port(
            group[spec.base_url], server.port), group=spec.group)
    LOG.info('%s listening on %s:%s', spec.title, host, server.port)
    return server


def start_novncproxy(conf, db):
    return start_proxy(conf, db, 'novnc')


def start_serialproxy(conf, db):
    return start_proxy(conf, db, 'serial')


def start_spicehtml5proxy(conf, db):
    return start_proxy(conf, db, 'spice-html5')


def start_enabled(conf, db):
    """The proxies of the enabled console types, started."""
    return [start_proxy(conf, db, console_type)
            for console_type, spec in PROXIES.items() if conf[spec.group].enabled]
