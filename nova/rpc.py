"""oslo.messaging plumbing: transports, serializer carrying the context, servers, clients."""

import logging
import sys

import futurist
import oslo_messaging as messaging

from nova import context as nova_context
from nova import outage
from nova.objects import base as obj_base

LOG = logging.getLogger(__name__)


class RequestContextSerializer(messaging.Serializer):
    """Serialises objects in payloads and the RequestContext beside them."""

    def __init__(self):
        self._base = obj_base.NovaObjectSerializer()

    def serialize_entity(self, context, entity):
        return self._base.serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        return self._base.deserialize_entity(context, entity)

    def serialize_context(self, context):
        return context.to_dict()

    def deserialize_context(self, context):
        # Called in the worker thread that handles this message: make its
        # context the thread's current one, so every line logged while
        # handling it carries this request's ids, not those of the first
        # message the (reused) thread ever handled.
        ctx = nova_context.RequestContext.from_dict(context)
        ctx.update_store()
        return ctx


_TRANSPORTS = {}
# Exceptions raised by a remote service that callers may catch by class
# (e.g. a compute host refusing a rescue with exception.Invalid -> 400).
ALLOWED_EXMODS = ['nova.exception']


def get_transport(conf):
    """One transport per configuration: the in-process fake driver only
    connects clients and servers that share it, and two all-in-one instances
    in one test process must not hear each other."""
    key = (id(conf), conf.transport_url or 'fake:/')
    if key not in _TRANSPORTS:
        if key[1].split(':', 1)[0] == 'fake':
            # In-process: the same queues as oslo.messaging's fake driver, but
            # listeners wake on arrival instead of polling every 50 ms.
            from nova import rpc_local
            _TRANSPORTS[key] = rpc_local.rpc_transport(conf, key[1], ALLOWED_EXMODS)
        else:
            _TRANSPORTS[key] = messaging.get_rpc_transport(
                conf, url=key[1], allowed_remote_exmods=ALLOWED_EXMODS)
    return _TRANSPORTS[key]


def amqp_errors():
    """The AMQP client's own error classes, once the rabbit driver has loaded it.

    oslo.messaging lets them through when the broker refuses a new
    connection (a virtual host the user may not open: NOT_ALLOWED; a refused
    login). In-process messaging never loads them, so they are looked up,
    not imported.
    """
    found = []
    for module, name in (('amqp.exceptions', 'AMQPError'), ('kombu.exceptions', 'KombuError')):
        if module in sys.modules:
            found.append(getattr(sys.modules[module], name))
    return tuple(found)


def cleanup(conf):
    for key in [k for k in _TRANSPORTS if k[0] == id(conf)]:
        _TRANSPORTS.pop(key).cleanup()
    from nova.notifications import notifier
    notifier.cleanup(conf)


def get_client(conf, topic, version, server=None, version_cap=None):
    """A client of ``topic``; ``version_cap`` (an [upgrade_levels] pin) bounds what it sends."""
    target = messaging.Target(topic=topic, version=version, server=server)
    return messaging.get_rpc_client(get_transport(conf), target, version_cap=version_cap or None,
                                    serializer=RequestContextSerializer())


def get_server(conf, topic, server, endpoints):
    target = messaging.Target(topic=topic, server=server)
    # A handler failing while the database restarts is said once, not with a
    # traceback per message; the caller still gets the error.
    outage_log = outage.OutageLog(LOG, 'RPC server %s' % topic)
    endpoints = [outage.quiet_endpoint(endpoint, outage_log) for endpoint in endpoints]
    # Threads are oslo.messaging's only executor now; no argument needed.
    rpcserver = messaging.get_rpc_server(get_transport(conf), target, endpoints,
                                         serializer=RequestContextSerializer())
    # oslo.messaging's threading executor (futurist.ThreadPoolExecutor) starts
    # a thread for every message until executor_thread_pool_size are running,
    # even when the earlier ones sit idle. futurist's dynamic pool has the same
    # cap but adds a thread only when most of its threads are busy. The class
    # is read when the server starts; oslo.messaging has no option for it.
    dynamic = getattr(futurist, 'DynamicThreadPoolExecutor', None)
    if dynamic and getattr(rpcserver, '_executor_cls', None) is futurist.ThreadPoolExecutor:
        rpcserver._executor_cls = dynamic
    return rpcserver
