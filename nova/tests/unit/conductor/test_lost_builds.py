"""Conductor: servers left waiting for a host by a crash are set to ERROR with a fault."""

import datetime
import types

from nova import context as nova_context
from nova.conductor import manager
from nova.db import api as db_api


def _conductor(db, transport_url='fake:/', timeout=600):
    conf = types.SimpleNamespace(transport_url=transport_url, stuck_task_timeout=timeout,
                                 service_down_time=60, default_availability_zone='nova')
    return manager.ConductorManager(conf, db, compute_rpcapi=None)


def _server(db, age, host=None, task_state='scheduling', vm_state='building'):
    when = db_api._now() - datetime.timedelta(seconds=age)
    inst = db.instance_create(dict(project_id='p', user_id='u', vm_state=vm_state,
                                   task_state=task_state, host=host, created_at=when,
                                   updated_at=when))
    ctx = nova_context.RequestContext(user_id='u', project_id='p')
    db.action_start(ctx, inst['uuid'], 'create')
    return inst['uuid']


def test_start_with_in_process_messaging_fails_every_unscheduled_build(db):
    lost = _server(db, age=0)
    placed = _server(db, age=0, host='h1')
    active = _server(db, age=0, task_state=None, vm_state='active')
    _conductor(db).init_host()
    row = db.instance_get(lost)
    assert (row['vm_state'], row['task_state']) == ('error', None)
    assert 'lost before a host was chosen' in db.faults_latest([lost])[lost]['message']
    events = db.events_get(db.actions_get(lost, limit=1)[0]['id'])
    assert [(e['event'], e['result']) for e in events] == [
        ('conductor_reconcile_lost_build', 'Error')]
    # A host was chosen: the compute host reconciles it; others are untouched.
    assert db.instance_get(placed)['vm_state'] == 'building'
    assert db.instance_get(active)['vm_state'] == 'active'
    assert db.faults_latest([placed, active]) == {}


def test_with_a_broker_only_stale_requests_are_lost(db):
    fresh = _server(db, age=10)
    stale = _server(db, age=700)
    conductor = _conductor(db, transport_url='rabbit://h/')
    conductor.init_host()
    assert db.instance_get(fresh)['vm_state'] == 'building'
    assert db.instance_get(stale)['vm_state'] == 'error'
    assert conductor.lost_builds.fail_lost_builds() == 0
