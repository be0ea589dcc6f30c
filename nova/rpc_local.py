"""In-process oslo.messaging driver for the all-in-one: listeners wake when a message arrives."""

import threading
import time

import oslo_messaging as messaging
from oslo_messaging._drivers import base, impl_fake

# How long a listener sleeps between checks of its stop flag when idle; a
# message or a stop() wakes it at once, so this only bounds a lost wake-up.
_IDLE_WAIT = 1.0


class _Exchange(impl_fake.FakeExchange):
    """The fake driver's queues, plus a condition that is notified on every delivery."""

    def __init__(self, name, arrived):
        super().__init__(name)
        self._arrived = arrived

    def deliver_message(self, topic, ctxt, message, server=None, fanout=False,
                        reply_q=None):
        # Take the condition first (listeners check their queues under it),
        # so a delivery can never fall between a listener's check and wait.
        with self._arrived:
            super().deliver_message(topic, ctxt, message, server=server,
                                    fanout=fanout, reply_q=reply_q)
            self._arrived.notify_all()


class _ExchangeManager:
    """Exchanges of one transport only: two all-in-ones in one process stay apart."""

    def __init__(self, default_exchange):
        self._default_exchange = default_exchange
        self._exchanges = {}
        self._lock = threading.Lock()
        self.arrived = threading.Condition()

    def get_exchange(self, name):
        name = name or self._default_exchange
        with self._lock:
            if name not in self._exchanges:
                self._exchanges[name] = _Exchange(name, self.arrived)
            return self._exchanges[name]

    def cleanup(self):
        with self._lock:
            self._exchanges.clear()


class _Listener(base.PollStyleListener):
    """Waits on the manager's condition instead of sleeping 50 ms between polls."""

    def __init__(self, manager, targets, pool=None):
        super().__init__()
        self._manager = manager
        self._targets = targets
        self._pool = pool
        self._stopped = False
        for target in targets:
            manager.get_exchange(target.exchange).ensure_queue(target, pool)

    def _take(self):
        for target in self._targets:
            exchange = self._manager.get_exchange(target.exchange)
            ctxt, message, reply_q, requeue = exchange.poll(target, self._pool)
            if message is not None:
                return impl_fake.FakeIncomingMessage(ctxt, message, reply_q, requeue)
        return None

    @base.batch_poll_helper
    def poll(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        arrived = self._manager.arrived
        with arrived:
            while not self._stopped:
                incoming = self._take()
                if incoming is not None:
                    return incoming
                wait = _IDLE_WAIT
                if deadline is not None:
                    wait = min(wait, deadline - time.monotonic())
                    if wait <= 0:
                        return None
                arrived.wait(wait)
        return None

    def stop(self):
        with self._manager.arrived:
            self._stopped = True
            self._manager.arrived.notify_all()


class LocalDriver(impl_fake.FakeDriver):
    """The fake driver's semantics (JSON-checked messages, in-memory queues) without polling."""

    def __init__(self, conf, url, default_exchange=None, allowed_remote_exmods=None):
        super().__init__(conf, url, default_exchange, allowed_remote_exmods)
        self._exchange_manager = _ExchangeManager(default_exchange)

    def listen(self, target, batch_size, batch_timeout):
        exchange = target.exchange or self._default_exchange
        targets = [messaging.Target(topic=target.topic, server=target.server,
                                    exchange=exchange),
                   messaging.Target(topic=target.topic, exchange=exchange)]
        return base.PollStyleListenerAdapter(
            _Listener(self._exchange_manager, targets), batch_size, batch_timeout)

    def listen_for_notifications(self, targets_and_priorities, pool, batch_size,
                                 batch_timeout):
        targets = [messaging.Target(topic='%s.%s' % (target.topic, priority),
                                    exchange=target.exchange)
                   for target, priority in targets_and_priorities]
        return base.PollStyleListenerAdapter(
            _Listener(self._exchange_manager, targets, pool), batch_size, batch_timeout)


def rpc_transport(conf, url, allowed_remote_exmods):
    """An RPC transport on LocalDriver, built as oslo.messaging builds its own."""
    from oslo_messaging import transport as msg_transport
    conf.register_opts(msg_transport._transport_opts)
    parsed = messaging.TransportURL.parse(conf, url)
    driver = LocalDriver(conf, parsed, default_exchange=conf.control_exchange,
                         allowed_remote_exmods=allowed_remote_exmods)
    return msg_transport.RPCTransport(driver)
