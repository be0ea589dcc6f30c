"""Live migration through the API on test:///default: upstream's checks, answers, records."""

import pytest

from nova.tests.functional import fixtures

ADMIN = 'admin:admin'
NO_HOST = 'No valid host was found. There are not enough hosts available.'


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('live')
    running = fixtures.RunningAio(tmp)
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    status, _h, body = running.request('POST', '/flavors', {'flavor': {
        'name': 'lm64', 'id': 'lm64', 'ram': 64, 'vcpus': 1, 'disk': 1}}, token=ADMIN)
    assert status == 200, body
    yield running
    running.stop()


@pytest.fixture
def server(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'lm', 'imageRef': aio.image_id, 'flavorRef': 'lm64', 'networks': 'none'}},
        version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    yield sid
    aio.request('DELETE', '/servers/' + sid, token=ADMIN)
    aio.wait_for_status(sid, ['DELETED'], token=ADMIN)


def live(aio, sid, spec, version, token=ADMIN):
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid,
                                   {'os-migrateLive': spec}, version=version, token=token)
    return status, resp


def migrations(aio, sid):
    status, _h, body = aio.request('GET', '/os-migrations?instance_uuid=' + sid,
                                   version='2.80', token=ADMIN)
    assert status == 200, body
    return body['migrations']


def event_results(aio, sid):
    acts = aio.request('GET', '/servers/%s/os-instance-actions' % sid, version='2.51',
                       token=ADMIN)[2]['instanceActions']
    out = []
    for act in acts:
        detail = aio.request('GET', '/servers/%s/os-instance-actions/%s' % (
            sid, act['request_id']), version='2.51', token=ADMIN)[2]['instanceAction']
        out.extend((act['action'], e['event'], e['result']) for e in detail['events'])
    return out


def test_one_host_answers_400_before_2_34_and_records_the_failure(aio, server):
    code, resp = live(aio, server, {'host': None, 'block_migration': False,
                                    'disk_over_commit': False}, '2.1')
    assert code == 400, resp
    assert resp['badRequest']['message'] == NO_HOST
    [mig] = migrations(aio, server)
    assert mig['migration_type'] == 'live-migration' and mig['status'] == 'error'
    assert mig['source_compute'] == 'testhost' and mig['dest_compute'] is None
    assert ('live-migration', 'conductor_live_migrate_instance', 'Error') in \
        event_results(aio, server)
    assert aio.db.faults_latest([server])[server]['message'] == NO_HOST
    aio.wait_for_status(server, ['ACTIVE'])


def test_one_host_answers_202_from_2_34_and_fails_afterwards(aio, server):
    code, resp = live(aio, server, {'host': None, 'block_migration': 'auto'}, '2.34')
    assert code == 202, resp
    [mig] = migrations(aio, server)
    assert mig['status'] == 'error'
    status, _h, body = aio.request('GET', '/servers/' + server, version='2.34', token=ADMIN)
    assert body['server']['status'] == 'ACTIVE'
    assert body['server']['OS-EXT-STS:task_state'] is None


def test_own_host_and_unknown_host(aio, server):
    code, resp = live(aio, server, {'host': 'testhost', 'block_migration': False,
                                    'disk_over_commit': False}, '2.1')
    assert code == 400
    assert resp['badRequest']['message'] == (
        'Unable to migrate instance (%s) to current host (testhost).' % server)
    code, resp = live(aio, server, {'host': 'nosuchhost', 'block_migration': False}, '2.68')
    assert code == 400
    assert resp['badRequest']['message'] == 'Compute host nosuchhost could not be found.'
    # The unknown host is refused before anything is recorded.
    assert len(migrations(aio, server)) == 1


def test_wrong_state_locked_and_policy(aio, server):
    status, _h, _b = aio.request('POST', '/servers/%s/action' % server, {'suspend': None})
    assert status == 202
    aio.wait_for_status(server, ['SUSPENDED'])
    code, resp = live(aio, server, {'host': None, 'block_migration': 'auto'}, '2.68')
    assert code == 409
    assert "while it is in vm_state suspended" in resp['conflictingRequest']['message']
    code, _r = live(aio, server, {'host': None, 'block_migration': 'auto'}, '2.68',
                    token='demo:demo')
    assert code == 403
    assert migrations(aio, server) == []


@pytest.mark.parametrize('version,spec', [
    ('2.1', {'host': None, 'block_migration': False}),        # disk_over_commit required
    ('2.1', {'host': None, 'block_migration': 'auto', 'disk_over_commit': False}),
    ('2.25', {'host': None, 'block_migration': False, 'disk_over_commit': False}),
    ('2.25', {'host': None, 'block_migration': False, 'force': True}),   # force from 2.30
    ('2.68', {'host': None, 'block_migration': False, 'force': True}),   # gone at 2.68
    ('2.30', {'block_migration': False}),                                # host required
    ('2.30', {'host': 'bad host!', 'block_migration': False}),
])
def test_bad_bodies_are_400_and_change_nothing(aio, server, version, spec):
    code, resp = live(aio, server, spec, version)
    assert code == 400, resp
    assert migrations(aio, server) == []


def test_unknown_server_is_404(aio):
    code, _r = live(aio, '9b0c7a5e-1c1a-4a57-9d6e-5b7c5f0c0a11',
                    {'host': None, 'block_migration': 'auto'}, '2.68')
    assert code == 404
