"""RPC options: oslo.messaging transport settings plus our topics and timeouts."""

import oslo_messaging as messaging

opts = []


def register_opts(conf):
    conf.register_opts(opts)
    messaging.set_transport_defaults('nova')
    # get_transport registers transport_url lazily; registering it here lets
    # the services read it first. A driver's own group ([oslo_messaging_rabbit],
    # [oslo_messaging_kafka]) is registered by that driver when a transport
    # loads it: importing it here would keep kombu, amqp and yaml resident in
    # every process, the all-in-one (in-process transport) included.
    for group, group_opts in _library_opts():
        conf.register_opts(list(group_opts), group=group)
    # The RPC client reads the tracing and metrics groups, which
    # oslo.messaging registers only on the global CONF; tests and tools use
    # their own ConfigOpts.
    from oslo_messaging._metrics import client as metrics
    from oslo_messaging._tracing import client as tracing
    conf.register_opts(tracing.oslo_messaging_tracing, group='oslo_messaging_tracing')
    conf.register_opts(metrics.oslo_messaging_metrics, group='oslo_messaging_metrics')


def _library_opts():
    """oslo.messaging's options outside the broker drivers' groups."""
    import itertools

    from oslo_messaging import server, transport
    from oslo_messaging.notify import notifier
    from oslo_messaging.rpc import client, dispatcher
    return [(None, list(itertools.chain(server._pool_opts, client._client_opts,
                                        transport._transport_opts,
                                        dispatcher._dispatcher_opts))),
            ('oslo_messaging_notifications', list(notifier._notifier_opts))]


def list_opts():
    # oslo.messaging's own options travel in our namespace: its entry point
    # imports oslo.service before nova could pick the threading backend, which
    # fails in a virtualenv without eventlet (the stock generator loads
    # namespaces in installation order, not in the order given).
    from oslo_messaging import opts as msg_opts
    groups = {'DEFAULT': list(opts)}
    for group, group_opts in msg_opts.list_opts():
        if group in UNSUPPORTED_GROUPS:
            continue
        groups.setdefault(group or 'DEFAULT', []).extend(group_opts)
    return groups


# oslo.messaging's Kafka driver needs confluent-kafka, which the service does
# not install: its options would do nothing, so the sample leaves them out.
UNSUPPORTED_GROUPS = ('oslo_messaging_kafka',)
