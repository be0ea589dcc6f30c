"""os-resetState, diagnostics and createBackup through the real all-in-one."""

import time

import pytest

from nova.tests.functional.api import tempest_schemas as ts
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'


@pytest.fixture(scope='module')
def server(aio, image, nano):
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='adm'),
                                   version='2.37')
    assert status == 202, body
    return aio.wait_for_status(body['server']['id'], ['ACTIVE'])['id']


def act(aio, sid, body, version='2.1', token=ADMIN):
    status, headers, resp = aio.request('POST', '/servers/%s/action' % sid, body,
                                        version=version, token=token)
    return status, headers, resp


def _status(aio, sid):
    return aio.request('GET', '/servers/' + sid, token=ADMIN)[2]['server']['status']


def test_reset_state_to_error_and_back(aio, server):
    assert act(aio, server, {'os-resetState': {'state': 'error'}})[0] == 202
    assert _status(aio, server) == 'ERROR'
    _s, _h, body = aio.request('GET', '/servers?status=error', token='demo:demo')
    assert server in [s['id'] for s in body['servers']]
    assert act(aio, server, {'os-resetState': {'state': 'active'}})[0] == 202
    assert _status(aio, server) == 'ACTIVE'
    _s, _h, body = aio.request('GET', '/servers/%s/os-instance-actions' % server)
    assert 'resetState' in [a['action'] for a in body['instanceActions']]


@pytest.mark.parametrize('body,field', [({'os-resetState': {'state': 'invalid'}}, 'state'),
                                        ({'os-resetState': {'state': 1}}, 'state'),
                                        ({'os-resetState': {}}, 'state'),
                                        ({'os-resetState': {'state': 'error', 'x': 1}}, "'x'")])
def test_reset_state_bad_input_is_400(aio, server, body, field):
    status, _h, resp = act(aio, server, body)
    assert status == 400, resp
    assert field in resp['badRequest']['message']
    assert _status(aio, server) == 'ACTIVE'


def test_reset_state_is_admin_only_and_404_for_unknown(aio, server):
    status, _h, resp = act(aio, server, {'os-resetState': {'state': 'error'}},
                           token='demo:demo')
    assert status == 403, resp
    assert act(aio, '999', {'os-resetState': {'state': 'error'}})[0] == 404
    assert _status(aio, server) == 'ACTIVE'


@pytest.mark.parametrize('version', ['2.1', '2.47'])
def test_legacy_diagnostics(aio, server, version):
    status, _h, body = aio.request('GET', '/servers/%s/diagnostics' % server,
                                   version=version, token=ADMIN)
    ts.validate('servers', 'show_server_diagnostics', version, status, body)
    assert body['memory'] > 0 and 'cpu0_time' in body and 'vda_read' in body, body


@pytest.mark.parametrize('version', ['2.48', '2.104'])
def test_standard_diagnostics(aio, server, version):
    status, _h, body = aio.request('GET', '/servers/%s/diagnostics' % server,
                                   version=version, token=ADMIN)
    ts.validate('servers', 'show_server_diagnostics', version, status, body)
    assert body['state'] == 'running' and body['driver'] == 'libvirt'
    assert body['num_disks'] == len(body['disk_details']) >= 1
    assert body['memory_details']['maximum'] == 1  # the nano flavor's MiB
    assert isinstance(body['uptime'], int)


def test_diagnostics_refusals(aio, image, server):
    path = '/servers/%s/diagnostics' % server
    assert aio.request('GET', path, token='demo:demo')[0] == 403
    assert aio.request('GET', '/servers/%s/diagnostics' % ('0' * 32), token=ADMIN)[0] == 404
    assert act(aio, server, {'os-stop': None})[0] == 202
    aio.wait_for_status(server, ['SHUTOFF'])
    status, _h, body = aio.request('GET', path, token=ADMIN, version='2.48')
    assert status == 409, body
    assert "while it is in power state shutdown" in body['conflictingRequest']['message']
    assert act(aio, server, {'os-start': None})[0] == 202
    aio.wait_for_status(server, ['ACTIVE'])


def _backups(aio, server):
    status, _h, body = aio.request(
        'GET', '/v2/images?image_type=backup&backup_type=daily&instance_uuid=%s'
        '&sort_key=created_at&sort_dir=asc' % server, url=aio.image_url)
    assert status == 200, body
    return [i['name'] for i in body['images']]


def _idle(aio, sid):
    deadline = time.monotonic() + 60
    while aio.request('GET', '/servers/' + sid, token=ADMIN)[2]['server'][
            'OS-EXT-STS:task_state'] is not None:
        assert time.monotonic() < deadline, 'server %s never went idle' % sid
        time.sleep(0.05)


def test_create_backup_rotates(aio, server):
    body = {'createBackup': {'name': 'b1', 'backup_type': 'daily', 'rotation': 2}}
    status, headers, resp = act(aio, server, body, version='2.44', token='demo:demo')
    assert status == 202 and resp is None, resp
    assert '/images/' in headers['Location']
    _idle(aio, server)
    body['createBackup']['name'] = 'b2'
    status, _h, resp = act(aio, server, body, version='2.45', token='demo:demo')
    ts.validate('servers', 'create_backup', '2.45', status, resp)
    _idle(aio, server)
    assert _backups(aio, server) == ['b1', 'b2']
    body['createBackup'].update(name='b3', metadata={'k': 'v'})
    assert act(aio, server, body, version='2.45', token='demo:demo')[0] == 202
    _idle(aio, server)
    deadline = time.monotonic() + 30
    while _backups(aio, server) != ['b2', 'b3']:
        assert time.monotonic() < deadline, _backups(aio, server)
        time.sleep(0.1)
    # rotation 0 keeps none of this type: the new backup goes too.
    body['createBackup'].update(name='b4', rotation=0)
    status, headers, _r = act(aio, server, body, version='2.44', token='demo:demo')
    assert status == 202 and 'Location' not in headers
    _idle(aio, server)
    deadline = time.monotonic() + 30
    while _backups(aio, server):
        assert time.monotonic() < deadline, _backups(aio, server)
        time.sleep(0.1)


@pytest.mark.parametrize('spec,field', [
    ({'name': 'b', 'backup_type': 'daily'}, 'rotation'),
    ({'name': 'b', 'rotation': 1}, 'backup_type'),
    ({'name': 'b', 'backup_type': 'daily', 'rotation': -1}, 'rotation'),
    ({'name': '', 'backup_type': 'daily', 'rotation': 1}, 'name'),
    ({'name': 'b', 'backup_type': 'daily', 'rotation': 1, 'extra': 1}, 'extra'),
])
def test_create_backup_bad_input_is_400(aio, server, spec, field):
    status, _h, resp = act(aio, server, {'createBackup': spec}, token='demo:demo')
    assert status == 400 and field in resp['badRequest']['message'], resp


def test_create_backup_wrong_state_is_409(aio, server):
    assert act(aio, server, {'os-resetState': {'state': 'error'}})[0] == 202
    body = {'createBackup': {'name': 'b', 'backup_type': 'daily', 'rotation': 1}}
    status, _h, resp = act(aio, server, body, token='demo:demo')
    assert status == 409 and 'createBackup' in resp['conflictingRequest']['message']
    assert act(aio, server, {'os-resetState': {'state': 'active'}})[0] == 202
