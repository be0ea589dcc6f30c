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
    server, _thread, url = wsgi_server.serve_in_thread(app, conf.api_listen, conf.api_listen_port)
    LOG.info('nova-api serving on %s', url)
    common.wait_for_signal(server.shutdown)
