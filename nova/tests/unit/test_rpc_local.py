"""The in-process transport delivers calls and casts without polling, and stops cleanly."""

import threading

import oslo_messaging as messaging
import pytest

from nova import conf as nova_conf
from nova import rpc, rpc_local


class _Endpoint:
    def __init__(self):
        self.cast_seen = threading.Event()

    def echo(self, ctxt, value):
        return value

    def note(self, ctxt):
        self.cast_seen.set()


@pytest.fixture
def served(monkeypatch):
    # An idle listener that only woke on its timer would now sleep 30 s: every
    # assertion below completing quickly proves it wakes on arrival.
    monkeypatch.setattr(rpc_local, '_IDLE_WAIT', 30.0)
    conf = nova_conf.new_config()
    conf([], project='nova')
    conf.set_override('transport_url', 'fake:/')
    endpoint = _Endpoint()
    server = rpc.get_server(conf, 'topic-a', 'host-a', [endpoint])
    server.start()
    yield conf, endpoint, server
    server.stop()
    server.wait()
    rpc.cleanup(conf)


def test_fake_url_uses_the_local_driver(served):
    conf, _endpoint, _server = served
    assert isinstance(rpc.get_transport(conf)._driver, rpc_local.LocalDriver)


def test_calls_and_casts_arrive_without_waiting_for_a_timer(served):
    conf, endpoint, _server = served
    client = rpc.get_client(conf, 'topic-a', '1.0', server='host-a')
    from nova import context
    ctxt = context.get_admin_context()
    for i in range(5):
        assert client.prepare(timeout=5).call(ctxt, 'echo', value=i) == i
    client.cast(ctxt, 'note')
    assert endpoint.cast_seen.wait(5)


def test_stop_wakes_an_idle_listener(served):
    _conf, _endpoint, server = served
    done = threading.Event()

    def stop():
        server.stop()
        server.wait()
        done.set()
    threading.Thread(target=stop, daemon=True).start()
    assert done.wait(5)


def test_two_transports_do_not_hear_each_other(monkeypatch):
    monkeypatch.setattr(rpc_local, '_IDLE_WAIT', 0.05)
    confs = []
    for _ in range(2):
        conf = nova_conf.new_config()
        conf([], project='nova')
        conf.set_override('transport_url', 'fake:/')
        confs.append(conf)
    endpoint = _Endpoint()
    server = rpc.get_server(confs[0], 'topic-b', 'host-b', [endpoint])
    server.start()
    try:
        from nova import context
        client = rpc.get_client(confs[1], 'topic-b', '1.0', server='host-b')
        with pytest.raises(messaging.MessagingTimeout):
            client.prepare(timeout=0.3).call(context.get_admin_context(), 'echo', value=1)
    finally:
        server.stop()
        server.wait()
        for conf in confs:
            rpc.cleanup(conf)
