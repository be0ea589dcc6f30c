"""Server actions through the API on test:///default: success, wrong state, bad input."""

import urllib.parse

import pytest

from nova.tests.functional import fixtures

V = '2.100'


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('actions')
    running = fixtures.RunningAio(tmp)
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    yield running
    running.stop()


@pytest.fixture
def server(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'act', 'imageRef': aio.image_id, 'flavorRef': '1', 'networks': 'none'}},
        version=V)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    yield sid
    aio.request('DELETE', '/servers/' + sid, token='admin:admin')


def act(aio, sid, body, version=V, token='demo:demo'):
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid, body, version=version,
                                   token=token)
    return status, resp


@pytest.mark.parametrize('action,status,undo,undone', [
    ('os-stop', 'SHUTOFF', 'os-start', 'ACTIVE'),
    ('pause', 'PAUSED', 'unpause', 'ACTIVE'),
    ('suspend', 'SUSPENDED', 'resume', 'ACTIVE'),
])
def test_power_round_trip_and_wrong_state(aio, server, action, status, undo, undone):
    assert act(aio, server, {undo: None})[0] == 409
    assert act(aio, server, {action: None})[0] == 202
    got = aio.wait_for_status(server, [status])
    assert got['OS-EXT-STS:task_state'] is None
    code, body = act(aio, server, {action: None})
    assert code == 409
    assert "while it is in vm_state" in body['conflictingRequest']['message']
    assert act(aio, server, {undo: None})[0] == 202
    assert aio.wait_for_status(server, [undone])['OS-EXT-STS:power_state'] == 1


@pytest.mark.parametrize('kind', ['SOFT', 'HARD', 'hard'])
def test_reboot(aio, server, kind):
    assert act(aio, server, {'reboot': {'type': kind}})[0] == 202
    assert aio.wait_for_status(server, ['ACTIVE'])['OS-EXT-STS:task_state'] is None


@pytest.mark.parametrize('body', [
    {'reboot': {'type': 'WARM'}}, {'reboot': {}}, {'reboot': None},
    {'lock': {'locked_reason': ''}}, {'os-getConsoleOutput': {'length': 'abc'}},
    {'createImage': {}}, {'rebuild': {}}, {'no-such-action': None},
    {'os-stop': None, 'os-start': None},
])
def test_bad_action_bodies_are_400(aio, server, body):
    code, resp = act(aio, server, body, version='2.73')
    assert code == 400, resp
    assert resp['badRequest']['message']
    assert aio.request('GET', '/servers/' + server)[2]['server']['status'] == 'ACTIVE'


def test_lock_blocks_actions_for_the_owner_not_admin(aio, server):
    assert act(aio, server, {'lock': {'locked_reason': 'maintenance'}}, version='2.73')[0] == 202
    shown = aio.request('GET', '/servers/' + server, version='2.73')[2]['server']
    assert shown['locked'] is True and shown['locked_reason'] == 'maintenance'
    code, body = act(aio, server, {'os-stop': None})
    assert code == 409 and 'is locked' in body['conflictingRequest']['message']
    assert aio.request('DELETE', '/servers/' + server)[0] == 409
    assert act(aio, server, {'reboot': {'type': 'HARD'}}, token='admin:admin')[0] == 202
    aio.wait_for_status(server, ['ACTIVE'])
    assert act(aio, server, {'unlock': None})[0] == 202
    shown = aio.request('GET', '/servers/' + server, version='2.73')[2]['server']
    assert shown['locked'] is False and shown['locked_reason'] is None


def test_admin_lock_needs_admin_to_unlock(aio, server):
    assert act(aio, server, {'lock': None}, token='admin:admin')[0] == 202
    assert act(aio, server, {'unlock': None})[0] == 403
    # Locking again must not turn the admin's lock into the owner's.
    assert act(aio, server, {'lock': None})[0] == 202
    assert act(aio, server, {'unlock': None})[0] == 403
    assert act(aio, server, {'unlock': None}, token='admin:admin')[0] == 202


def test_console_output(aio, server):
    code, body = act(aio, server, {'os-getConsoleOutput': {'length': 10}})
    assert code == 200 and isinstance(body['output'], str)


def test_other_project_cannot_act(aio, server):
    assert act(aio, server, {'os-stop': None}, token='other:other')[0] == 404


def test_metadata_endpoints(aio, server):
    base = '/servers/%s/metadata' % server
    assert aio.request('POST', base, {'metadata': {'a': '1'}})[2] == {'metadata': {'a': '1'}}
    assert aio.request('PUT', base + '/b', {'meta': {'b': '2'}})[0] == 200
    assert aio.request('GET', base)[2] == {'metadata': {'a': '1', 'b': '2'}}
    assert aio.request('GET', base + '/a')[2] == {'meta': {'a': '1'}}
    assert aio.request('PUT', base + '/c', {'meta': {'d': '2'}})[0] == 400
    assert aio.request('PUT', base, {'metadata': {'x': 'y'}})[2] == {'metadata': {'x': 'y'}}
    assert aio.request('DELETE', base + '/x')[0] == 204
    assert aio.request('GET', base + '/x')[0] == 404
    assert aio.request('POST', base, {'metadata': {'k': 1}})[0] == 400


def test_tags_endpoints(aio, server):
    base = '/servers/%s/tags' % server
    assert aio.request('GET', base, version='2.25')[0] == 404
    assert aio.request('PUT', base + '/red', version='2.26')[0] == 201
    assert aio.request('PUT', base + '/red', version='2.26')[0] == 204
    assert aio.request('GET', base + '/red', version='2.26')[0] == 204
    assert aio.request('PUT', base, {'tags': ['a', 'b']}, version='2.26')[2] == {
        'tags': ['a', 'b']}
    assert aio.request('PUT', base, {'tags': ['bad/tag']}, version='2.26')[0] == 400
    assert aio.request('DELETE', base + '/red', version='2.26')[0] == 404
    assert aio.request('DELETE', base, version='2.26')[0] == 204
    assert aio.request('GET', base, version='2.26')[2] == {'tags': []}


def test_non_ascii_tag_location_header_is_percent_encoded(aio, server):
    base = '/servers/%s/tags/' % server
    status, headers, _ = aio.request('PUT', base + urllib.parse.quote('t\u0663'),
                                     version='2.26')
    assert status == 201
    assert headers['Location'].endswith('/tags/t%D9%A3')
    assert aio.request('GET', base + urllib.parse.quote('t\u0663'), version='2.26')[0] == 204


def test_instance_actions_record_events(aio, server):
    assert act(aio, server, {'os-stop': None})[0] == 202
    aio.wait_for_status(server, ['SHUTOFF'])
    status, _h, body = aio.request('GET', '/servers/%s/os-instance-actions' % server,
                                   version='2.84')
    names = [a['action'] for a in body['instanceActions']]
    assert names[:2] == ['stop', 'create']
    stop = body['instanceActions'][0]
    status, _h, detail = aio.request(
        'GET', '/servers/%s/os-instance-actions/%s' % (server, stop['request_id']),
        version='2.84', token='admin:admin')
    events = detail['instanceAction']['events']
    assert [e['event'] for e in events] == ['compute_stop_instance']
    assert events[0]['result'] == 'Success' and events[0]['host'] == 'testhost'


def test_instance_actions_pagination_from_2_58(aio, server):
    for body in ({'os-stop': None}, {'os-start': None}):
        assert act(aio, server, body)[0] == 202
        aio.wait_for_status(server, ['SHUTOFF' if 'os-stop' in body else 'ACTIVE'])
    base = '/servers/%s/os-instance-actions' % server
    page = aio.request('GET', base + '?limit=2', version='2.58')[2]
    assert [a['action'] for a in page['instanceActions']] == ['start', 'stop']
    next_href = page['links'][0]['href']
    assert 'marker=' in next_href
    marker = page['instanceActions'][-1]['request_id']
    rest = aio.request('GET', base + '?limit=2&marker=' + marker, version='2.58')[2]
    assert [a['action'] for a in rest['instanceActions']] == ['create']
    assert 'links' not in rest
    assert aio.request('GET', base + '?marker=nope', version='2.58')[0] == 400
    assert aio.request('GET', base + '?changes-before=2000-01-01T00:00:00Z',
                       version='2.58')[0] == 400
    assert aio.request('GET', base + '?changes-before=2000-01-01T00:00:00Z',
                       version='2.66')[2]['instanceActions'] == []
    # Before 2.58 query parameters are ignored.
    assert len(aio.request('GET', base + '?limit=1', version='2.57')[2][
        'instanceActions']) == 3
