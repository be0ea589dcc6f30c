"""The migrations table's queries on SQLite, PostgreSQL and MariaDB: order, paging, CAS."""

import datetime

import pytest

from nova import exception
from nova.db import api as db_api
from nova.tests.functional import services
from nova.tests.functional.test_db_backends import BACKENDS


@pytest.fixture(params=[pytest.param('sqlite', id='sqlite')] + BACKENDS)
def database(request, tmp_path):
    if request.param == 'sqlite':
        db = db_api.Database('sqlite:///%s' % (tmp_path / 'm.db'))
        db.sync()
        yield db
        db.dispose()
        return
    services.require(request.param, request.node.callspec.id)
    with services.ThrowawayDatabase(request.param) as tmp:
        db = db_api.Database(tmp.url)
        db.sync()
        yield db
        db.dispose()


def test_list_order_paging_filters_and_cas(database):
    t0 = datetime.datetime(2026, 1, 1, 10, 0, 0)
    rows = [database.migration_create({
        'instance_uuid': 'i%d' % (n % 2), 'status': 'finished', 'migration_type': 'resize',
        'source_compute': 'h1', 'dest_compute': 'h1' if n else 'h2',
        'old_flavor': {'flavorid': 'a'}, 'new_flavor': {'flavorid': 'b'},
        'created_at': t0 + datetime.timedelta(seconds=n // 2)}) for n in range(5)]
    listed = database.migration_list()
    # Newest first; equal created_at falls back to the id.
    assert [m['id'] for m in listed] == [r['id'] for r in reversed(rows)]
    assert listed[0]['new_flavor'] == {'flavorid': 'b'}
    page = database.migration_list(limit=2, marker=listed[1]['uuid'])
    assert [m['id'] for m in page] == [m['id'] for m in listed[2:4]]
    assert [m['id'] for m in database.migration_list({'instance_uuid': 'i0'})] == \
        [rows[4]['id'], rows[2]['id'], rows[0]['id']]
    assert [m['id'] for m in database.migration_list({'host': 'h2'})] == [rows[0]['id']]
    with pytest.raises(exception.MarkerNotFound):
        database.migration_list(marker='nope')
    database.migration_update(rows[0]['id'], {'status': 'confirming'},
                              expected_status=('finished',))
    with pytest.raises(exception.Conflict):
        database.migration_update(rows[0]['id'], {'status': 'reverting'},
                                  expected_status=('finished',))
    assert database.migration_get_by_instance_and_status('i0', ('finished',))['id'] == \
        rows[4]['id']
