"""Start the console proxies that configuration enables (own processes or nova-aio)."""

import logging

from nova.console import proxy

LOG = logging.getLogger(__name__)


def start_novncproxy(conf, db):
    server, _thread = proxy.serve_in_thread(db, 'novnc', conf.vnc.novncproxy_host,
                                            conf.vnc.novncproxy_port,
                                            conf.console.allowed_origins)
    if conf.vnc.novncproxy_port == 0:
        # A free port was picked: the URLs handed out must name it.
        conf.set_override('novncproxy_base_url', proxy.base_url_with_port(
            conf.vnc.novncproxy_base_url, server.port), group='vnc')
    LOG.info('noVNC proxy listening on %s:%s', conf.vnc.novncproxy_host, server.port)
    return server


def start_serialproxy(conf, db):
    server, _thread = proxy.serve_in_thread(db, 'serial', conf.serial_console.serialproxy_host,
                                            conf.serial_console.serialproxy_port,
                                            conf.console.allowed_origins)
    if conf.serial_console.serialproxy_port == 0:
        conf.set_override('base_url', proxy.base_url_with_port(
            conf.serial_console.base_url, server.port), group='serial_console')
    LOG.info('serial console proxy listening on %s:%s',
             conf.serial_console.serialproxy_host, server.port)
    return server


def start_spicehtml5proxy(conf, db):
    server, _thread = proxy.serve_in_thread(db, 'spice-html5', conf.spice.html5proxy_host,
                                            conf.spice.html5proxy_port,
                                            conf.console.allowed_origins)
    if conf.spice.html5proxy_port == 0:
        conf.set_override('html5proxy_base_url', proxy.base_url_with_port(
            conf.spice.html5proxy_base_url, server.port), group='spice')
    LOG.info('spice-html5 proxy listening on %s:%s', conf.spice.html5proxy_host,
             server.port)
    return server


def start_enabled(conf, db):
    """The proxies of the enabled console types, started."""
    servers = []
    if conf.vnc.enabled:
        servers.append(start_novncproxy(conf, db))
    if conf.spice.enabled:
        servers.append(start_spicehtml5proxy(conf, db))
    if conf.serial_console.enabled:
        servers.append(start_serialproxy(conf, db))
    return servers
