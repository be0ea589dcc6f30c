"""RPC options: oslo.messaging transport settings plus our topics and timeouts."""

import oslo_messaging as messaging
from oslo_config import cfg

opts = [
    cfg.StrOpt('rpc_executor', default='threading', choices=['threading'],
               help='oslo.messaging executor; only threads are supported.'),
    cfg.IntOpt('rpc_workers', default=8, min=1,
               help='Threads serving RPC requests in one service.'),
]


def register_opts(conf):
    conf.register_opts(opts)
    messaging.set_transport_defaults('nova')
    # get_transport registers transport_url and the driver options lazily;
    # registering here lets the sample generator and config files see them.
    from oslo_messaging import opts as msg_opts
    for group, group_opts in msg_opts.list_opts():
        conf.register_opts(list(group_opts), group=group)


def list_opts():
    return {'DEFAULT': opts}
