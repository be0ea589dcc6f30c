"""The deprecated os-networks proxy without a network service: no networks, as upstream's shape."""

import pytest

ADMIN = 'admin:admin'


@pytest.mark.parametrize('token', ['demo:demo', ADMIN])
def test_list_shows_the_default_network_up_to_2_35(aio, token):
    # The all-in-one's shared default network, through the network service.
    status, _h, body = aio.request('GET', '/os-networks', version='2.35', token=token)
    assert status == 200 and [n['label'] for n in body['networks']] == ['private'], body
    status, _h, body = aio.request('GET', '/os-networks', version='2.36', token=token)
    assert status == 404, body


def test_show_is_404(aio):
    status, _h, body = aio.request('GET', '/os-networks/private', version='2.1')
    assert status == 404 and 'private' in body['itemNotFound']['message'], body


@pytest.mark.parametrize('method,path,body', [
    ('POST', '/os-networks', {'network': {'label': 'n', 'cidr': '10.0.0.0/24'}}),
    ('POST', '/os-networks/add', {'id': 'n'}),
    ('DELETE', '/os-networks/n', None),
    ('POST', '/os-networks/n/action', {'disassociate': None}),
])
def test_nova_network_management_is_gone(aio, method, path, body):
    status, _h, resp = aio.request(method, path, body, version='2.1', token=ADMIN)
    assert status == 410 and resp['computeFault']['code'] == 410, resp
