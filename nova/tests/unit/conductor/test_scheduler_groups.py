"""Server group placement in the scheduler, on a real SQLite database with two hosts."""

import types

import pytest

from nova import exception
from nova.conductor import scheduler as scheduler_mod
from nova.db import api as db_api

FLAVOR = {'vcpus': 1, 'memory_mb': 64, 'root_gb': 0, 'ephemeral_gb': 0, 'swap': 0}


@pytest.fixture
def sched(db):
    # host1 has more free RAM, so without a group it always wins.
    for host, ram in (('host1', 4096), ('host2', 2048)):
        db.service_heartbeat(host, 'nova-compute')
        db.compute_node_update(host, {'hypervisor_hostname': host, 'vcpus': 8,
                                      'memory_mb': ram, 'local_gb': 100})
    return scheduler_mod.Scheduler(types.SimpleNamespace(service_down_time=60), db)


def _member(db, group, host):
    inst = db.instance_create(dict(project_id='p', user_id='u', vm_state='active',
                                   host=host, created_at=db_api._now()))
    db.server_group_add_members(group['uuid'], [inst['uuid']])
    return inst


def _group(db, policy, rules=None):
    return db.server_group_create({'name': policy, 'project_id': 'p', 'user_id': 'u'},
                                  policy, rules)


def test_affinity_follows_the_first_member(db, sched):
    group = _group(db, 'affinity')
    assert sched.select_and_claim(FLAVOR, group=group['uuid'])['host'] == 'host1'
    _member(db, group, 'host2')
    assert sched.select_and_claim(FLAVOR, group=group['uuid'])['host'] == 'host2'


def test_anti_affinity_avoids_members_and_fails_when_full(db, sched):
    group = _group(db, 'anti-affinity')
    _member(db, group, 'host1')
    assert sched.select_and_claim(FLAVOR, group=group['uuid'])['host'] == 'host2'
    _member(db, group, 'host2')
    with pytest.raises(exception.NoValidHost):
        sched.select_and_claim(FLAVOR, group=group['uuid'])


def test_anti_affinity_max_server_per_host(db, sched):
    group = _group(db, 'anti-affinity', {'max_server_per_host': 2})
    _member(db, group, 'host1')
    assert sched.select_and_claim(FLAVOR, group=group['uuid'])['host'] == 'host1'
    _member(db, group, 'host1')
    assert sched.select_and_claim(FLAVOR, group=group['uuid'])['host'] == 'host2'


def test_soft_policies_weigh_but_never_filter(db, sched):
    soft_anti = _group(db, 'soft-anti-affinity')
    _member(db, soft_anti, 'host1')
    assert sched.select_and_claim(FLAVOR, group=soft_anti['uuid'])['host'] == 'host2'
    _member(db, soft_anti, 'host2')
    _member(db, soft_anti, 'host2')
    assert sched.select_and_claim(FLAVOR, group=soft_anti['uuid'])['host'] == 'host1'
    soft = _group(db, 'soft-affinity')
    _member(db, soft, 'host2')
    assert sched.select_and_claim(FLAVOR, group=soft['uuid'])['host'] == 'host2'


def test_deleted_members_do_not_count(db, sched):
    group = _group(db, 'anti-affinity')
    inst = _member(db, group, 'host1')
    _member(db, group, 'host2')
    db.instance_destroy(inst['uuid'])
    assert db.server_group_get(group['uuid'])['members'] != [inst['uuid']]
    assert sched.select_and_claim(FLAVOR, group=group['uuid'])['host'] == 'host1'


def test_a_group_deleted_meanwhile_places_freely(db, sched):
    group = _group(db, 'anti-affinity')
    _member(db, group, 'host1')
    db.server_group_delete(group['uuid'])
    assert sched.select_and_claim(FLAVOR, group=group['uuid'])['host'] == 'host1'


def test_counts_for_quota(db):
    group = _group(db, 'affinity')
    _group(db, 'affinity')
    assert db.server_group_count('p') == 2 and db.server_group_count('p', 'other') == 0
    inst = _member(db, group, 'host1')
    _member(db, group, None)
    assert db.server_group_member_count(group['uuid']) == 2
    db.instance_destroy(inst['uuid'])
    assert db.server_group_member_count(group['uuid']) == 1
    assert db.server_groups_by_instance([inst['uuid']]) == {}


def test_same_and_different_host_hints(db, sched):
    group = _group(db, 'affinity')
    on2 = _member(db, group, 'host2')
    assert sched.select_and_claim(FLAVOR, same_host=[on2['uuid']])['host'] == 'host2'
    assert sched.select_and_claim(FLAVOR, different_host=[on2['uuid']])['host'] == 'host1'
    with pytest.raises(exception.NoValidHost):
        sched.select_and_claim(FLAVOR, same_host=[on2['uuid']],
                               different_host=[on2['uuid']])
