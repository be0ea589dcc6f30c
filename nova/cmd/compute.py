"""nova-compute: run the compute manager and libvirt driver on this host (no database)."""

from nova import exception, wiring
from nova.cmd import common


@common.clean_exit
def main(argv=None):
    conf = common.parse_args(argv)
    common.require_broker(conf)
    # Instance disks live there: find out now, not at the first build.
    common.require_writable_paths(conf)
    try:
        # Every database access goes through nova-conductor: no [database] here.
        svc = wiring.compute_service(conf)
    except exception.RPCVersionPinned as exc:
        raise common.StartupError(exc.format_message()) from None
    svc.start()
    common.wait_for_signal(svc.stop)
