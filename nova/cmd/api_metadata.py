"""nova-api-metadata: serve the metadata API (what guests read at 169.254.169.254)."""

import logging
import os

from nova import wiring, wsgi_server
from nova.cmd import common, workers

LOG = logging.getLogger(__name__)


def worker_count(conf):
    """[DEFAULT] metadata_workers, or one per CPU when unset (upstream's default)."""
    return conf.metadata_workers or os.cpu_count() or 1


@common.clean_exit
def main(argv=None):
    conf = common.parse_args(argv)
    count = worker_count(conf)

    def build():
        # In each worker: its own database connections.
        return wiring.metadata_app(conf, wiring.database(conf))

    if count == 1:
        server, _thread, url = wsgi_server.serve_in_thread(
            build(), conf.metadata_listen, conf.metadata_listen_port,
            **wsgi_server.options(conf))
        LOG.info('nova-api-metadata serving on %s', url)
        common.wait_for_signal(lambda: server.stop(conf.graceful_shutdown_timeout), conf)
        return 0
    sock = workers.listen(conf.metadata_listen, conf.metadata_listen_port)
    LOG.info('nova-api-metadata serving on %s with %d workers', workers.url(sock), count)
    return workers.Workers(lambda s: workers.serve_app(build, conf, s, 'nova-api-metadata'),
                           sock, count, conf.graceful_shutdown_timeout).run()

