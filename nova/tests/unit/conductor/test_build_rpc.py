"""Builds over real oslo.messaging: no image from RPC 1.6, the old form under a pin."""

import threading
import time

import oslo_messaging as messaging
import pytest

from nova import conf as nova_conf
from nova import context as nova_context
from nova import rpc
from nova.compute import manager as compute_manager
from nova.compute import rpcapi as compute_rpcapi
from nova.conductor import manager as conductor_manager
from nova.conductor import rpcapi as conductor_rpcapi
from nova.db import api as db_api
from nova.image import sysmeta
from nova.objects import instance as instance_obj

# The effective image (boot-time overrides merged) as compute.api writes it.
IMAGE = {'min_ram': '0', 'properties': {'hw_architecture': 'x86_64', 'hw_disk_bus': 'scsi'}}
UUID = '6f0d0c39-3a35-4c1e-9a3c-6d2f3b1f1b0e'
FLAVOR = {'id': 1, 'flavorid': '1', 'name': 'm1', 'vcpus': 1, 'memory_mb': 64, 'root_gb': 1,
          'ephemeral_gb': 0, 'swap': 0, 'extra_specs': {}}


def _conf(**pins):
    conf = nova_conf.new_config()
    conf.set_override('transport_url', 'fake:/')
    conf.set_override('host', 'h1')
    for topic, pin in pins.items():
        conf.set_override(topic, pin, group='upgrade_levels')
    return conf


def _instance(db=None):
    values = dict(project_id='p', user_id='u', vm_state='building', task_state='scheduling',
                  flavor=FLAVOR, system_metadata=dict(sysmeta.properties_to_sysmeta(IMAGE),
                                                      pinned_az=''),
                  created_at=db_api._now())
    if db is None:
        return instance_obj.Instance.from_db(dict(values, uuid=UUID))
    return instance_obj.Instance.from_db(db.instance_create(values))



class _Listener:
    """A service of another release: ``method`` with the arguments it had there."""

    def __init__(self, version):
        self.target = messaging.Target(version=version)
        self.calls = []
        self.arrived = threading.Event()

    def _record(self, **kwargs):
        self.calls.append(kwargs)
        self.arrived.set()


class _ComputeBefore16(_Listener):
    def build_and_run_instance(self, context, instance, image, request_spec,
                               admin_password=None):
        self._record(instance=instance, image=image, request_spec=request_spec)


class _ConductorBefore16(_Listener):
    def build_instances(self, context, instances, image, request_spec):
        self._record(instances=instances, image=image, request_spec=request_spec)


class _AnyArguments(_Listener):
    def build_and_run_instance(self, context, **kwargs):
        self._record(**kwargs)

    def build_instances(self, context, **kwargs):
        self._record(**kwargs)


@pytest.fixture
def serve():
    started = []

    def start(conf, topic, server, endpoints):
        rpcserver = rpc.get_server(conf, topic, server, endpoints)
        rpcserver.start()
        started.append((rpcserver, conf))
    yield start
    # Each stop waits out its listener's poll: stop them side by side.
    stops = [threading.Thread(target=rpcserver.stop) for rpcserver, _conf in started]
    for thread in stops:
        thread.start()
    for thread in stops:
        thread.join()
    for rpcserver, conf in started:
        rpcserver.wait()
        rpc.cleanup(conf)


def _wait_for(check, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, 'nothing arrived'
        time.sleep(0.01)


# -- conductor -> compute: build_and_run_instance ----------------------------------------
def test_compute_client_sends_no_image(serve):
    conf = _conf()
    host = _AnyArguments('1.6')
    serve(conf, compute_rpcapi.TOPIC, 'h1', [host])
    compute_rpcapi.ComputeAPI(conf).build_and_run_instance(
        nova_context.get_admin_context(), _instance(), 'h1', {'flavor': '1'})
    assert host.arrived.wait(5)
    assert sorted(host.calls[0]) == ['admin_password', 'instance', 'request_spec']


def test_compute_client_pinned_below_1_6_sends_the_image_older_hosts_require(serve):
    conf = _conf(compute='1.5')
    host = _ComputeBefore16('1.5')
    serve(conf, compute_rpcapi.TOPIC, 'h1', [host])
    compute_rpcapi.ComputeAPI(conf).build_and_run_instance(
        nova_context.get_admin_context(), _instance(), 'h1', {'flavor': '1'})
    assert host.arrived.wait(5)
    assert host.calls[0]['image'] == IMAGE


def test_a_1_6_host_builds_from_either_form(serve, monkeypatch):
    conf = _conf()
    mgr = compute_manager.ComputeManager(conf, db=None, driver=None)
    built = []
    monkeypatch.setattr(mgr.build, '_build', lambda context, instance, admin_password,
                        injected_files=None, **_networks: built.append((instance.uuid,
                                                                        injected_files)))
    serve(conf, compute_rpcapi.TOPIC, 'h1', mgr.endpoints)
    for pin in (None, '1.5'):     # 1.6 without image, 1.0 with it
        conf.set_override('compute', pin, group='upgrade_levels')
        built.clear()
        compute_rpcapi.ComputeAPI(conf).build_and_run_instance(
            nova_context.get_admin_context(), _instance(), 'h1',
            {'injected_files': [['/f', 'eA==']]})
        _wait_for(lambda: built)
        assert built == [(UUID, [['/f', 'eA==']])]


# -- compute API -> conductor: build_instances ---------------------------------------------
def test_conductor_client_sends_no_image(serve):
    conf = _conf()
    conductor = _AnyArguments('1.6')
    serve(conf, conductor_rpcapi.TOPIC, 'c1', [conductor])
    conductor_rpcapi.ConductorAPI(conf).build_instances(
        nova_context.get_admin_context(), [_instance()], {'flavor': '1'})
    assert conductor.arrived.wait(5)
    assert sorted(conductor.calls[0]) == ['instances', 'request_spec']


def test_conductor_client_pinned_below_1_6_sends_the_image_older_conductors_filter_on(serve):
    conf = _conf(conductor='1.5')
    conductor = _ConductorBefore16('1.5')
    serve(conf, conductor_rpcapi.TOPIC, 'c1', [conductor])
    conductor_rpcapi.ConductorAPI(conf).build_instances(
        nova_context.get_admin_context(), [_instance(), _instance()], {'flavor': '1'})
    assert conductor.arrived.wait(5)
    assert conductor.calls[0]['image'] == IMAGE
    assert [i.uuid for i in conductor.calls[0]['instances']] == [UUID, UUID]


def test_a_1_6_conductor_filters_hosts_on_the_instances_image_properties(db, serve):
    """Either form: the x86_64 server lands on the x86_64 host, never the i686 one."""
    conf = _conf()
    for host, arch, ram in (('i686-host', 'i686', 8192), ('x86-host', 'x86_64', 2048)):
        db.service_heartbeat(host, 'nova-compute')
        db.compute_node_update(host, {'hypervisor_hostname': host, 'vcpus': 8,
                                      'memory_mb': ram, 'local_gb': 100,
                                      'capabilities': {'arch': arch}})
    hosts = {host: _AnyArguments('1.6') for host in ('i686-host', 'x86-host')}
    for host, endpoint in hosts.items():
        serve(conf, compute_rpcapi.TOPIC, host, [endpoint])
    mgr = conductor_manager.ConductorManager(conf, db, compute_rpcapi.ComputeAPI(conf))
    serve(conf, conductor_rpcapi.TOPIC, 'c1', mgr.endpoints)
    for pin in (None, '1.5'):     # 1.6 without image, 1.0 with it
        conf.set_override('conductor', pin, group='upgrade_levels')
        hosts['x86-host'].calls.clear()
        instance = _instance(db)
        conductor_rpcapi.ConductorAPI(conf).build_instances(
            nova_context.get_admin_context(), [instance], {'flavor': '1'})
        _wait_for(lambda: hosts['x86-host'].calls)
        assert hosts['x86-host'].calls[0]['instance'].uuid == instance.uuid
        assert hosts['i686-host'].calls == []
        assert db.instance_get(instance.uuid)['host'] == 'x86-host'
