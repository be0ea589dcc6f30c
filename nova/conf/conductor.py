"""[conductor] options: how the conductor knows which compute host calls it."""

from oslo_config import cfg

GROUP = 'conductor'

opts = [
    cfg.StrOpt('host_keys_dir',
               help='Conductor nodes: a directory holding one key file per compute host, '
                    'named after the host ([DEFAULT] host of its nova-compute), readable '
                    'only by nova-conductor. When set, the conductor serves a compute '
                    "host's database calls only when that host's key signed them (HMAC-"
                    'SHA256, fresh, never replayed); a host without a key file is refused. '
                    'Unset: the conductor trusts the host named in each message and warns '
                    'at start (unless messaging is in-process, as in the all-in-one). '
                    'Create keys with "nova-manage conductor host-key create".'),
    cfg.StrOpt('host_key_file',
               help="Compute nodes: the file holding this host's own key (the one the "
                    'conductors hold under its name in host_keys_dir), mode 0600. When '
                    'set, nova-compute signs each of its database calls with it (needs '
                    'conductor RPC 1.3: an [upgrade_levels] conductor pin below it sends '
                    'the calls unsigned).'),
    cfg.IntOpt('host_signature_window', default=300, min=10,
               help='Conductor nodes: how many seconds a signed call stays valid, either '
                    'side of the conductor clock (keep the hosts NTP-synchronised). Calls '
                    'are remembered this long so that none is served twice.'),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
