"""Rebuild and unrescue as tempest sends and validates them."""

import pytest

from nova.tests.functional.api import tempest_schemas as ts
from nova.tests.functional.api.conftest import server_body


@pytest.fixture(scope='module')
def server(aio, image, nano):
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='rb'),
                                   version='2.37')
    assert status == 202, body
    return aio.wait_for_status(body['server']['id'], ['ACTIVE'])


@pytest.mark.parametrize('version', ['2.56', '2.57', '2.75', '2.100', '2.104'])
def test_rebuild_response_matches_tempest(aio, image, server, version):
    status, _h, body = aio.request('POST', '/servers/%s/action' % server['id'],
                                   {'rebuild': {'imageRef': image}}, version=version)
    ts.validate('servers', 'rebuild_server_with_admin_pass', version, status, body)
    # From 2.57 every caller gets the server's user_data back (None here).
    assert ('user_data' in body['server']) == (version != '2.56')
    aio.wait_for_status(server['id'], ['ACTIVE'])


@pytest.mark.parametrize('version', ['2.3', '2.75', '2.100'])
def test_rebuild_as_admin_leaves_out_extended_user_data(aio, image, server, version):
    # The admin's view carries OS-EXT-SRV-ATTR:*; the rebuild answer never has its user_data.
    status, _h, body = aio.request('POST', '/servers/%s/action' % server['id'],
                                   {'rebuild': {'imageRef': image}}, version=version,
                                   token='admin:admin')
    ts.validate('servers', 'rebuild_server_with_admin_pass', version, status, body)
    assert 'OS-EXT-SRV-ATTR:user_data' not in body['server']
    if version != '2.3':
        assert 'OS-EXT-SRV-ATTR:host' in body['server']
    aio.wait_for_status(server['id'], ['ACTIVE'])


@pytest.mark.parametrize('unrescue', [None, {}])
def test_unrescue_takes_null_or_an_empty_object(aio, server, unrescue):
    path = '/servers/%s/action' % server['id']
    status, _h, body = aio.request('POST', path, {'rescue': {}}, version='2.87')
    assert status == 200, body
    aio.wait_for_status(server['id'], ['RESCUE'])
    status, _h, body = aio.request('POST', path, {'unrescue': unrescue}, version='2.87')
    assert status == 202, body
    aio.wait_for_status(server['id'], ['ACTIVE'])


def test_unrescue_refuses_other_values(aio, server):
    status, _h, body = aio.request('POST', '/servers/%s/action' % server['id'],
                                   {'unrescue': 'now'}, version='2.87')
    assert status == 400, body
