"""The schema migrations and the claim/CAS queries on PostgreSQL and MariaDB."""

import concurrent.futures

import pytest

from nova import exception
from nova.db import api as db_api
from nova.db import migration
from nova.tests.functional import services
from nova.tests.unit.db import statement_checks

BACKENDS = [pytest.param(services.PG_URL, id='postgresql', marks=pytest.mark.postgresql),
            pytest.param(services.MYSQL_URL, id='mysql', marks=pytest.mark.mysql)]


def _from_conf(url, **options):
    """A Database built as the services build it, from [database] options."""
    import nova.conf
    conf = nova.conf.new_config([])
    conf.set_override('connection', url, group='database')
    for name, value in options.items():
        conf.set_override(name, value, group='database')
    return db_api.Database.from_conf(conf)


@pytest.fixture(params=BACKENDS)
def backend_db(request):
    services.require(request.param, request.node.callspec.id)
    with services.ThrowawayDatabase(request.param) as tmp:
        database = _from_conf(tmp.url)
        database.sync()
        yield database
        database.dispose()


@pytest.mark.parametrize('url', BACKENDS)
def test_engine_honours_the_database_options(request, url):
    """[database] max_pool_size, max_overflow and mysql_sql_mode reach the engine."""
    services.require(url, request.node.callspec.id)
    with services.ThrowawayDatabase(url) as tmp:
        database = _from_conf(tmp.url, max_pool_size=3, max_overflow=2,
                              mysql_sql_mode='ANSI_QUOTES')
        try:
            assert database.engine.pool.size() == 3
            assert database.engine.pool._max_overflow == 2
            if database.engine.dialect.name == 'mysql':
                with database.engine.connect() as conn:
                    mode = conn.exec_driver_sql('SELECT @@SESSION.sql_mode').scalar()
                assert mode == 'ANSI_QUOTES'
        finally:
            database.dispose()


def test_migrations_reach_head(backend_db):
    from alembic import script
    heads = script.ScriptDirectory.from_config(migration._config()).get_heads()
    assert [migration.db_version(backend_db.engine)] == heads
    backend_db.sync()  # idempotent


def test_concurrent_claims_never_overcommit(backend_db):
    backend_db.service_heartbeat('h1', 'nova-compute', 'compute')
    backend_db.compute_node_update('h1', dict(
        hypervisor_hostname='h1', vcpus=64, memory_mb=3 * 1024, local_gb=100,
        cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0, disk_allocation_ratio=1.0))
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: backend_db.compute_node_claim('h1', 1, 1024, 1),
                                range(12)))
    assert results.count(True) == 3
    assert backend_db.compute_node_get('h1')['memory_mb_used'] == 3 * 1024
    backend_db.compute_node_release('h1', 10, 10 * 1024, 10)
    assert backend_db.compute_node_get('h1')['memory_mb_used'] == 0


def test_compare_and_swap_and_json(backend_db):
    inst = backend_db.instance_create(dict(
        project_id='p', vm_state='building', task_state='scheduling',
        created_at=db_api._now(), system_metadata={'image_hw_disk_bus': 'virtio'}))
    backend_db.instance_update(inst['uuid'], {'task_state': None},
                               expected_task_state=['scheduling'])
    with pytest.raises(exception.UnexpectedTaskStateError):
        backend_db.instance_update(inst['uuid'], {'task_state': 'x'},
                                   expected_task_state=['scheduling'])
    got = backend_db.instance_get(inst['uuid'])
    assert got['system_metadata'] == {'image_hw_disk_bus': 'virtio'}
    assert got['task_state'] is None


def test_statements_built_once(backend_db):
    # Expanding IN lists, IS NULL alternatives, an UPDATE through a subquery.
    statement_checks.check_compare_and_swap_shapes(backend_db)
    statement_checks.check_action_events_and_owners(backend_db)
    statement_checks.check_claim_is_one_transaction(backend_db)


def test_instances_filtered_by_flavorid_in_the_flavor_json(backend_db):
    # The JSON lookup differs per dialect (PostgreSQL casts to its JSON type).
    for flavorid in ('42', '7'):
        backend_db.instance_create(dict(
            project_id='p', vm_state='active', created_at=db_api._now(),
            flavor={'flavorid': flavorid, 'name': 'f%s' % flavorid}))
    rows = backend_db.instance_get_all({'instance_type_flavorid': '42'})
    assert [row['flavor']['flavorid'] for row in rows] == ['42']


def test_one_servers_view_in_one_query(backend_db):
    # GET /servers/{id}: the instance, its volume mappings and its groups joined.
    inst = backend_db.instance_create(dict(
        project_id='p', vm_state='active', created_at=db_api._now(),
        metadata={'k': 'v'}), bdms=[
        dict(source_type='image', destination_type='local', boot_index=0),
        dict(source_type='volume', destination_type='volume', volume_id='vol-a',
             boot_index=-1, delete_on_termination=False),
        dict(source_type='volume', destination_type='volume', volume_id='vol-b',
             boot_index=-1, delete_on_termination=True)])
    group = backend_db.server_group_create(dict(name='g', project_id='p', user_id='u'),
                                           'affinity')
    backend_db.server_group_add_members(group['uuid'], [inst['uuid']])
    got, vols, groups = backend_db.instance_get_for_view(inst['uuid'], project_id='p',
                                                         with_groups=True)
    assert got == backend_db.instance_get(inst['uuid'])
    assert got['metadata'] == {'k': 'v'}
    assert [(v['volume_id'], bool(v['delete_on_termination'])) for v in vols] == [
        ('vol-a', False), ('vol-b', True)]
    assert groups == [group['uuid']]
    assert backend_db.instance_get_for_view(inst['uuid'])[2] == []
    with pytest.raises(exception.InstanceNotFound):
        backend_db.instance_get_for_view(inst['uuid'], project_id='other')
