"""RPC servers add worker threads only when the ones they have are busy, up to the cap."""

import threading
from concurrent import futures

import pytest

from nova import conf as nova_conf
from nova import context, rpc


class _Endpoint:
    def __init__(self, parties):
        self.barrier = threading.Barrier(parties, timeout=10)

    def echo(self, ctxt, value):
        return value

    def meet(self, ctxt):
        # Returns only once ``parties`` calls are running at the same time.
        return self.barrier.wait()


@pytest.fixture
def served():
    conf = nova_conf.new_config()
    conf([], project='nova')
    conf.set_override('transport_url', 'fake:/')
    conf.set_override('executor_thread_pool_size', 16)
    endpoint = _Endpoint(parties=4)
    before = threading.active_count()
    server = rpc.get_server(conf, 'topic-w', 'host-w', [endpoint])
    server.start()
    client = rpc.get_client(conf, 'topic-w', '1.0', server='host-w').prepare(timeout=10)
    yield client, before
    server.stop()
    server.wait()
    rpc.cleanup(conf)


def test_calls_one_at_a_time_keep_few_threads(served):
    client, before = served
    ctxt = context.get_admin_context()
    for i in range(40):
        assert client.call(ctxt, 'echo', value=i) == i
    # The listener plus a worker or two, not one thread per message (16).
    assert threading.active_count() - before <= 4


def test_concurrent_calls_still_run_in_parallel(served):
    client, _before = served
    ctxt = context.get_admin_context()
    with futures.ThreadPoolExecutor(4) as pool:
        calls = [pool.submit(client.call, ctxt, 'meet') for _ in range(4)]
        assert sorted(c.result(timeout=20) for c in calls) == [0, 1, 2, 3]
