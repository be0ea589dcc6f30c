"""Update and rebuild bodies carry addr and version only before 2.75, as upstream's."""

import pytest


@pytest.fixture(scope='module')
def server(aio, image, nano):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'rb', 'imageRef': image, 'flavorRef': nano}})
    assert status == 202, body
    return aio.wait_for_status(body['server']['id'], ['ACTIVE'])


@pytest.mark.parametrize('version,keys', [
    ('2.74', {'addr', 'version'}),
    ('2.75', {'addr', 'version', 'OS-EXT-IPS:type', 'OS-EXT-IPS-MAC:mac_addr'})])
def test_update_body_addresses(aio, server, version, keys):
    assert server['addresses'], server
    status, _h, body = aio.request('PUT', '/servers/%s' % server['id'],
                                   {'server': {'name': 'rb'}}, version=version)
    assert status == 200, body
    entries = [e for net in body['server']['addresses'].values() for e in net]
    assert entries and all(set(e) == keys for e in entries), body
    # show keeps the extended entries at every version.
    shown = aio.request('GET', '/servers/%s' % server['id'], version=version)[2]['server']
    assert all('OS-EXT-IPS:type' in e for net in shown['addresses'].values() for e in net)
