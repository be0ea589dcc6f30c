"""nova-novncproxy: the websocket proxy to the guests' VNC servers."""

from nova import wiring
from nova.cmd import common
from nova.console import service


@common.clean_exit
def main(argv=None):
    conf = common.parse_args(argv)
    # The proxy asks the compute hosts where a token's console is now.
    common.require_broker(conf)
    server = service.start_novncproxy(conf, wiring.database(conf))
    common.wait_for_signal(server.shutdown)
