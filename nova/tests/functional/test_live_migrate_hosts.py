"""Live migration refused between two compute hosts on one libvirt daemon (test:///default)."""

import pytest

from nova import exception
from nova.tests.functional import fixtures

ADMIN = 'admin:admin'
ONE_DAEMON = ('Migration pre-check error: the source and destination hosts use one '
              'libvirt daemon')


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('livehosts')
    running = fixtures.RunningAio(tmp, extra={('aio', 'extra_compute_hosts'): ['testhost2']})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    status, _h, body = running.request('POST', '/flavors', {'flavor': {
        'name': 'lh64', 'id': 'lh64', 'ram': 64, 'vcpus': 1, 'disk': 1}}, token=ADMIN)
    assert status == 200, body
    yield running
    running.stop()


@pytest.fixture
def server(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'lh', 'imageRef': aio.image_id, 'flavorRef': 'lh64', 'networks': 'none',
        'availability_zone': 'nova:testhost'}}, version='2.37', token=ADMIN)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
    yield sid
    aio.request('DELETE', '/servers/' + sid, token=ADMIN)
    aio.wait_for_status(sid, ['DELETED'], token=ADMIN)


def live(aio, sid, spec, version):
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid,
                                   {'os-migrateLive': spec}, version=version, token=ADMIN)
    return status, resp


def migrations(aio, sid):
    status, _h, body = aio.request('GET', '/os-migrations?instance_uuid=' + sid,
                                   version='2.80', token=ADMIN)
    assert status == 200, body
    return body['migrations']


def wait_for(aio, sid, ok, timeout=30):
    import time
    deadline = time.monotonic() + timeout
    while not ok():
        assert time.monotonic() < deadline, migrations(aio, sid)
        time.sleep(0.05)


def show(aio, sid):
    return aio.request('GET', '/servers/' + sid, version='2.37', token=ADMIN)[2]['server']


def test_one_daemon_is_a_pre_check_error_recorded_after_202(aio, server):
    code, resp = live(aio, server, {'host': None, 'block_migration': 'auto'}, '2.68')
    assert code == 202, resp
    wait_for(aio, server, lambda: migrations(aio, server)[0]['status'] == 'error')
    [mig] = migrations(aio, server)
    assert mig['migration_type'] == 'live-migration'
    assert mig['source_compute'] == 'testhost' and mig['dest_compute'] is None
    wait_for(aio, server, lambda: show(aio, server)['OS-EXT-STS:task_state'] is None)
    body = show(aio, server)
    assert body['status'] == 'ACTIVE' and body['OS-EXT-SRV-ATTR:host'] == 'testhost'
    assert aio.db.faults_latest([server])[server]['message'].startswith(ONE_DAEMON)
    # The destination's claim was given back.
    assert aio.db.compute_node_get('testhost2')['memory_mb_used'] == 0


def test_one_daemon_answers_400_before_2_34(aio, server):
    code, resp = live(aio, server, {'host': 'testhost2', 'block_migration': False,
                                    'disk_over_commit': False}, '2.1')
    assert code == 400, resp
    assert resp['badRequest']['message'].startswith(ONE_DAEMON)
    [mig] = migrations(aio, server)
    assert mig['status'] == 'error'
    body = show(aio, server)
    assert body['status'] == 'ACTIVE' and body['OS-EXT-STS:task_state'] is None
    assert aio.db.compute_node_get('testhost2')['memory_mb_used'] == 0


def test_a_disabled_host_is_refused_and_its_claim_never_taken(aio, server):
    status, _h, body = aio.request('PUT', '/os-services/disable', {
        'host': 'testhost2', 'binary': 'nova-compute'}, version='2.1', token=ADMIN)
    assert status == 200, body
    try:
        code, resp = live(aio, server, {'host': 'testhost2', 'block_migration': False,
                                        'disk_over_commit': False}, '2.1')
    finally:
        aio.request('PUT', '/os-services/enable', {'host': 'testhost2',
                                                   'binary': 'nova-compute'},
                    version='2.1', token=ADMIN)
    assert code == 400, resp
    assert resp['badRequest']['message'] == (
        'Migration pre-check error: host testhost2 cannot take the server (not enough '
        'room, or not up)')
    assert migrations(aio, server)[0]['status'] == 'error'
    assert aio.db.compute_node_get('testhost2')['memory_mb_used'] == 0


def test_an_rpc_pin_below_live_migration_is_409_and_changes_nothing(aio, server):
    from nova import context as nova_context
    from nova import wiring
    aio.conf.set_override('compute', '1.4', group='upgrade_levels')
    try:
        api = wiring.compute_api(aio.conf, aio.db)
    finally:
        aio.conf.clear_override('compute', group='upgrade_levels')
    ctx = nova_context.get_admin_context()
    with pytest.raises(exception.RPCVersionPinned) as caught:
        api.live_migration.live_migrate(ctx, aio.db.instance_get(server), host='testhost2')
    assert caught.value.code == 409 and 'pins it to 1.4' in caught.value.format_message()
    assert migrations(aio, server) == []
    assert show(aio, server)['OS-EXT-STS:task_state'] is None


def test_a_restart_of_the_source_during_a_move_rolls_it_back(aio, server):
    """The guest is still on the source after a restart: the move failed, the claim goes."""
    from nova.compute import api_resize
    row = aio.db.instance_get(server)
    snapshot = api_resize.flavor_snapshot(row['flavor'])
    assert aio.db.compute_node_claim('testhost2', 1, 64, 1)
    mig = aio.db.migration_create({
        'instance_uuid': server, 'status': 'running', 'migration_type': 'live-migration',
        'source_compute': 'testhost', 'source_node': 'testhost',
        'dest_compute': 'testhost2', 'dest_node': 'testhost2', 'old_flavor': snapshot,
        'new_flavor': snapshot})
    aio.db.instance_update(server, {'task_state': 'migrating'})
    [source] = [svc for svc in aio.aio.services
                if getattr(svc, 'host', None) == 'testhost' and svc.binary == 'nova-compute']
    assert source.manager.reconcile.reconcile_instances(startup=True) >= 1
    assert aio.db.migration_get(mig['id'])['status'] == 'error'
    body = show(aio, server)
    assert body['status'] == 'ACTIVE' and body['OS-EXT-STS:task_state'] is None
    assert body['OS-EXT-SRV-ATTR:host'] == 'testhost'
    assert 'interrupted by a restart' in aio.db.faults_latest([server])[server]['message']
    wait_for(aio, server, lambda: aio.db.compute_node_get('testhost2')['memory_mb_used'] == 0)
