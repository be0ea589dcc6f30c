"""Concurrent creates never pass the instances quota, on SQLite, PostgreSQL and MariaDB."""

import concurrent.futures
import threading

import pytest

from nova import context as nova_context
from nova import exception, quota
from nova.conf import new_config
from nova.db import api as db_api
from nova.db import migration
from nova.tests.functional import services

BACKENDS = [pytest.param('sqlite', id='sqlite'),
            pytest.param(services.PG_URL, id='postgresql', marks=pytest.mark.postgresql),
            pytest.param(services.MYSQL_URL, id='mysql', marks=pytest.mark.mysql)]
FLAVOR = {'vcpus': 1, 'memory_mb': 64}


@pytest.fixture(params=BACKENDS)
def database(request, tmp_path):
    if request.param == 'sqlite':
        database = db_api.Database('sqlite:///%s' % (tmp_path / 'nova.sqlite'))
        database.sync()
        yield database
        database.dispose()
        return
    services.require(request.param, request.node.callspec.id)
    with services.ThrowawayDatabase(request.param) as tmp:
        database = db_api.Database(tmp.url)
        database.sync()
        yield database
        database.dispose()


def _create(database, engine, project_id, count, barrier):
    """What compute API create does: check and insert under the project's lock."""
    ctx = nova_context.RequestContext(user_id='u', project_id=project_id)
    barrier.wait()
    try:
        with engine.locked(project_id) as conn:
            allowed = engine.check_instances(ctx, FLAVOR, 1, count, project_id, 'u', conn=conn)
            values = [dict(project_id=project_id, user_id='u', vm_state='building',
                           vcpus=1, memory_mb=64, created_at=db_api._now())
                      for _ in range(allowed)]
            return len(database.instances_create(conn, values, context=ctx, action='create'))
    except exception.TooManyInstances:
        return 0


@pytest.mark.parametrize('count', [1, 2])
def test_parallel_creates_never_exceed_quota(database, count):
    conf = new_config()
    conf.set_override('instances', 5, group='quota')
    engine = quota.QuotaEngine(conf, database)
    threads = 12
    barrier = threading.Barrier(threads)
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        created = list(pool.map(lambda _: _create(database, engine, 'race', count, barrier),
                                range(threads)))
    # Every unit of quota is used, and never more than the quota.
    assert sum(created) == 5
    assert database.instance_count(project_id='race') == 5
    # Each request got what fitted: all it asked for, or the last unit.
    assert sorted(c for c in created if c) == sorted([count] * (5 // count) + [1] * (5 % count))
    # Every instance has its create action, written in the same transaction.
    for row in database.instance_get_all({'project_id': 'race'}):
        assert [a['action'] for a in database.actions_get(row['uuid'])] == ['create']


def test_migrations_reach_head(database):
    from alembic import script
    heads = script.ScriptDirectory.from_config(migration._config()).get_heads()
    assert [migration.db_version(database.engine)] == heads
