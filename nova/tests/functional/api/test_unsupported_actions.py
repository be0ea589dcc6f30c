"""Server actions upstream has and this service does not: the server is looked up first."""

import uuid

import pytest

ADMIN = 'admin:admin'


@pytest.mark.parametrize('action', [
    {'migrate': None}, {'shelve': None}, {'changePassword': {'adminPass': 'x'}},
    {'os-migrateLive': {'host': None, 'block_migration': False, 'disk_over_commit': False}}])
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
                                   {'trigger_crash_dump': None}, version='2.17',
                                   token=ADMIN)
    assert status == 400, body
    assert 'not supported: trigger_crash_dump' in body['badRequest']['message']


@pytest.mark.parametrize('action', ['addSecurityGroup', 'removeSecurityGroup'])
def test_security_group_actions_on_a_server_without_ports(aio, image, nano, action):
    """As upstream for a server without ports: the create answer names the requested
    groups, show has none, and adding or removing one is 404; bad bodies are 400."""
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'sg', 'imageRef': image, 'flavorRef': nano, 'networks': 'none'}},
        version='2.37')
    assert status == 202, body
    assert body['server']['security_groups'] == [{'name': 'default'}]
    sid = body['server']['id']
    path = '/servers/%s/action' % sid
    status, _h, body = aio.request('POST', path, {action: {'name': 'default'}})
    assert status == 404 and body['itemNotFound']['message'] == (
        'instance_id %s could not be found as device id on any ports' % sid), body
    for bad in ({}, None, {'name': ''}):
        assert aio.request('POST', path, {action: bad})[0] == 400
    status, _h, body = aio.request('POST', '/servers/%s/action' % uuid.uuid4(),
                                   {action: {'name': 'default'}})
    assert status == 404 and 'device id' not in body['itemNotFound']['message']
    server = aio.wait_for_status(sid, ['ACTIVE'])
    assert 'security_groups' not in server
