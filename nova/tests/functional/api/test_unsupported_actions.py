"""Server actions upstream has and this service does not: the server is looked up first."""

import uuid

import pytest

ADMIN = 'admin:admin'


@pytest.mark.parametrize('action', [{'migrate': None}, {'os-migrateLive': {'host': None}},
                                    {'shelve': None}, {'changePassword': {'adminPass': 'x'}}])
def test_unknown_server_is_404_before_the_action(aio, action):
    status, _h, body = aio.request('POST', '/servers/%s/action' % uuid.uuid4(), action,
                                   version='2.1', token=ADMIN)
    assert status == 404, body
    assert 'itemNotFound' in body


def test_unknown_action_is_400_whatever_the_server(aio):
    # Upstream answers a name it does not know before it looks at the server.
    status, _h, body = aio.request('POST', '/servers/%s/action' % uuid.uuid4(),
                                   {'fly': None}, version='2.1', token=ADMIN)
    assert status == 400, body
    assert 'There is no such action: fly' in body['badRequest']['message']


def test_unsupported_action_on_a_server_is_400(aio, image, nano):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'ua', 'imageRef': image, 'flavorRef': nano, 'networks': 'none'}},
        version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    status, _h, body = aio.request('POST', '/servers/%s/action' % sid,
                                   {'changePassword': {'adminPass': 'x'}}, version='2.1')
    assert status == 400, body
    assert 'not supported: changePassword' in body['badRequest']['message']
