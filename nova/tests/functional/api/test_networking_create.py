"""Server create against the embedded network endpoint: networks and groups checked first."""

import uuid

import pytest

from nova.conductor import rpcapi as conductor_rpcapi
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'


def neutron(aio, method, path, body=None, token='demo:demo'):
    return aio.request(method, '/v2.0' + path, body, url=aio.network_url, token=token)


@pytest.fixture(scope='module')
def private(aio):
    status, _h, body = neutron(aio, 'GET', '/networks?name=private')
    assert status == 200 and len(body['networks']) == 1, body
    return body['networks'][0]


@pytest.fixture
def specs(monkeypatch):
    """The request specs the API hands the conductor."""
    seen = []
    original = conductor_rpcapi.ConductorAPI.build_instances

    def spy(self, context, instances, request_spec):
        seen.append(request_spec)
        return original(self, context, instances, request_spec)
    monkeypatch.setattr(conductor_rpcapi.ConductorAPI, 'build_instances', spy)
    return seen


def _rows(aio):
    return len(aio.db.instance_get_all({}))


def _refused(aio, body, version, status, message=None, token='demo:demo'):
    before = _rows(aio)
    got, _h, resp = aio.request('POST', '/servers', body, version=version, token=token)
    assert got == status, resp
    if message is not None:
        assert message in next(iter(resp.values()))['message'], resp
    assert _rows(aio) == before
    return resp


def test_omitted_and_empty_networks_boot_alike_before_2_37(aio, image, nano, specs):
    for networks in (None, []):
        extra = {} if networks is None else {'networks': networks}
        status, _h, body = aio.request('POST', '/servers', server_body(
            image, name='old', version='2.36', **extra), version='2.36')
        assert status == 202, body
        assert body['server']['security_groups'] == [{'name': 'default'}]
    assert [s['requested_networks'] for s in specs] == [None, None]
    assert [s['security_groups'] for s in specs] == [['default'], ['default']]


@pytest.mark.parametrize('networks', ['auto', 'none'])
def test_auto_and_none_from_2_37(aio, image, nano, specs, networks):
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, networks=networks), version='2.37')
    assert status == 202, body
    assert specs[-1]['requested_networks'] == networks


def test_a_network_list_reaches_the_request_spec(aio, image, nano, private, specs):
    networks = [{'uuid': private['id'], 'tag': 'nic1'},
                {'uuid': private['id'], 'fixed_ip': '10.78.0.77'}]
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, networks=networks, security_groups=[{'name': 'default'}]), version='2.42')
    assert status == 202, body
    assert specs[-1]['requested_networks'] == networks
    assert specs[-1]['security_groups'] == ['default']
    # Nothing network-specific on the record before the host allocates.
    assert aio.db.instance_get(body['server']['id'])['network_info'] == []


def test_tags_on_networks_need_2_32(aio, image, nano, private):
    _refused(aio, server_body(image, version='2.31',
                              networks=[{'uuid': private['id'], 'tag': 't'}]), '2.31', 400)


@pytest.mark.parametrize('networks,status,message', [
    ([{'uuid': str(uuid.uuid4())}], 400, 'could not be found'),
    ([{'uuid': 'not-a-uuid'}], 400, None),
    ([{'port': str(uuid.uuid4())}], 400, 'could not be found'),
    ([{'fixed_ip': '10.0.0.1'}], 400, None),
    ([{'uuid': 'PRIVATE', 'fixed_ip': '192.168.9.9'}], 400, 'not a valid ip address'),
    ([{'uuid': 'PRIVATE', 'fixed_ip': 'bogus'}], 400, None),
])
def test_bad_networks_are_4xx_before_anything_is_written(aio, image, nano, private, networks,
                                                         status, message):
    for item in networks:
        if item.get('uuid') == 'PRIVATE':
            item['uuid'] = private['id']
    _refused(aio, server_body(image, networks=networks), '2.37', status, message)


def test_a_port_in_use_is_409_and_another_projects_port_400(aio, image, nano, private):
    status, _h, body = neutron(aio, 'POST', '/ports', {'port': {
        'network_id': private['id'], 'device_id': str(uuid.uuid4())}})
    assert status == 201, body
    _refused(aio, server_body(image, networks=[{'port': body['port']['id']}]), '2.37', 409,
             'still in use')
    status, _h, body = neutron(aio, 'POST', '/ports', {'port': {
        'network_id': private['id']}}, token='alt:alt')
    assert status == 201, body
    _refused(aio, server_body(image, networks=[{'port': body['port']['id']}]), '2.37', 400,
             'another project')


def test_a_port_and_several_servers_is_400(aio, image, nano, private):
    status, _h, body = neutron(aio, 'POST', '/ports', {'port': {'network_id': private['id']}})
    assert status == 201, body
    _refused(aio, server_body(image, networks=[{'port': body['port']['id']}], min_count=2),
             '2.37', 400, 'multiple instances')


@pytest.mark.parametrize('groups,message', [
    ([{'name': 'no-such-group'}], 'no-such-group'),
    ([{}], "'name' is a required property"),
])
def test_bad_security_groups_are_400(aio, image, nano, groups, message):
    _refused(aio, server_body(image, security_groups=groups), '2.37', 400, message)


def test_a_projects_own_group_by_name(aio, image, nano, specs):
    status, _h, body = neutron(aio, 'POST', '/security-groups', {'security_group': {
        'name': 'web', 'description': 'w'}})
    assert status == 201, body
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, security_groups=[{'name': 'web'}, {'name': 'web'}]), version='2.37')
    assert status == 202, body
    assert body['server']['security_groups'] == [{'name': 'web'}, {'name': 'web'}]
    assert specs[-1]['security_groups'] == ['web']


def test_the_port_quota_lowers_max_count_or_refuses(aio, image, nano, private, specs):
    status, _h, body = neutron(aio, 'PUT', '/quotas/quota', {'quota': {'port': 2}},
                               token=ADMIN)
    assert status == 200, body
    token = 'quota:quota'
    server = server_body(image, networks=[{'uuid': private['id']}], min_count=1,
                         max_count=5)
    status, _h, body = aio.request('POST', '/servers', dict(server, server=dict(
        server['server'], return_reservation_id=True)), version='2.37', token=token)
    assert status == 202, body
    made = aio.db.instance_get_all({'reservation_id': body['reservation_id']})
    assert len(made) == 2
    server['server']['min_count'] = 3
    _refused(aio, server, '2.37', 403, 'Maximum number of ports exceeded', token=token)
