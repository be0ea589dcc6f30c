"""The embedded network's SQLite store: restarts keep everything, failed changes keep nothing."""

import sqlite3

import pytest

from nova.embedded.network import app, seed, store
from nova.tests.unit.embedded.network import network_server as ns


def test_records_survive_a_restart(tmp_path):
    data = str(tmp_path / 'network')
    srv = ns.NetworkServer(data)
    api = ns.NetworkApi(srv.url, 'p1')
    net = api.create('networks', 'network', name='kept')
    port = api.create('ports', 'port', network_id=srv.network['id'])
    srv.stop()
    again = ns.NetworkServer(data)
    try:
        api = ns.NetworkApi(again.url, 'p1')
        assert api.get('/networks/' + net['id']).json()['network']['name'] == 'kept'
        assert api.get('/ports/' + port['id']).json()['port'] == port
        # The default network is made once, not again at the second start.
        assert again.network['id'] == srv.network['id']
        assert [n['name'] for n in api.get('/networks').json()['networks']] == \
            ['private', 'kept']
        groups = api.get('/security-groups').json()['security_groups']
        assert len(groups) == 1
    finally:
        again.stop()


def test_a_failed_transaction_writes_nothing(tmp_path):
    records = store.NetworkStore(str(tmp_path / 'n.sqlite'))
    with records.transaction():
        records.put(store.NETWORKS, {'id': 'a', 'project_id': 'p'})
    with pytest.raises(RuntimeError):
        with records.transaction():
            records.update(store.NETWORKS, 'a', name='changed')
            records.put(store.NETWORKS, {'id': 'b', 'project_id': 'p'})
            # Inside, the block sees its own writes.
            assert records.get(store.NETWORKS, 'b') is not None
            raise RuntimeError('boom')
    assert records.get(store.NETWORKS, 'b') is None
    assert 'name' not in records.get(store.NETWORKS, 'a')
    records.close()
    reopened = store.NetworkStore(str(tmp_path / 'n.sqlite'))
    assert [r['id'] for r in reopened.list(store.NETWORKS)] == ['a']
    reopened.close()


def test_writes_need_a_transaction(tmp_path):
    records = store.NetworkStore(str(tmp_path / 'n.sqlite'))
    with pytest.raises(RuntimeError):
        records.put(store.NETWORKS, {'id': 'a'})
    records.close()


def test_update_stamps_revision_and_time(tmp_path):
    records = store.NetworkStore(str(tmp_path / 'n.sqlite'))
    with records.transaction():
        first = records.put(store.PORTS, {'id': 'p', 'project_id': 'x'})
    with records.transaction():
        second = records.update(store.PORTS, 'p', name='n')
    assert first['revision_number'] == 0 and second['revision_number'] == 1
    assert first['created_at'] == second['created_at']
    records.close()


def test_newer_schema_or_garbage_refuses_to_load(tmp_path):
    path = tmp_path / 'n.sqlite'
    store.NetworkStore(str(path)).close()
    db = sqlite3.connect(str(path))
    db.execute('UPDATE schema SET version = ?', (store.SCHEMA_VERSION + 1,))
    db.commit()
    db.close()
    with pytest.raises(store.NetworkStoreError, match='newer than this code'):
        store.NetworkStore(str(path))
    bad = tmp_path / 'bad.sqlite'
    bad.write_bytes(b'not a database at all' * 100)
    with pytest.raises(store.NetworkStoreError):
        store.NetworkStore(str(bad))


def test_seed_warns_when_the_option_changes(tmp_path, caplog):
    api = app.make_app(str(tmp_path))
    seed.ensure(api, seed.DefaultNetworkSpec(cidr='10.78.0.0/24'))
    network, subnet = seed.ensure(api, seed.DefaultNetworkSpec(cidr='10.99.0.0/24'))
    assert subnet['cidr'] == '10.78.0.0/24'
    assert 'keeps its subnet 10.78.0.0/24' in caplog.text
    api.close()
