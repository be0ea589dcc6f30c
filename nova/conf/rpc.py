"""RPC options: oslo.messaging transport settings plus our topics and timeouts."""

import oslo_messaging as messaging

opts = []


def register_opts(conf):
    conf.register_opts(opts)
    messaging.set_transport_defaults('nova')
    # get_transport registers transport_url and the driver options lazily;
    # registering here lets the sample generator and config files see them.
    from oslo_messaging import opts as msg_opts
    for group, group_opts in msg_opts.list_opts():
        conf.register_opts(list(group_opts), group=group)
    # The RPC client reads the tracing and metrics groups, which
    # oslo.messaging registers only on the global CONF; tests and tools use
    # their own ConfigOpts.
    from oslo_messaging._metrics import client as metrics
    from oslo_messaging._tracing import client as tracing
    conf.register_opts(tracing.oslo_messaging_tracing, group='oslo_messaging_tracing')
    conf.register_opts(metrics.oslo_messaging_metrics, group='oslo_messaging_metrics')


def list_opts():
    # oslo.messaging's own options travel in our namespace: its entry point
    # imports oslo.service before nova could pick the threading backend, which
    # fails in a virtualenv without eventlet (the stock generator loads
    # namespaces in installation order, not in the order given).
    from oslo_messaging import opts as msg_opts
    groups = {'DEFAULT': list(opts)}
    for group, group_opts in msg_opts.list_opts():
        groups.setdefault(group or 'DEFAULT', []).extend(group_opts)
    return groups
