"""[upgrade_levels] options: cap the RPC versions sent during a rolling upgrade."""

from oslo_config import cfg

GROUP = 'upgrade_levels'

opts = [
    cfg.StrOpt('compute',
               help='Highest compute RPC API version this service sends (for example '
                    '"1.1"), so that not yet upgraded nova-compute services understand '
                    'every message. Unset: the newest version. Lift the pin once every '
                    'nova-compute runs the new release.'),
    cfg.StrOpt('conductor',
               help='Highest conductor RPC API version this service sends (for example '
                    '"1.1"), so that not yet upgraded nova-conductor services understand '
                    'every message. nova-compute needs conductor RPC 1.2 (its database '
                    'access goes through the conductor) and refuses to start below it: '
                    'upgrade the conductors first. Unset: the newest version.'),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
