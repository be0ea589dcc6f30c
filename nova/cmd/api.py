"""nova-api: serve the compute API and the metadata API, as [DEFAULT] enabled_apis says."""

import logging

from nova import wiring, wsgi_server
from nova.cmd import common

LOG = logging.getLogger(__name__)


@common.clean_exit
def main(argv=None):
    conf = common.parse_args(argv)
    apis = set(conf.enabled_apis)
    if not apis:
        raise common.StartupError('[DEFAULT] enabled_apis names nothing to serve '
                                  '(osapi_compute, metadata)')
    if 'osapi_compute' in apis:
        common.require_broker(conf)
    db = wiring.database(conf)
    servers = []
    if 'osapi_compute' in apis:
        server, _thread, url = wsgi_server.serve_in_thread(
            wiring.api_app(conf, db), conf.api_listen, conf.api_listen_port,
            **wsgi_server.options(conf))
        servers.append(server)
        LOG.info('nova-api serving on %s (at most %d connections at once)', url,
                 conf.wsgi.default_pool_size)
    if 'metadata' in apis:
        server, _thread, url = wsgi_server.serve_in_thread(
            wiring.metadata_app(conf, db), conf.metadata_listen, conf.metadata_listen_port,
            **wsgi_server.options(conf))
        servers.append(server)
        LOG.info('nova-api serving the metadata API on %s', url)

    def stop():
        # New connections are refused at once; requests in flight finish.
        LOG.info('nova-api stopping: finishing %d connection(s) '
                 '(graceful_shutdown_timeout %ss)',
                 sum(s.in_flight() for s in servers), conf.graceful_shutdown_timeout)
        for server in servers:
            server.stop(conf.graceful_shutdown_timeout)
    common.wait_for_signal(stop, conf)
