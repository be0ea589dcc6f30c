"""Signed compute host identity on the conductor's compute_db calls, over real oslo.messaging."""

import logging
import time

import pytest

from nova import conf as nova_conf
from nova import context as nova_context
from nova import exception, rpc, wiring
from nova.compute import rpcapi as compute_rpcapi
from nova.conductor import host_auth, manager
from nova.conductor import rpcapi as conductor_rpcapi


def _conf(host='h1', **conductor):
    conf = nova_conf.new_config()
    conf.set_override('transport_url', 'fake:/')
    conf.set_override('host', host)
    for name, value in conductor.items():
        group = 'upgrade_levels' if name == 'pin' else 'conductor'
        conf.set_override('conductor' if name == 'pin' else name, value, group=group)
    return conf


@pytest.fixture
def keys(tmp_path):
    """Conductor key directory with keys for h1 and h2; each host's own key file beside it."""
    directory = tmp_path / 'host-keys'
    directory.mkdir()
    own = {}
    for host in ('h1', 'h2'):
        key = host_auth.new_key()
        (directory / host).write_text(key + '\n')
        own[host] = tmp_path / ('%s.key' % host)
        own[host].write_text(key)
        own[host].chmod(0o600)
    return directory, own


def _start_conductor(db, conf):
    mgr = manager.ConductorManager(conf, db, compute_rpcapi.ComputeAPI(conf),
                                   host_verifier=host_auth.verifier_from_conf(conf))
    server = rpc.get_server(conf, conductor_rpcapi.TOPIC, 'conductor-1', mgr.endpoints)
    server.start()
    return server


@pytest.fixture
def conductor(db, keys):
    conf = _conf(host_keys_dir=str(keys[0]))
    server = _start_conductor(db, conf)
    yield conf
    server.stop()
    server.wait()
    rpc.cleanup(conf)


def _compute(conductor, own_key, host='h1', **extra):
    """A nova-compute's conductor client, sharing the conductor's (in-process) transport."""
    conf = _conf(host=host, host_key_file=str(own_key), **extra)
    api = conductor_rpcapi.ConductorAPI(conf)
    api.client = rpc.get_client(conductor, conductor_rpcapi.TOPIC, api.VERSION,
                                version_cap=api.pin)
    rpc.cleanup(conf)   # the transport of its own it made and no longer uses
    return api


def _server(db, host='h1'):
    return db.instance_create(dict(project_id='p', user_id='u', vm_state='active',
                                   task_state=None, host=host, node=host))['uuid']


def _raw_call(conductor, **kwargs):
    """What anyone holding RabbitMQ credentials can send: any host, any signature."""
    client = rpc.get_client(conductor, conductor_rpcapi.TOPIC, '1.3').prepare(version='1.3')
    return client.call(nova_context.get_admin_context(), 'compute_db', **kwargs)


def test_a_signed_call_works_and_the_heartbeat_is_signed_too(db, conductor, keys):
    api = _compute(conductor, keys[1]['h1'])
    from nova.compute import conductor_db
    compute = conductor_db.ConductorDB('h1', api.compute_db, ping=api.ping)
    compute.wait_until_ready(timeout=10)
    uuid = _server(db)
    assert compute.instance_update(uuid, {'vm_state': 'stopped'})['vm_state'] == 'stopped'
    compute.service_heartbeat('h1', 'nova-compute', 'compute')
    assert [s['host'] for s in db.service_get_all() if s['binary'] == 'nova-compute'] == ['h1']


def test_a_host_naming_another_host_is_refused_even_with_its_own_key(db, conductor, keys,
                                                                       caplog):
    uuid = _server(db, 'h1')
    intruder = _compute(conductor, keys[1]['h2'], host='h2')
    with caplog.at_level(logging.WARNING, 'nova.conductor.host_auth'):
        with pytest.raises(exception.HostNotAuthorized, match='wrong signature'):
            intruder.compute_db(nova_context.get_admin_context(), 'h1', 'instance_update',
                                [uuid, {'vm_state': 'error'}], {})
    assert 'Refused: a call naming host h1 (instance_update) carries a wrong signature' \
        in caplog.text
    assert db.instance_get(uuid)['vm_state'] == 'active'


def test_a_tampered_argument_or_a_replay_is_refused(db, conductor, keys):
    uuid, key = _server(db), host_auth.read_key(keys[1]['h1'])
    args = [uuid, {'vm_state': 'stopped'}]
    signature = host_auth.sign(key, 'h1', 'instance_update', args, {})
    with pytest.raises(exception.HostNotAuthorized, match='wrong signature'):
        _raw_call(conductor, host='h1', operation='instance_update',
                  args=[uuid, {'vm_state': 'error'}], kwargs={}, signature=signature)
    assert db.instance_get(uuid)['vm_state'] == 'active'
    # The untouched message is served once ...
    row = _raw_call(conductor, host='h1', operation='instance_update', args=args, kwargs={},
                    signature=signature)
    assert row['vm_state'] == 'stopped'
    db.instance_update(uuid, {'vm_state': 'active'})
    # ... and never again.
    with pytest.raises(exception.HostNotAuthorized, match='already used'):
        _raw_call(conductor, host='h1', operation='instance_update', args=args, kwargs={},
                  signature=signature)
    assert db.instance_get(uuid)['vm_state'] == 'active'


def test_a_stale_signature_is_refused(db, conductor, keys):
    uuid, key = _server(db), host_auth.read_key(keys[1]['h1'])
    args = [uuid, {'vm_state': 'stopped'}]
    old = host_auth.sign(key, 'h1', 'instance_update', args, {},
                         now=time.time() - 301)
    with pytest.raises(exception.HostNotAuthorized, match='seconds off the conductor clock'):
        _raw_call(conductor, host='h1', operation='instance_update', args=args, kwargs={},
                  signature=old)
    assert db.instance_get(uuid)['vm_state'] == 'active'


def test_unsigned_calls_and_hosts_without_a_key_are_refused(db, conductor, keys, tmp_path):
    uuid = _server(db)
    # A 1.2 message (no signature argument at all), as an old or forged client sends.
    legacy = rpc.get_client(conductor, conductor_rpcapi.TOPIC, '1.2').prepare(version='1.2')
    with pytest.raises(exception.HostNotAuthorized, match='no signature'):
        legacy.call(nova_context.get_admin_context(), 'compute_db', host='h1',
                    operation='instance_update', args=[uuid, {'vm_state': 'error'}],
                    kwargs={})
    # A compute pinned to 1.2 cannot sign: with keys on the conductor it is refused.
    pinned = _compute(conductor, keys[1]['h1'], pin='1.2')
    with pytest.raises(exception.HostNotAuthorized, match='no signature'):
        pinned.ping(nova_context.get_admin_context(), 'h1')
    # A host the conductor has no key for, whatever key it signs with.
    stranger_key = tmp_path / 'h3.key'
    stranger_key.write_text(host_auth.new_key())
    stranger_key.chmod(0o600)
    stranger = _compute(conductor, stranger_key, host='h3')
    with pytest.raises(exception.HostNotAuthorized, match='no key for it'):
        stranger.ping(nova_context.get_admin_context(), 'h3')
    # Nor can a host name reach outside the key directory.
    with pytest.raises(exception.HostNotAuthorized, match='no key for it'):
        _raw_call(conductor, host='../h1.key', operation='ping', args=[], kwargs={},
                  signature=host_auth.sign(host_auth.read_key(keys[1]['h1']), '../h1.key',
                                           'ping', [], {}))
    assert db.instance_get(uuid)['vm_state'] == 'active'


def test_a_key_added_later_is_picked_up_without_a_restart(db, conductor, keys, tmp_path):
    own = tmp_path / 'h4.key'
    own.write_text(host_auth.new_key())
    own.chmod(0o600)
    newcomer = _compute(conductor, own, host='h4')
    with pytest.raises(exception.HostNotAuthorized):
        newcomer.ping(nova_context.get_admin_context(), 'h4')
    (keys[0] / 'h4').write_text(own.read_text())
    assert newcomer.ping(nova_context.get_admin_context(), 'h4') is True


def test_without_host_keys_calls_are_trusted_and_the_conductor_warns(db, monkeypatch,
                                                                      caplog):
    monkeypatch.setattr(host_auth, '_WARNED', [])
    on_broker = _conf()
    on_broker.set_override('transport_url', 'rabbit://nova:secret@broker:5672/')
    with caplog.at_level(logging.WARNING, 'nova.conductor.host_auth'):
        assert host_auth.verifier_from_conf(on_broker) is None
        assert host_auth.verifier_from_conf(on_broker) is None
    assert caplog.text.count('Compute host identity is not authenticated') == 1
    caplog.clear()
    # In-process messaging (the all-in-one): nobody else can call, nothing to warn of.
    monkeypatch.setattr(host_auth, '_WARNED', [])
    conf = _conf()
    with caplog.at_level(logging.WARNING, 'nova.conductor.host_auth'):
        server = _start_conductor(db, conf)
    try:
        assert 'Compute host identity is not authenticated' not in caplog.text
        compute = wiring.compute_db(conf)
        compute.wait_until_ready(timeout=10)
        uuid = _server(db)
        assert compute.instance_update(uuid, {'vm_state': 'stopped'})['vm_state'] == 'stopped'
    finally:
        server.stop()
        server.wait()
        rpc.cleanup(conf)


def test_a_missing_key_directory_stops_the_conductor(db, tmp_path):
    with pytest.raises(exception.Invalid, match='is not a directory'):
        wiring.conductor_service(_conf(host_keys_dir=str(tmp_path / 'nope')), db)


def test_evicted_nonces_cannot_come_back():
    """A full nonce cache drops its oldest entries and refuses anything that old."""
    now = [1000]
    keys = {'h1': b'k1'}
    verifier = host_auth.Verifier(keys, window=300, max_nonces=2, clock=lambda: now[0])
    first = host_auth.sign(b'k1', 'h1', 'ping', [], {}, now=990)
    verifier.check('h1', 'ping', [], {}, first)
    for ts in (995, 999):
        verifier.check('h1', 'ping', [], {}, host_auth.sign(b'k1', 'h1', 'ping', [], {},
                                                            now=ts))
    assert len(verifier._seen) == 2
    with pytest.raises(exception.HostNotAuthenticated, match='already used'):
        verifier.check('h1', 'ping', [], {}, first)
    # Stale entries leave the cache without raising the floor.
    now[0] = 1296
    verifier.check('h1', 'ping', [], {}, host_auth.sign(b'k1', 'h1', 'ping', [], {},
                                                        now=1296))
    assert len(verifier._seen) == 2


@pytest.mark.parametrize('signature, reason', [
    ({'ts': 1000, 'nonce': 'n', 'mac': '\u00e9\ud800'}, 'a wrong signature'),
    ({'ts': '1000', 'nonce': 'n', 'mac': 'x'}, 'a malformed signature'),
    ({'ts': 1000, 'nonce': 'n' * 65, 'mac': 'x'}, 'a malformed signature'),
    ({'ts': 1000, 'nonce': 'n'}, 'a malformed signature'),
    ('not a dict', 'no signature'),
])
def test_malformed_signatures_are_refused_not_crashed_on(signature, reason):
    verifier = host_auth.Verifier({'h1': b'k1'}, clock=lambda: 1000)
    with pytest.raises(exception.HostNotAuthenticated, match=reason):
        verifier.check('h1', 'ping', [], {}, signature)
    assert not verifier._seen
