"""The conductor confines each compute host's database calls to that host's own rows."""

import logging

import pytest

from nova import context as nova_context
from nova import exception
from nova.compute import conductor_db
from nova.conductor import compute_db

FLAVOR = {'vcpus': 1, 'memory_mb': 64, 'root_gb': 1, 'ephemeral_gb': 0, 'swap': 0}


@pytest.fixture
def scoped(db):
    return compute_db.HostScopedDB(db)


def _server(db, host, project='p1', **values):
    values = dict(dict(project_id=project, user_id='u', vm_state='active', task_state=None,
                       host=host, node=host, flavor=FLAVOR), **values)
    return db.instance_create(values)['uuid']


def _as(scoped, host):
    """What the compute manager of ``host`` holds: the proxy, sending straight in."""
    return conductor_db.ConductorDB(host, scoped.dispatch)


def test_a_host_updates_its_own_instance_with_compare_and_swap(db, scoped):
    mine = _server(db, 'h1')
    compute = _as(scoped, 'h1')
    row = compute.instance_update(mine, {'task_state': 'rescuing'}, expected_task_state=[None])
    assert row['task_state'] == 'rescuing'
    # The compare-and-swap still decides in the database: the second one loses.
    with pytest.raises(exception.UnexpectedTaskStateError):
        compute.instance_update(mine, {'task_state': 'powering-off'},
                                expected_task_state=[None])
    assert db.instance_get(mine)['task_state'] == 'rescuing'


def test_a_host_cannot_write_another_hosts_instance(db, scoped, caplog):
    theirs = _server(db, 'h2', project='p2')
    compute = _as(scoped, 'h1')
    with caplog.at_level(logging.WARNING, 'nova.conductor.compute_db'):
        with pytest.raises(exception.HostNotAuthorized) as err:
            compute.instance_update(theirs, {'vm_state': 'error'})
    assert 'Host h1 may not update instance %s' % theirs in str(err.value)
    assert 'Refused: host h1' in caplog.text
    for call in (lambda: compute.instance_destroy(theirs),
                 lambda: compute.fault_create(theirs, 500, 'x'),
                 lambda: compute.bdm_get_by_instance(theirs),
                 lambda: compute.actions_get(theirs, limit=1),
                 lambda: compute.migration_get_by_instance_and_status(theirs, ('finished',)),
                 lambda: compute.bdm_create({'instance_uuid': theirs, 'source_type': 'blank',
                                             'destination_type': 'local'}),
                 lambda: compute.action_start(nova_context.get_admin_context(), theirs,
                                              'stop')):
        with pytest.raises(exception.HostNotAuthorized):
            call()
    row = db.instance_get(theirs)
    assert (row['vm_state'], row['deleted']) == ('active', 0)
    assert db.faults_latest([theirs]) == {} and db.actions_get(theirs) == []
    assert db.bdm_get_by_instance(theirs) == []


def test_a_forged_host_name_in_the_arguments_changes_nothing(db, scoped):
    theirs = _server(db, 'h2', project='p2')
    compute = _as(scoped, 'h1')
    # Listing or reporting for another host by naming it.
    with pytest.raises(exception.HostNotAuthorized):
        compute.instance_get_all({'host': 'h2'})
    for call in (compute.compute_node_set_usage, compute.compute_node_release,
                 compute.compute_node_claim):
        with pytest.raises(exception.HostNotAuthorized):
            call('h2', 1, 1, 1)
    with pytest.raises(exception.HostNotAuthorized):
        compute.service_heartbeat('h2', 'nova-compute', 'compute')
    with pytest.raises(exception.HostNotAuthorized):
        compute.service_heartbeat('h1', 'nova-conductor', 'conductor')
    # Its own listing never includes another host's rows, whatever else it filters on.
    assert [r['uuid'] for r in compute.instance_get_all({'project_id': 'p2'})] == []
    # Taking an instance over, or re-owning its own one, is refused too.
    mine = _server(db, 'h1')
    with pytest.raises(exception.HostNotAuthorized):
        compute.instance_update(theirs, {'host': 'h1'})
    for values in ({'host': 'h2'}, {'node': 'h2'}, {'project_id': 'p2'}, {'user_id': 'x'},
                   {'uuid': theirs}):
        with pytest.raises(exception.HostNotAuthorized):
            compute.instance_update(mine, values)
    assert db.instance_get(theirs)['host'] == 'h2'
    assert db.instance_get(mine)['project_id'] == 'p1'


def test_a_host_reads_of_another_hosts_instance_only_where_it_lives(db, scoped):
    theirs = _server(db, 'h2', project='p2', display_name='secret-name')
    row = _as(scoped, 'h1').instance_get(theirs)
    # Enough to tell a lifecycle event or a leftover domain apart, nothing more.
    assert row == {'uuid': theirs, 'host': 'h2', 'deleted': 0, 'deleted_at': None,
                   'vm_state': 'active', 'task_state': None}
    full = _as(scoped, 'h2').instance_get(theirs)
    assert full['project_id'] == 'p2' and full['display_name'] == 'secret-name'
    with pytest.raises(exception.InstanceNotFound):
        _as(scoped, 'h1').instance_get('00000000-0000-0000-0000-000000000000')


def test_events_and_block_devices_follow_their_instance(db, scoped):
    theirs = _server(db, 'h2', project='p2')
    ctx = nova_context.RequestContext(user_id='u', project_id='p2', request_id='req-1')
    action = db.action_start(ctx, theirs, 'reboot')
    event_id = db.event_start(theirs, 'req-1', 'compute_reboot_instance', host='h2')
    bdm = db.bdm_create({'instance_uuid': theirs, 'source_type': 'blank',
                         'destination_type': 'local', 'volume_size': 1})
    compute = _as(scoped, 'h1')
    for call in (lambda: compute.event_finish(event_id, 'Success'),
                 lambda: compute.events_get(action),
                 lambda: compute.event_start(theirs, 'req-1', 'compute_x', host='h2'),
                 lambda: compute.bdm_update(bdm['uuid'], {'device_name': '/dev/vdz'}),
                 lambda: compute.bdm_destroy(bdm['uuid'])):
        with pytest.raises(exception.HostNotAuthorized):
            call()
    assert db.events_get(action)[0]['finish_time'] is None
    assert [b['device_name'] for b in db.bdm_get_by_instance(theirs)] == [None]
    owner = _as(scoped, 'h2')
    owner.event_finish(event_id, 'Success')
    assert db.events_get(action)[0]['result'] == 'Success'


def test_events_and_faults_name_the_calling_host(db, scoped):
    mine = _server(db, 'h1')
    ctx = nova_context.RequestContext(user_id='u', project_id='p1', request_id='req-2')
    compute = _as(scoped, 'h1')
    action = compute.action_start(ctx, mine, 'stop')
    compute.event_start(mine, 'req-2', 'compute_stop_instance', host='h2')
    compute.fault_create(mine, 500, 'boom', host='h2')
    assert db.events_get(action)[0]['host'] == 'h1'
    assert db.faults_latest([mine])[mine]['host'] == 'h1'
    assert db.actions_get(mine)[0]['project_id'] == 'p1'


def test_migration_hosts_and_the_shelving_host_may_touch_the_instance(db, scoped):
    moving = _server(db, 'h2')
    migration = db.migration_create({'instance_uuid': moving, 'source_compute': 'h2',
                                     'dest_compute': 'h3', 'status': 'migrating',
                                     'old_flavor': FLAVOR, 'new_flavor': FLAVOR})
    dest = _as(scoped, 'h3')
    dest.instance_update(moving, {'task_state': 'resize_finish'})
    dest.migration_update(migration['id'], {'status': 'finished'})
    assert dest.migration_get(migration['id'])['status'] == 'finished'
    with pytest.raises(exception.HostNotAuthorized):
        _as(scoped, 'h4').migration_update(migration['id'], {'status': 'error'})
    with pytest.raises(exception.HostNotAuthorized):
        dest.migration_update(migration['id'], {'dest_compute': 'h4'})
    db.migration_update(migration['id'], {'status': 'confirmed'})
    # Once the migration is over, only the instance's host may.
    with pytest.raises(exception.HostNotAuthorized):
        dest.instance_update(moving, {'task_state': None})
    offloaded = _server(db, None, vm_state='shelved_offloaded',
                        system_metadata={'shelved_host': 'h1'})
    _as(scoped, 'h1').instance_update(offloaded, {'task_state': None})
    with pytest.raises(exception.HostNotAuthorized):
        _as(scoped, 'h2').instance_update(offloaded, {'task_state': None})


def test_the_host_check_and_the_update_are_one_statement(db, scoped, monkeypatch):
    """An instance that changes hosts between the check and the write is not written."""
    moving = _server(db, 'h2')
    db.migration_create({'instance_uuid': moving, 'source_compute': 'h2',
                         'dest_compute': 'h3', 'status': 'migrating'})
    real_owner = db.instance_owner

    def owner_then_move(uuid):
        found = real_owner(uuid)
        db.instance_update(uuid, {'host': 'h4'})   # a real write lands in between
        return found
    monkeypatch.setattr(db, 'instance_owner', owner_then_move)
    with pytest.raises(exception.UnexpectedTaskStateError):
        scoped.dispatch(None, 'h3', 'instance_update', [moving, {'vm_state': 'error'}], {})
    row = db.instance_get(moving)
    assert (row['host'], row['vm_state']) == ('h4', 'active')


def test_a_write_to_its_own_instance_is_a_single_statement(db, scoped, monkeypatch):
    mine = _server(db, 'h1')
    looked_up = []
    monkeypatch.setattr(db, 'instance_owner', lambda uuid: looked_up.append(uuid))
    _as(scoped, 'h1').instance_update(mine, {'power_state': 4}, expected_task_state=[None])
    _as(scoped, 'h1').instance_get(mine)
    assert looked_up == [] and db.instance_get(mine)['power_state'] == 4


def test_only_the_listed_operations_are_served(db, scoped):
    for method in ('instance_create', 'flavor_get', 'instance_hard_delete', '_refuse',
                   'dispatch'):
        with pytest.raises(exception.HostNotAuthorized):
            scoped.dispatch(None, 'h1', method, [], {})
    missing = [m for m in conductor_db.OPERATIONS if not hasattr(scoped, m)]
    assert missing == []
    with pytest.raises(AttributeError):
        _as(scoped, 'h1').instance_hard_delete('x')


def test_the_heartbeat_records_the_compute_hosts_own_code_version(db, scoped):
    from nova.version import SERVICE_VERSION
    _as(scoped, 'h1').service_heartbeat('h1', 'nova-compute', 'compute')
    [row] = db.service_get_all('nova-compute')
    assert (row['host'], row['version']) == ('h1', SERVICE_VERSION)
    # An older compute host's heartbeat says so, whatever the conductor runs.
    scoped.dispatch(None, 'h1', 'service_heartbeat', ['h1', 'nova-compute', 'compute'],
                    {'version': SERVICE_VERSION - 1})
    assert db.service_get_all('nova-compute')[0]['version'] == SERVICE_VERSION - 1


def test_event_start_by_the_instance_host_and_by_a_migration_destination(db, scoped):
    moving = _server(db, 'h2')
    ctx = nova_context.RequestContext(user_id='u', project_id='p1', request_id='req-m')
    action = db.action_start(ctx, moving, 'migrate')
    # The instance's host: checked in the action look-up itself.
    assert _as(scoped, 'h2').event_start(moving, 'req-m', 'compute_prep_resize')
    # Another host is refused until a migration names it; then it may record.
    with pytest.raises(exception.HostNotAuthorized):
        _as(scoped, 'h3').event_start(moving, 'req-m', 'compute_finish_resize')
    db.migration_create({'instance_uuid': moving, 'source_compute': 'h2',
                         'dest_compute': 'h3', 'status': 'migrating',
                         'old_flavor': FLAVOR, 'new_flavor': FLAVOR})
    assert _as(scoped, 'h3').event_start(moving, 'req-m', 'compute_finish_resize')
    assert [(e['event'], e['host']) for e in db.events_get(action)] == [
        ('compute_prep_resize', 'h2'), ('compute_finish_resize', 'h3')]
    # No action for the request: nothing recorded, for the owner as for a stranger.
    assert _as(scoped, 'h2').event_start(moving, 'req-none', 'compute_x') is None


def test_event_finish_by_the_instance_host_is_one_update(db, scoped, monkeypatch):
    mine, moving = _server(db, 'h1'), _server(db, 'h2')
    ctx = nova_context.RequestContext(user_id='u', project_id='p1', request_id='req-f')
    action = db.action_start(ctx, mine, 'reboot')
    db.action_start(ctx, moving, 'migrate')
    event_id = db.event_start(mine, 'req-f', 'compute_reboot_instance', host='h1')
    moved_id = db.event_start(moving, 'req-f', 'compute_finish_resize', host='h3')
    looked_up = []
    real_owner = db.event_owner
    monkeypatch.setattr(db, 'event_owner', lambda eid: looked_up.append(eid) or real_owner(eid))
    # The instance's host: the check is in the update, no owner look-up.
    _as(scoped, 'h1').event_finish(event_id, 'Success')
    assert looked_up == []
    [event] = db.events_get(action)
    assert event['result'] == 'Success' and event['finish_time'] is not None
    # Another host is looked at: refused, nothing written...
    with pytest.raises(exception.HostNotAuthorized):
        _as(scoped, 'h3').event_finish(moved_id, 'Success')
    assert looked_up == [moved_id]
    assert db.events_get(db.actions_get(moving)[0]['id'])[0]['finish_time'] is None
    # ...until a migration names it.
    db.migration_create({'instance_uuid': moving, 'source_compute': 'h2',
                         'dest_compute': 'h3', 'status': 'migrating',
                         'old_flavor': FLAVOR, 'new_flavor': FLAVOR})
    _as(scoped, 'h3').event_finish(moved_id, 'Error')
    assert db.events_get(db.actions_get(moving)[0]['id'])[0]['result'] == 'Error'
    assert db.actions_get(moving)[0]['message'] == 'Error'
