"""Deferred delete: SOFT_DELETED, restore, forceDelete and reclaim on the all-in-one."""

import time

import pytest

from nova.tests.functional import fixtures
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'
RECLAIM = 3


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    running = fixtures.RunningAio(tmp_path_factory.mktemp('soft') / 'state', extra={
        ('DEFAULT', 'reclaim_instance_interval'): RECLAIM})
    yield running
    running.stop()


def _boot(aio, image, name):
    status, _h, body = aio.request('POST', '/servers', server_body(image, name=name),
                                   version='2.37')
    assert status == 202, body
    return aio.wait_for_status(body['server']['id'], ['ACTIVE'])['id']


def act(aio, sid, body, token='demo:demo'):
    return aio.request('POST', '/servers/%s/action' % sid, body, token=token)[::2]


def _listed(aio, query=''):
    return [s['id'] for s in aio.request('GET', '/servers' + query)[2]['servers']]


def test_delete_soft_deletes_and_restore_brings_it_back(aio, image, nano):
    sid = _boot(aio, image, 'soft1')
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    server = aio.wait_for_status(sid, ['SOFT_DELETED'])
    assert server['OS-EXT-STS:power_state'] == 4  # shut down
    assert sid not in _listed(aio)
    assert sid in _listed(aio, '?status=SOFT_DELETED')
    assert act(aio, sid, {'restore': None})[0] == 202
    server = aio.wait_for_status(sid, ['ACTIVE'])
    assert server['OS-EXT-STS:power_state'] == 1
    # restore of a server that is not soft-deleted: 409 as upstream.
    status, body = act(aio, sid, {'restore': None})
    assert status == 409 and "Cannot 'restore'" in body['conflictingRequest']['message']
    assert act(aio, sid, {'forceDelete': None})[0] == 202
    aio.wait_for_status(sid, ['DELETED'])


def test_force_delete_of_a_soft_deleted_server(aio, image, nano):
    sid = _boot(aio, image, 'soft2')
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    aio.wait_for_status(sid, ['SOFT_DELETED'])
    assert act(aio, sid, {'forceDelete': None})[0] == 202
    aio.wait_for_status(sid, ['DELETED'])
    assert act(aio, sid, {'restore': None})[0] == 404


def test_reclaim_deletes_after_the_interval(aio, image, nano):
    sid = _boot(aio, image, 'soft3')
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    aio.wait_for_status(sid, ['SOFT_DELETED'])
    started = time.monotonic()
    aio.wait_for_status(sid, ['DELETED'], timeout=RECLAIM * 4)
    # Never before the interval (deleted_at has one-second resolution).
    assert time.monotonic() - started >= RECLAIM - 1.5


def test_locked_server_refuses_restore_and_force_delete(aio, image, nano):
    sid = _boot(aio, image, 'soft4')
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    aio.wait_for_status(sid, ['SOFT_DELETED'])
    assert act(aio, sid, {'lock': None}, token=ADMIN)[0] == 202
    for body in ({'restore': None}, {'forceDelete': None}):
        status, resp = act(aio, sid, body)
        assert status == 409 and 'locked' in resp['conflictingRequest']['message'], resp
    assert act(aio, sid, {'forceDelete': None}, token=ADMIN)[0] == 202
    aio.wait_for_status(sid, ['DELETED'])


def test_a_server_that_never_launched_is_deleted_at_once(aio, image):
    status, _h, body = aio.request('POST', '/flavors', {'flavor': {
        'name': 'toobig', 'id': 'toobig', 'ram': 10 ** 9, 'vcpus': 1, 'disk': 0}},
        token=ADMIN)
    assert status == 200, body
    status, _h, body = aio.request('POST', '/servers', server_body(image, 'toobig', 'err'),
                                   version='2.37')
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ERROR'])
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    aio.wait_for_status(sid, ['DELETED'])
