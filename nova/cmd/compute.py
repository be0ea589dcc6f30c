"""nova-compute: run the compute manager and libvirt driver on this host."""

from nova import wiring
from nova.cmd import common


@common.clean_exit
def main(argv=None):
    conf = common.parse_args(argv)
    common.require_broker(conf)
    # Instance disks live there: find out now, not at the first build.
    common.require_writable_paths(conf)
    svc = wiring.compute_service(conf, wiring.database(conf))
    svc.start()
    common.wait_for_signal(svc.stop)
