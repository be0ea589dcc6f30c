"""nova-api: serve the compute API over HTTP."""

import logging

from nova import wiring, wsgi_server
from nova.cmd import common

LOG = logging.getLogger(__name__)


@common.clean_exit
def main(argv=None):
    conf = common.parse_args(argv)
    common.require_broker(conf)
    db = wiring.database(conf)
    app = wiring.api_app(conf, db)
    server, _thread, url = wsgi_server.serve_in_thread(
        app, conf.api_listen, conf.api_listen_port, **wsgi_server.options(conf))
    LOG.info('nova-api serving on %s (at most %d connections at once)', url,
             conf.wsgi.default_pool_size)

    def stop():
        # New connections are refused at once; requests in flight finish.
        LOG.info('nova-api stopping: finishing %d connection(s) '
                 '(graceful_shutdown_timeout %ss)', server.in_flight(),
                 conf.graceful_shutdown_timeout)
        server.stop(conf.graceful_shutdown_timeout)
    common.wait_for_signal(stop, conf)
