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
    try:
        svc.start()
    except exception.HostNotAuthenticated as exc:
        # The start-up wait is the first signed call: a wrong key ends here.
        raise common.StartupError(
            'nova-conductor refused this host: %s Check [conductor] host_key_file against '
            'the key the conductors hold for host %s.' % (exc.format_message(), conf.host)
        ) from None
    common.wait_for_signal(svc.stop)
