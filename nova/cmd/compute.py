"""nova-compute: run the compute manager and libvirt driver on this host."""

from nova import wiring
from nova.cmd import common


def main(argv=None):
    conf = common.parse_args(argv)
    svc = wiring.compute_service(conf, wiring.database(conf))
    svc.start()
    common.wait_for_signal(svc.stop)
