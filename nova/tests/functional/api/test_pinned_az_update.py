"""2.104: unpin a server's availability zone, or pin it again to the zone it is in."""

import pytest

from nova.tests.functional.api.conftest import server_body


@pytest.fixture(scope='module')
def pinned(aio, image, nano):
    status, _h, resp = aio.request('POST', '/servers', server_body(
        image, name='pinned', availability_zone='nova'), version='2.37')
    assert status == 202, resp
    sid = resp['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    return sid


def _pin(aio, sid, version='2.104'):
    return aio.request('GET', '/servers/' + sid, version=version)[2]['server'][
        'pinned_availability_zone']


def test_created_in_a_zone_is_pinned_to_it(aio, pinned):
    assert _pin(aio, pinned, '2.96') == 'nova'


def test_unpin_repin_and_unpin_again(aio, pinned):
    put = {'server': {'pinned_availability_zone': None}}
    status, _h, body = aio.request('PUT', '/servers/' + pinned, put, version='2.104')
    assert status == 200 and body['server']['pinned_availability_zone'] is None
    assert _pin(aio, pinned) is None
    # Unpinning an unpinned server is a no-op.
    assert aio.request('PUT', '/servers/' + pinned, put, version='2.104')[0] == 200
    status, _h, body = aio.request('PUT', '/servers/' + pinned,
                                   {'server': {'pinned_availability_zone': 'nova'}},
                                   version='2.104')
    assert status == 200 and body['server']['pinned_availability_zone'] == 'nova'
    assert _pin(aio, pinned) == 'nova'


def test_pin_to_another_zone_is_refused_and_changes_nothing(aio, pinned):
    before = _pin(aio, pinned)
    status, _h, body = aio.request('PUT', '/servers/' + pinned,
                                   {'server': {'pinned_availability_zone': 'elsewhere'}},
                                   version='2.104')
    assert status == 400 and 'current availability zone' in body['badRequest']['message']
    assert _pin(aio, pinned) == before


def test_the_key_is_refused_before_2_104(aio, pinned):
    status, _h, _b = aio.request('PUT', '/servers/' + pinned,
                                 {'server': {'pinned_availability_zone': None}},
                                 version='2.103')
    assert status == 400


def test_created_without_a_zone_is_not_pinned(aio, image, nano):
    status, _h, resp = aio.request('POST', '/servers', server_body(image, name='unpinned'),
                                   version='2.37')
    assert status == 202, resp
    sid = resp['server']['id']
    try:
        aio.wait_for_status(sid, ['ACTIVE'])
        # As upstream: the request asked for no zone, so none is pinned, while
        # the server is shown in its host's zone.
        shown = aio.request('GET', '/servers/' + sid, version='2.96')[2]['server']
        assert shown['pinned_availability_zone'] is None
        assert shown['OS-EXT-AZ:availability_zone'] == 'nova'
    finally:
        aio.request('DELETE', '/servers/' + sid)
        aio.wait_for_status(sid, ['DELETED'])
