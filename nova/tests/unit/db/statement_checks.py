"""Checks of the statements built once (nova.db.statements), run on every database backend."""

import pytest

from nova import context as nova_context
from nova import exception
from nova.db import api as db_api


def _instance(db, **values):
    base = dict(project_id='p1', user_id='u1', vm_state='active', task_state=None,
                host='h1', created_at=db_api._now())
    base.update(values)
    return db.instance_create(base)


def check_compare_and_swap_shapes(db):
    """The same update shape runs again with other values; None allowed or not."""
    inst = _instance(db)
    uuid = inst['uuid']
    db.instance_update(uuid, {'task_state': 'rescuing'}, expected_task_state=[None],
                       expected_vm_state=['active', 'stopped'])
    with pytest.raises(exception.UnexpectedTaskStateError):
        db.instance_update(uuid, {'task_state': 'rescuing'}, expected_task_state=[None],
                           expected_vm_state=['active', 'stopped'])
    # None among other values: IN (...) OR IS NULL.
    db.instance_update(uuid, {'task_state': None, 'vm_state': 'rescued'},
                       expected_task_state=['rescuing', None], expected_host='h1')
    with pytest.raises(exception.UnexpectedTaskStateError):
        db.instance_update(uuid, {'vm_state': 'active'}, expected_host=['elsewhere'])
    got = db.instance_get(uuid)
    assert (got['vm_state'], got['task_state']) == ('rescued', None)
    # Reads by equal columns: another project does not see it, a deleted row is gone.
    with pytest.raises(exception.InstanceNotFound):
        db.instance_get(uuid, project_id='p2')
    assert db.instance_get(uuid, project_id='p1')['uuid'] == uuid
    db.instance_destroy(uuid)
    with pytest.raises(exception.InstanceNotFound):
        db.instance_get(uuid)
    assert db.instance_get(uuid, read_deleted=True)['deleted']


def check_action_events_and_owners(db):
    """An event's start finds the newest action of the request; its end ends both."""
    inst = _instance(db)
    uuid = inst['uuid']
    ctx = nova_context.RequestContext(user_id='u1', project_id='p1', request_id='req-1')
    older = db.action_start(ctx, uuid, 'reboot')
    newer = db.action_start(ctx, uuid, 'rescue')
    event = db.event_start(uuid, 'req-1', 'compute_rescue_instance', host='h1')
    assert db.event_start(uuid, 'req-other', 'compute_rescue_instance') is None
    assert db.event_owner(event) == {'uuid': uuid, 'host': 'h1', 'project_id': 'p1',
                                     'shelved_host': None}
    assert db.action_owner(newer)['uuid'] == uuid
    assert db.instance_owner(uuid)['host'] == 'h1'
    # Scoped to the instance's host: another host's end writes nothing.
    assert db.event_finish(event, 'Success', instance_host='h2') is False
    assert db.events_get(newer)[0]['finish_time'] is None
    assert db.actions_get(uuid)[0]['finish_time'] is None
    assert db.event_finish(event, 'Error', traceback='tb', instance_host='h1') is True
    actions = {a['id']: a for a in db.actions_get(uuid)}
    assert actions[newer]['finish_time'] is not None
    assert actions[newer]['message'] == 'Error'
    assert actions[older]['finish_time'] is None
    events = db.events_get(newer)
    assert [(e['event'], e['result'], e['traceback']) for e in events] == [
        ('compute_rescue_instance', 'Error', 'tb')]


def check_claim_is_one_transaction(db):
    """A claim writes the task, its action and the console tokens' end together, or nothing."""
    inst = _instance(db)
    uuid = inst['uuid']
    ctx = nova_context.RequestContext(user_id='u1', project_id='p1', request_id='req-2')

    def token(name):
        db.console_token_create(dict(token_hash=name, console_type='novnc', host='h1',
                                     port=5900, instance_uuid=uuid,
                                     expires=db_api._now().timestamp() + 600))
    token('t1')
    with pytest.raises(exception.UnexpectedTaskStateError):
        db.instance_claim(uuid, {'task_state': 'rescuing'}, expected_task_state=[None],
                          expected_vm_state=['stopped'], context=ctx, action='rescue',
                          end_consoles=True)
    assert db.actions_get(uuid) == []
    assert db.console_token_get_valid('t1', 0) is not None
    row, action_id = db.instance_claim(uuid, {'task_state': 'rescuing'},
                                       expected_task_state=[None], context=ctx,
                                       action='rescue', end_consoles=True)
    assert row['task_state'] == 'rescuing'
    assert [(a['id'], a['action'], a['request_id']) for a in db.actions_get(uuid)] == [
        (action_id, 'rescue', 'req-2')]
    assert db.console_token_get_valid('t1', 0) is None
    token('t2')
    db.instance_claim(uuid, {'task_state': None}, context=ctx, action='reboot')
    assert db.console_token_get_valid('t2', 0) is not None
