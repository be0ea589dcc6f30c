"""Reliability on test:///default: restarts, failed actions, timeouts, wrong states."""

import os
import time

import pytest

from nova import context as nova_context
from nova.tests.functional import fixtures

V = '2.100'


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('lifecycle')
    # The test hypervisor is small; let it hold every server of the module.
    running = fixtures.RunningAio(tmp, extra={('DEFAULT', 'rescue_timeout'): 1,
                                              ('DEFAULT', 'ram_allocation_ratio'): 100.0,
                                              ('DEFAULT', 'cpu_allocation_ratio'): 100.0})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    running.compute = running.aio.services[1].manager
    yield running
    running.stop()


def _server(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'life', 'imageRef': aio.image_id, 'flavorRef': '1', 'networks': 'none'}},
        version=V)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    return sid


def _act(aio, sid, body, version=V):
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid, body, version=version)
    return status, resp


def _settle(aio, sid, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = aio.db.instance_get(sid)
        if row['task_state'] is None:
            return row
        time.sleep(0.05)
    raise AssertionError('task_state stuck: %s' % row['task_state'])


def test_restart_reconciles_stuck_tasks_and_finishes_deletes(aio):
    stuck, deleting, building = _server(aio), _server(aio), _server(aio)
    aio.db.instance_update(stuck, {'task_state': 'powering-off'})
    aio.db.instance_update(deleting, {'task_state': 'deleting'})
    aio.db.instance_update(building, {'vm_state': 'building', 'task_state': 'spawning'})
    building_dir = os.path.join(aio.conf.instances_path, building)
    aio.compute._reconcile_on_start()
    row = aio.db.instance_get(stuck)
    assert row['task_state'] is None and row['vm_state'] == 'active'
    assert aio.request('GET', '/servers/' + deleting)[0] == 404
    assert not os.path.exists(os.path.join(aio.conf.instances_path, deleting))
    row = aio.db.instance_get(building)
    assert row['vm_state'] == 'error' and row['task_state'] is None
    assert 'restarted' in aio.db.faults_latest([building])[building]['message']
    assert not os.path.exists(building_dir)
    assert aio.compute.driver.list_instance_uuids().count(deleting) == 0


def test_failed_snapshot_keeps_the_server_and_removes_the_image(aio):
    sid = _server(aio)
    os.unlink(os.path.join(aio.conf.instances_path, sid, 'disk'))
    status, body = _act(aio, sid, {'createImage': {'name': 'will-fail'}})
    assert status == 202, body
    row = _settle(aio, sid)
    assert row['vm_state'] == 'active'
    assert aio.db.faults_latest([sid])[sid]['message']
    status, _h, _b = aio.request('GET', '/v2/images/' + body['image_id'], url=aio.image_url)
    assert status == 404


def test_rescue_timeout_unrescues_automatically(aio, tmp_path):
    sid = _server(aio)
    assert _act(aio, sid, {'rescue': {}})[0] == 200
    aio.wait_for_status(sid, ['RESCUE'])
    server = aio.wait_for_status(sid, ['ACTIVE'], timeout=20)
    assert server['OS-EXT-STS:vm_state'] == 'active'
    actions = aio.request('GET', '/servers/%s/os-instance-actions' % sid)[2]['instanceActions']
    assert [a['action'] for a in actions][:2] == ['unrescue', 'rescue']


@pytest.mark.parametrize('body', [
    {'createImage': {'name': 'snap'}}, {'rebuild': {'imageRef': 'IMAGE'}},
    {'rescue': {}}, {'unrescue': None}, {'reboot': {'type': 'SOFT'}}, {'pause': None},
])
def test_actions_refused_while_rescued_or_building(aio, body):
    sid = _server(aio)
    if 'rebuild' in body:
        body = {'rebuild': {'imageRef': aio.image_id}}
    aio.db.instance_update(sid, {'vm_state': 'building', 'task_state': None})
    status, resp = _act(aio, sid, body)
    assert status == 409, resp
    assert "while it is in vm_state building" in resp['conflictingRequest']['message']
    aio.db.instance_update(sid, {'vm_state': 'active'})


def test_console_output_of_an_unscheduled_server_is_409(aio):
    ctx = nova_context.get_admin_context()
    row = aio.db.instance_create({'project_id': 'demo', 'user_id': 'demo',
                                  'vm_state': 'building', 'task_state': 'scheduling',
                                  'display_name': 'nohost',
                                  'created_at': aio.db.instance_get_all(limit=1)[0][
                                      'created_at']})
    assert ctx.is_admin
    status, resp = _act(aio, row['uuid'], {'os-getConsoleOutput': {}})
    assert status == 409 and 'not ready' in resp['conflictingRequest']['message']


def test_delete_is_idempotent(aio):
    sid = _server(aio)
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    second = aio.request('DELETE', '/servers/' + sid)[0]
    assert second in (204, 404)
    aio.wait_for_status(sid, ['DELETED'])
    assert aio.request('DELETE', '/servers/' + sid)[0] == 404
    assert sid not in aio.compute.driver.list_instance_uuids()
