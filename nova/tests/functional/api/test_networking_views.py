"""Addresses and security groups in server views, /ips and os-interface (embedded network)."""

import uuid

import pytest

from nova.compute import rpcapi as compute_rpcapi
from nova.network import model
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'


def neutron(aio, method, path, body=None, token='demo:demo'):
    return aio.request(method, '/v2.0' + path, body, url=aio.network_url, token=token)


@pytest.fixture(scope='module')
def private(aio):
    status, _h, body = neutron(aio, 'GET', '/networks?name=private')
    assert status == 200, body
    return body['networks'][0]


def _server(aio, image, name='net'):
    status, _h, body = aio.request('POST', '/servers', server_body(image, name=name),
                                   version='2.37')
    assert status == 202, body
    return aio.wait_for_status(body['server']['id'], ('ACTIVE',))['id']


def _port(aio, net, device_id=None, **extra):
    values = dict(network_id=net['id'], **extra)
    if device_id:
        values.update(device_id=device_id, device_owner='compute:nova')
    status, _h, body = neutron(aio, 'POST', '/ports', {'port': values})
    assert status == 201, body
    return body['port']


def _vif(port, label, floating=(), tag=None):
    ips = [model.fixed_ip(ip['ip_address'], floating_ips=floating)
           for ip in port['fixed_ips']]
    meta = {'tag': tag} if tag else {}
    return model.vif(port['id'], address=port['mac_address'], type='tap',
                     network=model.network(id=port['network_id'], label=label,
                                           subnets=[model.subnet('10.78.0.0/24', ips=ips)]),
                     devname=model.devname(port['id']), **meta)


@pytest.fixture(scope='module')
def wired(aio, image, nano, private):
    """A server with a port on 'private' (with a floating address in its cache)."""
    uuid_ = _server(aio, image)
    port = _port(aio, private, device_id=uuid_)
    aio.db.instance_update(uuid_, {'network_info': [
        _vif(port, 'private', floating=['172.24.4.10'], tag='nic0')]})
    return uuid_, port


def test_addresses_in_show_detail_and_ips(aio, wired):
    uuid_, port = wired
    fixed = port['fixed_ips'][0]['ip_address']
    want = {'private': [
        {'version': 4, 'addr': fixed, 'OS-EXT-IPS:type': 'fixed',
         'OS-EXT-IPS-MAC:mac_addr': port['mac_address']},
        {'version': 4, 'addr': '172.24.4.10', 'OS-EXT-IPS:type': 'floating',
         'OS-EXT-IPS-MAC:mac_addr': port['mac_address']}]}
    for version in ('2.1', '2.37', '2.104'):
        status, _h, body = aio.request('GET', '/servers/%s' % uuid_, version=version)
        assert status == 200 and body['server']['addresses'] == want, body
    status, _h, body = aio.request('GET', '/servers/detail', version='2.37')
    mine = [s for s in body['servers'] if s['id'] == uuid_]
    assert mine[0]['addresses'] == want
    status, _h, body = aio.request('GET', '/servers/%s/ips' % uuid_)
    plain = [{'version': 4, 'addr': fixed}, {'version': 4, 'addr': '172.24.4.10'}]
    assert status == 200 and body == {'addresses': {'private': plain}}
    status, _h, body = aio.request('GET', '/servers/%s/ips/private' % uuid_)
    assert status == 200 and body == {'private': plain}
    status, _h, body = aio.request('GET', '/servers/%s/ips/public' % uuid_)
    assert status == 404, body


def test_a_building_server_shows_no_addresses(aio, wired):
    uuid_ = wired[0]
    aio.db.instance_update(uuid_, {'vm_state': 'building'})
    try:
        status, _h, body = aio.request('GET', '/servers/%s' % uuid_)
        assert body['server']['addresses'] == {}
    finally:
        aio.db.instance_update(uuid_, {'vm_state': 'active'})


def test_security_groups_of_the_ports_in_views(aio, wired, image, nano):
    uuid_ = wired[0]
    status, _h, body = aio.request('GET', '/servers/%s' % uuid_)
    assert body['server']['security_groups'] == [{'name': 'default'}]
    status, _h, body = aio.request('GET', '/servers/detail')
    assert [s['security_groups'] for s in body['servers'] if s['id'] == uuid_] == [
        [{'name': 'default'}]]
    # A server without ports shows no key, as upstream.
    bare = _server(aio, image, name='bare')
    status, _h, body = aio.request('GET', '/servers/%s' % bare)
    assert 'security_groups' not in body['server']
    # Update shows them from 2.75 only.
    for version, shown in (('2.74', False), ('2.75', True)):
        status, _h, body = aio.request('PUT', '/servers/%s' % uuid_,
                                       {'server': {'name': 'net'}}, version=version)
        assert status == 200 and ('security_groups' in body['server']) is shown, body


def test_add_and_remove_security_group(aio, wired):
    uuid_, port = wired
    status, _h, body = neutron(aio, 'POST', '/security-groups', {'security_group': {
        'name': 'extra', 'description': ''}})
    group = body['security_group']['id']
    action = '/servers/%s/action' % uuid_
    status, _h, body = aio.request('POST', action, {'addSecurityGroup': {'name': 'extra'}})
    assert status == 202, body
    status, _h, body = neutron(aio, 'GET', '/ports/%s' % port['id'])
    assert group in body['port']['security_groups']
    status, _h, body = aio.request('GET', '/servers/%s' % uuid_)
    assert {'name': 'extra'} in body['server']['security_groups']
    status, _h, body = aio.request('POST', action, {'addSecurityGroup': {'name': 'nope'}})
    assert status == 404, body
    status, _h, body = aio.request('POST', action, {'removeSecurityGroup': {'name': 'extra'}})
    assert status == 202, body
    status, _h, body = neutron(aio, 'GET', '/ports/%s' % port['id'])
    assert group not in body['port']['security_groups']
    status, _h, body = aio.request('POST', action, {'removeSecurityGroup': {'name': 'extra'}})
    assert status == 404 and 'not associated' in body['itemNotFound']['message'], body
    status, _h, body = aio.request('POST', action, {'addSecurityGroup': {}})
    assert status == 400, body


# -- os-interface -------------------------------------------------------------

def test_interfaces_list_and_show(aio, wired):
    uuid_, port = wired
    base = '/servers/%s/os-interface' % uuid_
    status, _h, body = aio.request('GET', base)
    assert status == 200, body
    assert body == {'interfaceAttachments': [{
        'net_id': port['network_id'], 'port_id': port['id'], 'mac_addr': port['mac_address'],
        'port_state': 'DOWN', 'fixed_ips': [{'subnet_id': port['fixed_ips'][0]['subnet_id'],
                                             'ip_address': port['fixed_ips'][0]['ip_address']}]}]}
    status, _h, body = aio.request('GET', base, version='2.70')
    assert body['interfaceAttachments'][0]['tag'] == 'nic0'
    status, _h, body = aio.request('GET', base + '/' + port['id'], version='2.69')
    assert status == 200 and 'tag' not in body['interfaceAttachment']
    assert body['interfaceAttachment']['port_id'] == port['id']
    status, _h, body = aio.request('GET', base + '/' + str(uuid.uuid4()))
    assert status == 404, body


def test_interface_show_of_another_servers_port_is_404(aio, wired, private):
    uuid_ = wired[0]
    other = _port(aio, private)
    status, _h, body = aio.request('GET', '/servers/%s/os-interface/%s' % (uuid_, other['id']))
    assert status == 404 and 'does not have a port' in body['itemNotFound']['message'], body


@pytest.fixture
def host_calls(monkeypatch, aio):
    """The compute host's side of attach/detach: the API's calls, a port per attach."""
    calls = []

    def attach(self, context, instance, host, network_id=None, port_id=None,
               requested_ip=None, tag=None):
        calls.append(('attach', instance.uuid, host, network_id, port_id, requested_ip, tag))
        if port_id is None:
            values = {'network_id': network_id, 'tenant_id': instance.project_id}
            if requested_ip:
                values['fixed_ips'] = [{'ip_address': requested_ip}]
            status, _h, made = neutron(aio, 'POST', '/ports', {'port': values}, token=ADMIN)
            assert status == 201, made
            port_id = made['port']['id']
        neutron(aio, 'PUT', '/ports/%s' % port_id, {'port': {
            'device_id': instance.uuid, 'device_owner': 'compute:nova'}}, token=ADMIN)
        return {'id': port_id}

    def detach(self, context, instance, host, port_id):
        calls.append(('detach', instance.uuid, host, port_id))
    monkeypatch.setattr(compute_rpcapi.ComputeAPI, 'attach_interface', attach)
    monkeypatch.setattr(compute_rpcapi.ComputeAPI, 'detach_interface', detach)
    return calls


def test_attach_a_network_and_a_port_then_detach(aio, wired, private, host_calls):
    uuid_ = wired[0]
    base = '/servers/%s/os-interface' % uuid_
    status, _h, body = aio.request('POST', base, {'interfaceAttachment': {
        'net_id': private['id'], 'fixed_ips': [{'ip_address': '10.78.0.99'}],
        'tag': 'extra'}}, version='2.70')
    assert status == 200, body
    made = body['interfaceAttachment']
    assert made['net_id'] == private['id'] and made['tag'] == 'extra'
    assert made['fixed_ips'][0]['ip_address'] == '10.78.0.99'
    assert host_calls[-1] == ('attach', uuid_, 'testhost', private['id'], None, '10.78.0.99',
                              'extra')
    mine = _port(aio, private)
    status, _h, body = aio.request('POST', base, {'interfaceAttachment': {
        'port_id': mine['id']}}, version='2.48')
    assert status == 200 and body['interfaceAttachment']['port_id'] == mine['id'], body
    assert 'tag' not in body['interfaceAttachment']
    status, _h, body = aio.request('DELETE', base + '/' + mine['id'])
    assert status == 202, body
    assert host_calls[-1] == ('detach', uuid_, 'testhost', mine['id'])
    status, _h, body = aio.request('GET', '/servers/%s/os-instance-actions' % uuid_)
    actions = [a['action'] for a in body['instanceActions']]
    assert 'attach_interface' in actions and 'detach_interface' in actions


@pytest.mark.parametrize('spec,version,status,message', [
    ({'net_id': 'N', 'port_id': 'P'}, '2.1', 400, 'Must not input both'),
    ({'fixed_ips': [{'ip_address': '10.78.0.5'}]}, '2.1', 400, 'Must input network_id'),
    ({'net_id': 'N', 'tag': 't'}, '2.48', 400, None),
    ({'net_id': str(uuid.uuid4())}, '2.1', 404, 'could not be found'),
    ({'port_id': str(uuid.uuid4())}, '2.1', 404, 'could not be found'),
    ({'net_id': 'N', 'fixed_ips': [{'ip_address': '192.168.1.1'}]}, '2.1', 400,
     'not a valid ip address'),
    ({'net_id': 'N', 'fixed_ips': [{'ip_address': 'x'}]}, '2.1', 400, None),
    ({'bogus': 1}, '2.1', 400, None),
])
def test_attach_refusals_come_before_the_host(aio, wired, private, host_calls, spec,
                                              version, status, message):
    uuid_ = wired[0]
    spec = {k: private['id'] if v == 'N' else v for k, v in spec.items()}
    if spec.get('port_id') == 'P':
        spec['port_id'] = str(uuid.uuid4())
    got, _h, body = aio.request('POST', '/servers/%s/os-interface' % uuid_,
                                {'interfaceAttachment': spec}, version=version)
    assert got == status, body
    if message:
        assert message in next(iter(body.values()))['message'], body
    assert host_calls == []


def test_attach_a_port_in_use_is_409_and_a_taken_address_409(aio, wired, private, host_calls):
    uuid_, port = wired
    busy = _port(aio, private, device_id=str(uuid.uuid4()))
    base = '/servers/%s/os-interface' % uuid_
    status, _h, body = aio.request('POST', base, {'interfaceAttachment': {
        'port_id': busy['id']}})
    assert status == 409, body
    status, _h, body = aio.request('POST', base, {'interfaceAttachment': {
        'net_id': private['id'],
        'fixed_ips': [{'ip_address': port['fixed_ips'][0]['ip_address']}]}})
    assert status == 409, body
    assert host_calls == []


def test_attach_and_detach_follow_the_state_and_the_lock(aio, wired, private, host_calls):
    uuid_ = wired[0]
    base = '/servers/%s/os-interface' % uuid_
    aio.db.instance_update(uuid_, {'vm_state': 'rescued'})
    try:
        status, _h, body = aio.request('POST', base, {'interfaceAttachment': {
            'net_id': private['id']}})
        assert status == 409, body
    finally:
        aio.db.instance_update(uuid_, {'vm_state': 'active'})
    status, _h, body = aio.request('POST', '/servers/%s/action' % uuid_, {'lock': None})
    assert status == 202
    try:
        status, _h, body = aio.request('DELETE', base + '/' + str(uuid.uuid4()))
        assert status == 409, body
    finally:
        aio.request('POST', '/servers/%s/action' % uuid_, {'unlock': None})
    status, _h, body = aio.request('DELETE', base + '/' + str(uuid.uuid4()))
    assert status == 404, body
    assert host_calls == []


def test_another_projects_server_interfaces_are_404(aio, wired):
    uuid_, port = wired
    for method, path in (('GET', ''), ('GET', '/' + port['id']), ('DELETE', '/' + port['id'])):
        status, _h, body = aio.request(method, '/servers/%s/os-interface%s' % (uuid_, path),
                                       token='alt:alt')
        assert status == 404, body


def test_a_compute_pin_below_1_7_refuses_attach(aio, wired, private, monkeypatch, host_calls):
    uuid_ = wired[0]
    monkeypatch.setattr('oslo_messaging.RPCClient.can_send_version',
                        lambda self, version: version < compute_rpcapi.INTERFACES,
                        raising=False)
    status, _h, body = aio.request('POST', '/servers/%s/os-interface' % uuid_, {
        'interfaceAttachment': {'net_id': private['id']}})
    assert status == 409 and '1.7' in body['conflictingRequest']['message'], body
    assert host_calls == []


# -- external events from the network service ----------------------------------

@pytest.mark.parametrize('name', ['network-vif-plugged', 'network-changed',
                                  'network-vif-deleted', 'network-vif-unplugged'])
def test_network_events_are_accepted_and_sent_to_the_host(aio, wired, monkeypatch, name):
    uuid_, port = wired
    sent = []
    monkeypatch.setattr(compute_rpcapi.ComputeAPI, 'external_instance_event',
                        lambda self, ctx, instance, host, events: sent.append(
                            (instance.uuid, host, events)))
    status, _h, body = aio.request('POST', '/os-server-external-events', {'events': [
        {'name': name, 'server_uuid': uuid_, 'tag': port['id'], 'status': 'completed'}]},
        token=ADMIN)
    assert status == 200 and body['events'][0]['code'] == 200, body
    assert sent == [(uuid_, 'testhost', [{'name': name, 'server_uuid': uuid_,
                                          'tag': port['id'], 'status': 'completed'}])]
