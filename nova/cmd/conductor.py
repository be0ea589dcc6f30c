"""nova-conductor: schedule and orchestrate builds."""

from nova import wiring
from nova.cmd import common


@common.clean_exit
def main(argv=None):
    conf = common.parse_args(argv)
    common.require_broker(conf)
    svc = wiring.conductor_service(conf, wiring.database(conf))
    svc.start()
    common.wait_for_signal(svc.stop)
