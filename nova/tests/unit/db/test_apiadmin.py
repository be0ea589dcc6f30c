"""Key pairs, flavor access, aggregates and service administration on real SQLite."""

import pytest
import sqlalchemy as sa

from nova import exception
from nova.db import api as db_api
from nova.db import migration


def test_key_pairs_are_per_user_and_paged(db):
    for name in ('b', 'a', 'c'):
        db.key_pair_create(dict(name=name, user_id='u1', type='ssh', public_key='k',
                                fingerprint='f'))
    db.key_pair_create(dict(name='a', user_id='u2', type='ssh', public_key='k',
                            fingerprint='f'))
    with pytest.raises(exception.KeyPairExists):
        db.key_pair_create(dict(name='a', user_id='u1', type='ssh', public_key='k'))
    assert [k['name'] for k in db.key_pair_get_all('u1')] == ['a', 'b', 'c']
    assert [k['name'] for k in db.key_pair_get_all('u1', limit=1, marker='a')] == ['b']
    with pytest.raises(exception.MarkerNotFound):
        db.key_pair_get_all('u1', marker='zz')
    assert db.key_pair_count('u1') == 3
    db.key_pair_destroy('u1', 'a')
    with pytest.raises(exception.KeypairNotFound):
        db.key_pair_get('u1', 'a')
    assert db.key_pair_get('u2', 'a')['user_id'] == 'u2'


def test_flavor_access_and_listing(db):
    db.flavor_create(dict(flavorid='p', name='private', vcpus=1, memory_mb=1, is_public=False))
    db.flavor_create(dict(flavorid='q', name='public', vcpus=1, memory_mb=1))
    db.flavor_access_add('p', 'proj')
    with pytest.raises(exception.FlavorAccessExists):
        db.flavor_access_add('p', 'proj')
    assert db.flavor_access_get('p') == ['proj']
    listed = db.flavor_get_all(is_public=True, project_id='proj')
    assert sorted(f['flavorid'] for f in listed) == ['p', 'q']
    assert [f['flavorid'] for f in db.flavor_get_all(is_public=True, project_id='other')] == \
        ['q']
    db.flavor_access_remove('p', 'proj')
    with pytest.raises(exception.FlavorAccessNotFound):
        db.flavor_access_remove('p', 'proj')
    db.flavor_access_add('p', 'proj')
    db.flavor_destroy('p')
    with pytest.raises(exception.FlavorNotFound):
        db.flavor_access_get('p')


def test_extra_specs_merge_and_delete(db):
    db.flavor_create(dict(flavorid='f', name='f', vcpus=1, memory_mb=1))
    db.flavor_extra_specs_update('f', {'a': '1', 'b': '2'})
    assert db.flavor_extra_specs_update('f', {'b': '3'}) == {'a': '1', 'b': '3'}
    db.flavor_extra_specs_update('f', {}, delete_key='a')
    assert db.flavor_get('f')['extra_specs'] == {'b': '3'}
    with pytest.raises(exception.FlavorExtraSpecsNotFound):
        db.flavor_extra_specs_update('f', {}, delete_key='a')


def test_aggregates_hosts_metadata_and_zones(db):
    agg = db.aggregate_create('rack1', {'availability_zone': 'az1'})
    with pytest.raises(exception.AggregateNameExists):
        db.aggregate_create('rack1')
    db.aggregate_host_add(agg['id'], 'h1')
    with pytest.raises(exception.AggregateHostExists):
        db.aggregate_host_add(agg['id'], 'h1')
    assert db.host_zones() == {'h1': 'az1'}
    agg = db.aggregate_metadata_set(agg['uuid'], {'k': 'v', 'availability_zone': None})
    assert agg['metadata'] == {'k': 'v'} and db.host_zones() == {}
    with pytest.raises(exception.AggregateNotFound):
        db.aggregate_get('-1')
    db.aggregate_host_remove(agg['id'], 'h1')
    with pytest.raises(exception.AggregateHostNotFound):
        db.aggregate_host_remove(agg['id'], 'h1')
    db.aggregate_destroy(agg['id'])
    assert db.aggregate_get_all() == []


def test_services_have_uuids_and_deleting_a_compute_drops_its_node(db):
    svc = db.service_heartbeat('h1', 'nova-compute', 'compute')
    db.compute_node_update('h1', dict(hypervisor_hostname='h1', vcpus=1, memory_mb=1,
                                      local_gb=1))
    agg = db.aggregate_create('a')
    db.aggregate_host_add(agg['id'], 'h1')
    assert db.service_get(svc['uuid'])['id'] == db.service_get(str(svc['id']))['id']
    with pytest.raises(exception.ServiceNotFound):
        db.service_get('abc')
    db.service_destroy(svc['id'])
    assert db.compute_node_get('h1') is None
    assert db.aggregate_get(agg['id'])['hosts'] == []


def test_migration_gives_existing_services_a_uuid(tmp_path):
    url = 'sqlite:///%s' % (tmp_path / 'old.db')
    database = db_api.Database(url)
    migration.db_sync(database.engine, '0001_initial')
    with database.engine.begin() as conn:
        services = sa.table('services', sa.column('host'), sa.column('binary'),
                            sa.column('disabled'), sa.column('forced_down'))
        conn.execute(services.insert().values(host='h', binary='nova-compute',
                                              disabled=False, forced_down=False))
    database.sync()
    assert database.service_get_all()[0]['uuid']
    database.dispose()
