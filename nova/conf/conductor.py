"""[conductor] options of the build orchestrator."""

from oslo_config import cfg

GROUP = 'conductor'

opts = [
    cfg.IntOpt('workers', default=1, min=1,
               help='RPC executor threads of nova-conductor.'),
    cfg.IntOpt('build_retries', default=2, min=0,
               help='How many other hosts to try when a build fails on the '
                    'chosen host.'),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
