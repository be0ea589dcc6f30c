"""Tests of nova.quota: limit resolution, counting, checks and settable ranges (real SQLite)."""

import pytest

from nova import context as nova_context
from nova import exception, quota
from nova.conf import new_config
from nova.db import api as db_api

CTX = nova_context.RequestContext(user_id='u1', project_id='p1')
FLAVOR = {'vcpus': 2, 'memory_mb': 512}


@pytest.fixture
def engine(db):
    conf = new_config()
    return quota.QuotaEngine(conf, db)


def _instances(db, n, project_id='p1', user_id='u1', vcpus=2, memory_mb=512):
    for _ in range(n):
        db.instance_create(dict(project_id=project_id, user_id=user_id, vm_state='active',
                                vcpus=vcpus, memory_mb=memory_mb, created_at=db_api._now()))


def test_defaults_come_from_config_then_default_class(engine, db):
    assert engine.defaults()['instances'] == 10
    assert engine.defaults()['ram'] == 51200
    assert engine.defaults()['injected_file_path_bytes'] == 255
    assert engine.defaults()['fixed_ips'] == quota.UNLIMITED
    engine.update_class(CTX, 'default', {'instances': 4})
    assert engine.defaults()['instances'] == 4
    assert engine.project_limits('anyone')['instances'] == 4
    # Another class starts from the configured defaults, not the default class.
    assert engine.class_limits('gold')['instances'] == 10


def test_project_then_user_limits(engine):
    engine.update(CTX, 'p1', {'instances': 6, 'cores': 7})
    engine.update(CTX, 'p1', {'instances': 2}, user_id='u1')
    assert engine.project_limits('p1')['instances'] == 6
    assert engine.user_limits('p1', 'u1')['instances'] == 2
    assert engine.user_limits('p1', 'u1')['cores'] == 7
    assert engine.user_limits('p1', 'u2')['instances'] == 6
    engine.delete(CTX, 'p1', user_id='u1')
    assert engine.user_limits('p1', 'u1')['instances'] == 6
    engine.update(CTX, 'p1', {'instances': 2}, user_id='u1')
    engine.delete(CTX, 'p1')  # the project's and its users' own limits go
    assert engine.user_limits('p1', 'u1')['instances'] == 10


def test_counts_exclude_deleted_and_other_projects(engine, db):
    _instances(db, 2)
    _instances(db, 1, user_id='u2')
    _instances(db, 4, project_id='p2')
    gone = db.instance_create(dict(project_id='p1', user_id='u1', vcpus=2, memory_mb=512,
                                   vm_state='active', created_at=db_api._now()))
    db.instance_destroy(gone['uuid'])
    assert engine.count(CTX, 'instances', 'p1', 'u1') == {'project': 3, 'user': 2}
    assert engine.usages('p1')['cores'] == 6
    assert engine.usages('p1', 'u1')['ram'] == 1024
    details = engine.get_quotas('p1', usages=True)
    assert details['instances'] == {'limit': 10, 'in_use': 3, 'reserved': 0}
    assert details['key_pairs'] == {'limit': 100, 'in_use': 0, 'reserved': 0}


def test_check_deltas_reports_overs_quotas_and_usages(engine, db):
    _instances(db, 9)
    engine.check_deltas(CTX, {'instances': 1}, 'p1', 'u1')
    with pytest.raises(exception.OverQuota) as exc:
        engine.check_deltas(CTX, {'instances': 2, 'cores': 2}, 'p1', 'u1')
    assert exc.value.kwargs['overs'] == ['instances']
    assert exc.value.kwargs['quotas']['instances'] == 10
    assert exc.value.kwargs['usages']['instances'] == 9
    assert exc.value.code == 403


def test_user_limit_binds_only_when_set(engine, db):
    _instances(db, 3, user_id='u2')
    engine.update(CTX, 'p1', {'instances': 1}, user_id='u1')
    engine.check_deltas(CTX, {'instances': 1}, 'p1', 'u1')
    with pytest.raises(exception.OverQuota):
        engine.check_deltas(CTX, {'instances': 2}, 'p1', 'u1')
    # u2 has no limit of its own: only the project's 10 applies.
    engine.check_deltas(CTX, {'instances': 7}, 'p1', 'u2')


def test_unlimited_never_over(engine, db):
    engine.update(CTX, 'p1', {'instances': -1, 'cores': -1, 'ram': -1})
    _instances(db, 30)
    engine.check_deltas(CTX, {'instances': 1000, 'cores': 10 ** 6}, 'p1', 'u1')


def test_check_instances_lowers_max_count_to_what_fits(engine, db):
    _instances(db, 7)  # 14 of 20 cores used: three more fit by count, three by cores
    assert engine.check_instances(CTX, FLAVOR, 1, 2, 'p1', 'u1') == 2
    assert engine.check_instances(CTX, FLAVOR, 1, 9, 'p1', 'u1') == 3
    with pytest.raises(exception.TooManyInstances) as exc:
        engine.check_instances(CTX, FLAVOR, 4, 4, 'p1', 'u1')
    assert exc.value.format_message() == (
        'Quota exceeded for cores, instances: Requested 8, 4, but already used 14, 7 of '
        '20, 10 cores, instances')


def test_check_instances_message_as_upstream(engine, db):
    engine.update(CTX, 'p1', {'cores': -1, 'ram': -1})
    _instances(db, 9)
    with pytest.raises(exception.TooManyInstances) as exc:
        engine.check_instances(CTX, FLAVOR, 3, 3, 'p1', 'u1')
    assert exc.value.format_message() == ('Quota exceeded for instances: Requested 3, but '
                                          'already used 9 of 10 instances')
    with pytest.raises(exception.TooManyInstances) as exc:
        engine.check_instances(CTX, FLAVOR, 2, 5, 'p1', 'u1')
    assert 'Requested 2-5, but already used 9 of 10' in exc.value.format_message()


def test_limit_check_and_metadata(engine):
    engine.limit_check(CTX, 'p1', metadata_items=128)
    with pytest.raises(exception.MetadataLimitExceeded) as exc:
        engine.check_metadata(CTX, {str(i): 'v' for i in range(129)}, 'p1')
    assert exc.value.format_message() == 'Maximum number of metadata items exceeds 128'
    engine.check_metadata(CTX, None, 'p1')


def test_unknown_resources_are_refused(engine):
    with pytest.raises(exception.QuotaResourceUnknown):
        engine.check_deltas(CTX, {'gpus': 1}, 'p1')
    with pytest.raises(exception.QuotaResourceUnknown):
        quota.register_counter(['gpus'], lambda *a, **k: {})


def test_pluggable_counter(db):
    """A feature's counter (here key pairs, per user) is used for its resource."""
    calls = []

    def count_key_pairs(database, conn, project_id, user_id, **scope):
        calls.append((project_id, user_id, scope))
        return {'user': {'key_pairs': 100}}

    engine = quota.QuotaEngine(new_config(), db,
                               counters=dict(quota.COUNTERS, key_pairs=count_key_pairs))
    with pytest.raises(exception.OverQuota) as exc:
        engine.check_deltas(CTX, {'key_pairs': 1}, 'p1', 'u1', group='g')
    assert exc.value.kwargs['overs'] == ['key_pairs']
    assert calls == [('p1', 'u1', {'group': 'g'})]
    engine.update(CTX, 'p1', {'key_pairs': 101})
    engine.check_deltas(CTX, {'key_pairs': 1}, 'p1', 'u1', group='g')


def test_settable_ranges_and_force(engine, db):
    _instances(db, 3)
    engine.update(CTX, 'p1', {'instances': 8})
    engine.update(CTX, 'p1', {'instances': 5}, user_id='u2')
    assert engine.settable('p1')['instances'] == (5, -1)
    assert engine.settable('p1', 'u1')['instances'] == (3, 3)
    with pytest.raises(exception.Invalid, match='greater than or equal to already used'):
        engine.update(CTX, 'p1', {'instances': 2}, user_id='u1')
    with pytest.raises(exception.Invalid, match='less than or equal to 3'):
        engine.update(CTX, 'p1', {'instances': 4}, user_id='u1')
    engine.update(CTX, 'p1', {'instances': 1}, user_id='u1', force=True)
    assert engine.user_limits('p1', 'u1')['instances'] == 1


def test_locked_transaction_commits_with_the_rows(engine, db):
    with pytest.raises(RuntimeError):
        with engine.locked('p1') as conn:
            db.instances_create(conn, [dict(project_id='p1', user_id='u1', vcpus=1,
                                            memory_mb=1, vm_state='building',
                                            created_at=db_api._now())])
            raise RuntimeError('rolled back')
    assert engine.usages('p1')['instances'] == 0
