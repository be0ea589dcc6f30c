"""nova-compute's database calls over real oslo.messaging, and the [upgrade_levels] pins."""

import datetime
import threading

import oslo_messaging as messaging
import pytest

from nova import conf as nova_conf
from nova import context as nova_context
from nova import exception, rpc, wiring
from nova.compute import rpcapi as compute_rpcapi
from nova.conductor import manager
from nova.conductor import rpcapi as conductor_rpcapi
from nova.objects import instance as instance_obj


def _conf(**pins):
    conf = nova_conf.new_config()
    conf.set_override('transport_url', 'fake:/')
    conf.set_override('host', 'h1')
    for topic, pin in pins.items():
        conf.set_override(topic, pin, group='upgrade_levels')
    return conf


@pytest.fixture
def conductor(db):
    conf = _conf()
    mgr = manager.ConductorManager(conf, db, compute_rpcapi.ComputeAPI(conf))
    server = rpc.get_server(conf, conductor_rpcapi.TOPIC, 'conductor-1', mgr.endpoints)
    server.start()
    yield conf
    server.stop()
    server.wait()
    rpc.cleanup(conf)


def _server(db, host='h1'):
    return db.instance_create(dict(project_id='p', user_id='u', vm_state='active',
                                   task_state=None, host=host, node=host))['uuid']


def test_rows_datetimes_and_errors_cross_the_wire(db, conductor):
    compute = wiring.compute_db(conductor)
    compute.wait_until_ready(timeout=10)
    uuid = _server(db)
    when = datetime.datetime(2026, 1, 2, 3, 4, 5)
    row = compute.instance_update(uuid, {'launched_at': when, 'task_state': None},
                                  expected_task_state=[None])
    assert row['launched_at'] == when and isinstance(row['created_at'], datetime.datetime)
    assert db.instance_get(uuid)['launched_at'] == when
    # The manager catches these by class: they must arrive as such.
    with pytest.raises(exception.UnexpectedTaskStateError):
        compute.instance_update(uuid, {'task_state': 'x'}, expected_task_state=['rebooting'])
    with pytest.raises(exception.InstanceNotFound):
        compute.instance_get('00000000-0000-0000-0000-000000000000')
    with pytest.raises(exception.HostNotAuthorized):
        compute.instance_update(_server(db, 'h2'), {'vm_state': 'error'})
    ctx = nova_context.RequestContext(user_id='u', project_id='p', request_id='req-rpc')
    action = compute.action_start(ctx, uuid, 'stop')
    assert db.actions_get(uuid)[0]['request_id'] == 'req-rpc'
    compute.event_finish(compute.event_start(uuid, 'req-rpc', 'compute_stop_instance'),
                         'Success')
    assert db.events_get(action)[0]['result'] == 'Success'


def test_a_client_pinned_below_1_2_never_sends_compute_db(db, conductor):
    uuid = _server(db)
    pinned = conductor_rpcapi.ConductorAPI(_conf(conductor='1.1'))
    assert not pinned.can_serve_compute_db()
    with pytest.raises(exception.RPCVersionPinned, match=r'conductor RPC 1\.2.*pins it to 1\.1'):
        pinned.compute_db(nova_context.get_admin_context(), 'h1', 'instance_update',
                          [uuid, {'vm_state': 'error'}], {})
    assert db.instance_get(uuid)['vm_state'] == 'active'
    # nova-compute itself refuses to be built against such a pin.
    with pytest.raises(exception.RPCVersionPinned):
        wiring.compute_db(_conf(conductor='1.1'))
    # Pinned at 1.2 or above, it works.
    assert conductor_rpcapi.ConductorAPI(_conf(conductor='1.2')).can_serve_compute_db()


class _Compute:
    target = messaging.Target(version='1.2')

    def __init__(self):
        self.seen = []
        self.arrived = threading.Event()

    def build_and_run_instance(self, context, **kwargs):
        self.seen.append('build_and_run_instance')
        self.arrived.set()

    def prep_resize(self, context, **kwargs):
        self.seen.append('prep_resize')


def test_a_compute_client_pinned_to_1_1_sends_1_0_messages_but_not_resize():
    conf = _conf(compute='1.1')
    endpoint = _Compute()
    server = rpc.get_server(conf, compute_rpcapi.TOPIC, 'h1', [endpoint])
    server.start()
    try:
        client = compute_rpcapi.ComputeAPI(conf)
        ctx = nova_context.get_admin_context()
        with pytest.raises(messaging.RPCVersionCapError):
            client.prep_resize(ctx, None, 'h1', 1)
        client.build_and_run_instance(ctx, instance_obj.Instance(system_metadata={}), 'h1',
                                      {})
        assert endpoint.arrived.wait(5)
        assert endpoint.seen == ['build_and_run_instance']
    finally:
        server.stop()
        server.wait()
        rpc.cleanup(conf)
