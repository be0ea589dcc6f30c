"""Tests of the database layer: CAS updates, claims, pagination, soft delete."""

import concurrent.futures
import datetime

import pytest

from nova import exception
from nova.db import api as db_api


def _instance(db, **values):
    base = dict(project_id='p1', user_id='u1', vm_state='building', task_state='scheduling',
                display_name='vm', created_at=db_api._now())
    base.update(values)
    return db.instance_create(base)


def test_instance_update_compare_and_swap(db):
    inst = _instance(db)
    db.instance_update(inst['uuid'], {'task_state': 'spawning'},
                       expected_task_state=['scheduling'])
    with pytest.raises(exception.UnexpectedTaskStateError):
        db.instance_update(inst['uuid'], {'task_state': None},
                           expected_task_state=['scheduling'])
    assert db.instance_get(inst['uuid'])['task_state'] == 'spawning'


def test_instance_update_expected_none(db):
    inst = _instance(db, task_state=None)
    db.instance_update(inst['uuid'], {'task_state': 'deleting'}, expected_task_state=[None])
    with pytest.raises(exception.UnexpectedTaskStateError):
        db.instance_update(inst['uuid'], {'task_state': 'x'}, expected_task_state=[None])


def test_json_columns_round_trip(db):
    inst = _instance(db, metadata={'a': 'b'}, system_metadata={'image_hw_disk_bus': 'scsi'},
                     tags=['t1'], flavor={'flavorid': '1'})
    got = db.instance_get(inst['uuid'])
    assert got['metadata'] == {'a': 'b'}
    assert got['system_metadata'] == {'image_hw_disk_bus': 'scsi'}
    assert got['tags'] == ['t1'] and got['flavor'] == {'flavorid': '1'}


def test_project_isolation_and_soft_delete(db):
    inst = _instance(db)
    with pytest.raises(exception.InstanceNotFound):
        db.instance_get(inst['uuid'], project_id='other')
    db.instance_destroy(inst['uuid'])
    with pytest.raises(exception.InstanceNotFound):
        db.instance_get(inst['uuid'])
    assert db.instance_get(inst['uuid'], read_deleted=True)['vm_state'] == 'deleted'
    with pytest.raises(exception.InstanceNotFound):
        db.instance_destroy(inst['uuid'])


def test_marker_pagination_is_stable(db):
    base = datetime.datetime(2026, 1, 1)
    uuids = [_instance(db, created_at=base + datetime.timedelta(seconds=i // 2))['uuid']
             for i in range(7)]
    seen, marker = [], None
    while True:
        page = db.instance_get_all({'project_id': 'p1'}, limit=3, marker=marker)
        if not page:
            break
        seen.extend(r['uuid'] for r in page)
        marker = page[-1]['uuid']
    assert sorted(seen) == sorted(uuids) and len(seen) == 7
    assert seen == [r['uuid'] for r in db.instance_get_all({'project_id': 'p1'})]


def _node(db, vcpus=4, memory_mb=4096, local_gb=100):
    db.service_heartbeat('h1', 'nova-compute', 'compute')
    return db.compute_node_update('h1', dict(
        hypervisor_hostname='h1', vcpus=vcpus, memory_mb=memory_mb, local_gb=local_gb,
        cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0, disk_allocation_ratio=1.0))


def test_concurrent_claims_never_overcommit(db):
    _node(db, vcpus=64, memory_mb=5 * 1024)

    def claim(_):
        return db.compute_node_claim('h1', 1, 1024, 1)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(claim, range(20)))
    assert results.count(True) == 5
    node = db.compute_node_get('h1')
    assert node['memory_mb_used'] == 5 * 1024 and node['vcpus_used'] == 5


def test_release_never_goes_negative(db):
    _node(db)
    assert db.compute_node_claim('h1', 2, 1024, 10)
    db.compute_node_release('h1', 4, 4096, 50)
    node = db.compute_node_get('h1')
    assert (node['vcpus_used'], node['memory_mb_used'], node['local_gb_used']) == (0, 0, 0)


def test_hosts_with_room_skip_disabled_and_dead(db):
    _node(db)
    recent = db_api.utcnow_minus(60)
    assert [n['host'] for n in db.compute_nodes_with_room(1, 512, 1, recent)] == ['h1']
    assert db.compute_nodes_with_room(8, 512, 1, recent) == []
    db.service_update('h1', 'nova-compute', {'disabled': True})
    assert db.compute_nodes_with_room(1, 512, 1, recent) == []
    db.service_update('h1', 'nova-compute', {'disabled': False})
    future = db_api.utcnow_minus(-60)
    assert db.compute_nodes_with_room(1, 512, 1, future) == []


def test_flavor_unique_and_filters(db):
    db.flavor_create(dict(flavorid='1', name='a', vcpus=1, memory_mb=512, root_gb=1))
    db.flavor_create(dict(flavorid='2', name='b', vcpus=2, memory_mb=2048, root_gb=20,
                          is_public=False))
    with pytest.raises(exception.FlavorExists):
        db.flavor_create(dict(flavorid='1', name='c', vcpus=1, memory_mb=1, root_gb=1))
    assert [f['flavorid'] for f in db.flavor_get_all()] == ['1']
    assert [f['flavorid'] for f in db.flavor_get_all(is_public=None, min_ram=1024)] == ['2']
    assert [f['flavorid'] for f in db.flavor_get_all(is_public=None, limit=1,
                                                     marker='1')] == ['2']


def test_actions_and_events(db):
    from nova import context
    inst = _instance(db)
    ctx = context.RequestContext(user_id='u1', project_id='p1', request_id='req-1')
    action_id = db.action_start(ctx, inst['uuid'], 'create')
    event_id = db.event_start(inst['uuid'], 'req-1', 'compute_build', host='h1')
    db.event_finish(event_id, 'Error', traceback='tb')
    actions = db.actions_get(inst['uuid'])
    assert actions[0]['id'] == action_id and actions[0]['message'] == 'Error'
    events = db.events_get(action_id)
    assert events[0]['result'] == 'Error' and events[0]['host'] == 'h1'


def test_hard_delete_leaves_no_rows(db):
    from nova import context
    inst = _instance(db)
    db.action_start(context.RequestContext(request_id='r'), inst['uuid'], 'create')
    db.fault_create(inst['uuid'], 500, 'boom')
    db.instance_hard_delete(inst['uuid'])
    assert db.instance_count() == 0
    assert db.actions_get(inst['uuid']) == []
    assert db.faults_latest([inst['uuid']]) == {}



def test_file_sqlite_reads_run_only_their_own_statements(db):
    """A pooled SQLite connection is not pinged ("SELECT 1") on every checkout."""
    import sqlalchemy as sa
    inst = _instance(db)
    statements = []

    def trace(dbapi_conn, _record, _proxy):
        # On the raw connection: SQLAlchemy's ping bypasses its own events.
        dbapi_conn.set_trace_callback(statements.append)
    sa.event.listen(db.engine, 'checkout', trace)
    try:
        for _ in range(3):
            db.instance_get(inst['uuid'])
    finally:
        sa.event.remove(db.engine, 'checkout', trace)
    assert len([s for s in statements if 'FROM instances' in s]) == 3, statements
    assert not [s for s in statements if s.strip().upper() == 'SELECT 1'], statements
