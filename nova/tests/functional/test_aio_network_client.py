"""nova.network's Neutron client against the all-in-one's own network endpoint, as to Neutron."""

import uuid

import pytest

from nova import context as nova_context
from nova import exception
from nova.network import model
from nova.network import neutron as network_neutron
from nova.tests.functional import fixtures


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    running = fixtures.RunningAio(tmp_path_factory.mktemp('aio-net-client') / 'state')
    running.api = network_neutron.NetworkAPI(running.conf)
    yield running
    running.stop()


def _ctx(project):
    return nova_context.RequestContext(user_id=project, project_id=project,
                                       auth_token='%s:%s' % (project, project),
                                       roles=['member', 'reader'], overwrite=False)


def _server(project, hostname='vm-a'):
    return {'uuid': str(uuid.uuid4()), 'project_id': project, 'hostname': hostname,
            'availability_zone': 'nova', 'host': 'testhost', 'network_info': []}


def test_the_compute_service_is_pointed_at_the_endpoint(cloud):
    assert network_neutron.configured(cloud.conf)


def test_validate_finds_the_shared_default_network(cloud):
    # The shared default network is the project's only one: no --nic needed.
    assert cloud.api.validation.validate_networks(_ctx('demo3'), None, 1) == 1


def test_allocate_bind_and_deallocate_on_the_default_network(cloud):
    ctx = _ctx('demo')
    inst = _server('demo')
    nw_info = cloud.api.ports.allocate_for_instance(ctx, inst, None, bind_host_id='testhost')
    (vif,) = nw_info
    assert vif['type'] == 'tap' and vif['devname'] == model.devname(vif['id'])
    assert vif['details']['bridge_name'] == 'br-aio'
    assert vif['details']['mac_address'] == 'fe' + vif['address'][2:]
    assert vif['network']['label'] == 'private'
    assert vif['network']['meta']['mtu'] == 1500
    (address,) = [ip['address'] for ip in model.fixed_ips(vif)]
    assert address.startswith('10.78.0.')
    # Bound, and (no data plane in this test) up at once.
    status, _h, body = cloud.request('GET', '/v2.0/ports/' + vif['id'], url=cloud.network_url,
                                     token='admin:admin')
    port = body['port']
    assert port['device_id'] == inst['uuid'] and port['device_owner'] == 'compute:nova'
    assert port['binding:host_id'] == 'testhost' and port['status'] == 'ACTIVE'
    assert port['dns_name'] == 'vm-a' and port['tenant_id'] == 'demo'
    inst['network_info'] = nw_info
    assert cloud.api.info.build(ctx, inst) == nw_info
    cloud.api.ports.deallocate_for_instance(ctx, inst)
    status, _h, body = cloud.request('GET', '/v2.0/ports/' + vif['id'], url=cloud.network_url,
                                     token='admin:admin')
    assert status == 404


def test_refusals_arrive_as_nova_exceptions(cloud):
    ctx = _ctx('demo2')
    status, _h, body = cloud.request('GET', '/v2.0/networks', url=cloud.network_url,
                                     token='admin:admin')
    default = body['networks'][0]['id']
    # A member may not pick an address on a network it does not own.
    with pytest.raises(exception.Forbidden, match=r'create_port:fixed_ips:ip_address\) '
                                                  'is disallowed by policy'):
        cloud.api.ports.allocate_for_instance(
            ctx, _server('demo2'), [{'uuid': default, 'fixed_ip': '10.78.0.99'}],
            bind_host_id='testhost')
    status, _h, body = cloud.request('GET', '/v2.0/ports?tenant_id=demo2',
                                     url=cloud.network_url, token='admin:admin')
    assert body['ports'] == []
