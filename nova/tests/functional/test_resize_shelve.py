"""Resize, cold migrate and shelve through the API on test:///default: states, claims, records."""

import time

import pytest

from nova.tests.functional import fixtures
from nova.tests.functional.api import tempest_schemas as ts

V = '2.100'
ADMIN = 'admin:admin'


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('resize')
    running = fixtures.RunningAio(tmp, extra={('DEFAULT', 'shelved_offload_time'): -1})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    for fid, ram, disk in (('r64', 64, 2), ('r96', 96, 2), ('r128d1', 128, 1),
                           ('r128d0', 128, 0)):
        status, _h, body = running.request('POST', '/flavors', {'flavor': {
            'name': fid, 'id': fid, 'ram': ram, 'vcpus': 1, 'disk': disk}}, token=ADMIN)
        assert status == 200, body
    status, _h, body = running.request('POST', '/flavors', {'flavor': {
        'name': 'numa3', 'id': 'numa3', 'ram': 128, 'vcpus': 1, 'disk': 2}}, token=ADMIN)
    assert status == 200, body
    status, _h, body = running.request('POST', '/flavors/numa3/os-extra_specs', {
        'extra_specs': {'hw:numa_nodes': '3'}}, token=ADMIN)
    assert status == 200, body
    yield running
    running.stop()


@pytest.fixture
def server(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'rs', 'imageRef': aio.image_id, 'flavorRef': 'r64', 'networks': 'none'}},
        version=V)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    yield sid
    aio.request('DELETE', '/servers/' + sid, token=ADMIN)
    # The next test compares host usage: let this delete release its claim first
    # (the host releases it just after the server is gone).
    aio.wait_for_status(sid, ['DELETED'], token=ADMIN)
    wait_usage(aio, lambda used: used == (0, 0, 0) or bool(aio.db.instance_get_all({})))


def act(aio, sid, body, version=V, token='demo:demo'):
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid, body, version=version,
                                   token=token)
    return status, resp


def usage(aio):
    node = aio.db.compute_node_get('testhost')
    return node['vcpus_used'], node['memory_mb_used'], node['local_gb_used']


def wait_usage(aio, ok, timeout=10):
    deadline = time.monotonic() + timeout
    while True:
        time.sleep(0.1)
        used = usage(aio)
        if ok(used) or time.monotonic() > deadline:
            return used


def show(aio, sid):
    return aio.request('GET', '/servers/' + sid, version=V, token=ADMIN)[2]['server']


def migrations(aio, sid, version='2.80'):
    status, _h, body = aio.request('GET', '/os-migrations?instance_uuid=' + sid,
                                   version=version, token=ADMIN)
    assert status == 200, body
    return body['migrations']


def events(aio, sid):
    acts = aio.request('GET', '/servers/%s/os-instance-actions' % sid, version='2.51',
                       token=ADMIN)[2]['instanceActions']
    out = {}
    for a in acts:
        detail = aio.request('GET', '/servers/%s/os-instance-actions/%s' % (
            sid, a['request_id']), version='2.51', token=ADMIN)[2]['instanceAction']
        out.setdefault(a['action'], []).extend(
            (e['event'], e['result']) for e in detail.get('events', []))
    return out


def test_resize_confirm_moves_the_claim_and_records_everything(aio, server):
    before = usage(aio)
    assert act(aio, server, {'resize': {'flavorRef': 'r96'}})[0] == 202
    shown = aio.wait_for_status(server, ['VERIFY_RESIZE'], version=V)
    assert shown['flavor']['original_name'] == 'r96'
    assert shown['OS-EXT-STS:task_state'] is None
    # Both flavors are held on the host until the resize is confirmed.
    assert usage(aio) == (before[0] + 1, before[1] + 96, before[2] + 2)
    [mig] = migrations(aio, server)
    assert mig['status'] == 'finished' and mig['migration_type'] == 'resize'
    assert mig['source_compute'] == mig['dest_compute'] == 'testhost'
    assert mig['user_id'] and mig['project_id'] and mig['uuid']
    assert set(migrations(aio, server, '2.1')[0]) == {
        'id', 'status', 'instance_uuid', 'source_node', 'source_compute', 'dest_node',
        'dest_compute', 'dest_host', 'old_instance_type_id', 'new_instance_type_id',
        'created_at', 'updated_at'}
    for version in ('2.1', '2.23', '2.59', '2.80', '2.104'):
        # Upstream's response schemas (tempest's) at each microversion.
        status, _h, body = aio.request('GET', '/os-migrations', version=version, token=ADMIN)
        ts.validate('migrations', 'list_migrations', version, status, body)
        assert body['migrations']
    code, _ = act(aio, server, {'confirmResize': None})
    assert code == 204
    shown = aio.wait_for_status(server, ['ACTIVE'], version=V)
    assert shown['flavor']['original_name'] == 'r96'
    assert usage(aio) == (before[0], before[1] - 64 + 96, before[2])
    assert migrations(aio, server)[0]['status'] == 'confirmed'
    recorded = events(aio, server)
    assert ('compute_finish_resize', 'Success') in recorded['resize']
    assert ('compute_confirm_resize', 'Success') in recorded['confirmResize']
    # Confirmed: nothing left to confirm or revert.
    assert act(aio, server, {'confirmResize': None})[0] == 409
    assert act(aio, server, {'revertResize': None})[0] == 409


def test_resize_revert_restores_flavor_and_claim(aio, server):
    before = usage(aio)
    assert act(aio, server, {'resize': {'flavorRef': 'r96'}})[0] == 202
    aio.wait_for_status(server, ['VERIFY_RESIZE'], version=V)
    assert act(aio, server, {'revertResize': None})[0] == 202
    shown = aio.wait_for_status(server, ['ACTIVE'], version=V)
    assert shown['flavor']['original_name'] == 'r64'
    assert usage(aio) == before
    assert migrations(aio, server)[0]['status'] == 'reverted'
    assert ('compute_finish_revert_resize', 'Success') in events(aio, server)['revertResize']


def test_resize_from_stopped_stays_stopped(aio, server):
    assert act(aio, server, {'os-stop': None})[0] == 202
    aio.wait_for_status(server, ['SHUTOFF'])
    assert act(aio, server, {'resize': {'flavorRef': 'r96'}})[0] == 202
    assert aio.wait_for_status(server, ['VERIFY_RESIZE'])['OS-EXT-STS:power_state'] != 1
    assert act(aio, server, {'confirmResize': {}})[0] == 204
    aio.wait_for_status(server, ['SHUTOFF'])


@pytest.mark.parametrize('body,message', [
    ({'resize': {'flavorRef': 'r64'}}, 'instances must change flavor'),
    ({'resize': {'flavorRef': 'nope'}}, 'Unable to locate requested flavor'),
    ({'resize': {'flavorRef': None}}, None),
    ({'resize': {}}, None),
    ({'resize': {'flavorRef': 'r128d1'}}, 'Unable to resize disk down'),
    ({'resize': {'flavorRef': 'r128d0'}}, 'Resize to zero disk flavor is not allowed'),
    ({'resize': {'flavorRef': 'numa3'}}, '3 NUMA nodes requested'),
    ({'unshelve': {'availability_zone': 'nova'}}, None),
])
def test_bad_resize_requests_are_400_and_change_nothing(aio, server, body, message):
    before = usage(aio)
    code, resp = act(aio, server, body, version='2.77' if 'unshelve' in body else V)
    if 'unshelve' in body:
        # An active server cannot be unshelved at all.
        assert code == 409, resp
        return
    assert code == 400, resp
    if message:
        assert message in resp['badRequest']['message']
    assert show(aio, server)['status'] == 'ACTIVE'
    assert usage(aio) == before
    assert migrations(aio, server) == []


def test_locked_and_wrong_state_are_409(aio, server):
    assert act(aio, server, {'confirmResize': None})[0] == 409
    assert act(aio, server, {'revertResize': None})[0] == 409
    assert act(aio, server, {'lock': None})[0] == 202
    code, resp = act(aio, server, {'resize': {'flavorRef': 'r96'}})
    assert code == 409 and 'is locked' in resp['conflictingRequest']['message']
    assert act(aio, server, {'shelve': None})[0] == 409
    assert act(aio, server, {'unlock': None})[0] == 202
    assert act(aio, server, {'pause': None})[0] == 202
    aio.wait_for_status(server, ['PAUSED'])
    assert act(aio, server, {'resize': {'flavorRef': 'r96'}})[0] == 409
    assert act(aio, server, {'migrate': None}, token=ADMIN)[0] == 409


def test_resize_over_quota_is_403(aio, server):
    aio.conf.set_override('ram', 64, group='quota')
    try:
        code, resp = act(aio, server, {'resize': {'flavorRef': 'r96'}})
    finally:
        aio.conf.set_override('ram', -1, group='quota')
    assert code == 403, resp
    assert 'Quota exceeded for ram' in resp['forbidden']['message']


def test_cold_migrate_on_one_host_fails_like_upstream(aio, server):
    assert act(aio, server, {'migrate': None})[0] == 403
    assert act(aio, server, {'migrate': None}, token=ADMIN)[0] == 202
    # The conductor answers asynchronously: wait for the migration to end.
    deadline = time.monotonic() + 10
    while migrations(aio, server)[0]['status'] != 'error' and time.monotonic() < deadline:
        time.sleep(0.05)
    [mig] = migrations(aio, server)
    assert mig['status'] == 'error' and mig['migration_type'] == 'migration'
    shown = show(aio, server)
    assert shown['status'] == 'ACTIVE' and shown['OS-EXT-STS:task_state'] is None
    recorded = events(aio, server)['migrate']
    assert ('conductor_migrate_server', 'Error') in recorded
    assert ('cold_migrate', 'Error') in recorded
    fault = aio.db.faults_latest([server])[server]
    assert fault['message'] == 'No valid host was found. No valid host found for cold migrate'


def test_os_migrations_paging_and_marker(aio, server):
    act(aio, server, {'migrate': None}, token=ADMIN)
    act(aio, server, {'migrate': None}, token=ADMIN)
    status, _h, body = aio.request('GET', '/os-migrations?limit=1', version='2.59',
                                   token=ADMIN)
    assert status == 200 and len(body['migrations']) == 1
    assert 'marker=' in body['migrations_links'][0]['href']
    marker = body['migrations'][0]['uuid']
    status, _h, page = aio.request('GET', '/os-migrations?limit=1&marker=' + marker,
                                   version='2.59', token=ADMIN)
    assert status == 200 and page['migrations'][0]['uuid'] != marker
    status, _h, body = aio.request('GET', '/os-migrations?marker=nope', version='2.59',
                                   token=ADMIN)
    assert status == 400


def _image_named(aio, name):
    status, _h, body = aio.request('GET', '/v2/images?name=' + name, url=aio.image_url)
    assert status == 200, body
    return body['images']


def test_shelve_offload_unshelve(aio, server):
    before = usage(aio)
    assert act(aio, server, {'shelve': None})[0] == 202
    aio.wait_for_status(server, ['SHELVED'])
    [image] = _image_named(aio, 'rs-shelved')
    assert usage(aio) == before   # SHELVED keeps its resources
    assert act(aio, server, {'shelveOffload': None})[0] == 403
    assert act(aio, server, {'shelveOffload': None}, token=ADMIN)[0] == 202
    aio.wait_for_status(server, ['SHELVED_OFFLOADED'], version=V)
    assert show(aio, server)['OS-EXT-SRV-ATTR:host'] is None
    assert usage(aio)[1] == before[1] - 64
    assert act(aio, server, {'shelve': None})[0] == 409
    assert act(aio, server, {'unshelve': {'availability_zone': 'nowhere'}},
               version='2.77')[0] == 400
    assert act(aio, server, {'unshelve': None})[0] == 202
    aio.wait_for_status(server, ['ACTIVE'], version=V)
    assert show(aio, server)['OS-EXT-SRV-ATTR:host'] == 'testhost'
    assert usage(aio) == before
    assert _image_named(aio, 'rs-shelved') == [] or \
        _image_named(aio, 'rs-shelved')[0]['id'] != image['id']
    recorded = events(aio, server)
    assert ('compute_shelve_instance', 'Success') in recorded['shelve']
    assert ('compute_unshelve_instance', 'Success') in recorded['unshelve']


def test_shelve_offloads_at_once_with_offload_time_zero(aio, server):
    aio.conf.set_override('shelved_offload_time', 0)
    try:
        assert act(aio, server, {'shelve': {}})[0] == 202
        aio.wait_for_status(server, ['SHELVED_OFFLOADED'])
    finally:
        aio.conf.set_override('shelved_offload_time', -1)
    assert act(aio, server, {'unshelve': None})[0] == 202
    aio.wait_for_status(server, ['ACTIVE'])


def test_unshelve_of_shelved_server_powers_on_and_deletes_image(aio, server):
    assert act(aio, server, {'pause': None})[0] == 202
    aio.wait_for_status(server, ['PAUSED'])
    assert act(aio, server, {'shelve': None})[0] == 202
    aio.wait_for_status(server, ['SHELVED'])
    assert _image_named(aio, 'rs-shelved')
    code, _ = act(aio, server, {'unshelve': {'availability_zone': 'nova'}}, version='2.77')
    assert code == 409   # a zone only applies to an offloaded server
    assert act(aio, server, {'unshelve': None})[0] == 202
    assert aio.wait_for_status(server, ['ACTIVE'])['OS-EXT-STS:power_state'] == 1
    deadline = time.monotonic() + 10
    while _image_named(aio, 'rs-shelved') and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _image_named(aio, 'rs-shelved') == []


def test_deleting_a_shelved_server_deletes_its_image(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'gone', 'imageRef': aio.image_id, 'flavorRef': 'r64', 'networks': 'none'}},
        version=V)
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    assert act(aio, sid, {'shelve': None})[0] == 202
    aio.wait_for_status(sid, ['SHELVED'])
    assert act(aio, sid, {'shelveOffload': None}, token=ADMIN)[0] == 202
    aio.wait_for_status(sid, ['SHELVED_OFFLOADED'])
    assert _image_named(aio, 'gone-shelved')
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    aio.wait_for_status(sid, ['DELETED'])
    assert _image_named(aio, 'gone-shelved') == []


def test_deleting_a_resized_server_releases_both_flavors(aio):
    before = usage(aio)
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'vr', 'imageRef': aio.image_id, 'flavorRef': 'r64', 'networks': 'none'}},
        version=V)
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    assert act(aio, sid, {'resize': {'flavorRef': 'r96'}})[0] == 202
    aio.wait_for_status(sid, ['VERIFY_RESIZE'])
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    aio.wait_for_status(sid, ['DELETED'])
    assert wait_usage(aio, lambda used: used == before) == before
    assert migrations(aio, sid)[0]['status'] == 'confirmed'


def test_periodic_auto_confirm_and_offload(aio, server):
    mgr = aio.aio.services[1].manager
    assert act(aio, server, {'resize': {'flavorRef': 'r96'}})[0] == 202
    aio.wait_for_status(server, ['VERIFY_RESIZE'])
    mgr.resize.poll_unconfirmed_resizes()   # window 0: off
    assert show(aio, server)['status'] == 'VERIFY_RESIZE'
    aio.conf.set_override('resize_confirm_window', 1)
    time.sleep(2.1)
    try:
        mgr.resize.poll_unconfirmed_resizes()
    finally:
        aio.conf.clear_override('resize_confirm_window')
    aio.wait_for_status(server, ['ACTIVE'])
    assert migrations(aio, server)[0]['status'] == 'confirmed'
    assert act(aio, server, {'shelve': None})[0] == 202
    aio.wait_for_status(server, ['SHELVED'])
    aio.conf.set_override('shelved_offload_time', 1)
    time.sleep(2.1)
    try:
        mgr.shelve.offload_shelved_instances()
    finally:
        aio.conf.set_override('shelved_offload_time', -1)
    aio.wait_for_status(server, ['SHELVED_OFFLOADED'])


CINDER = {'OpenStack-API-Version': 'volume 3.44'}


def _volume_status(aio, vid, wanted=None, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        body = aio.request('GET', '/v3/demo/volumes/' + vid, url=aio.aio.urls['volume'],
                           headers=CINDER)[2]
        status = body['volume']['status']
        if wanted is None or status == wanted or time.monotonic() > deadline:
            return status
        time.sleep(0.1)


def _new_volume(aio):
    status, _h, body = aio.request('POST', '/v3/demo/volumes', {'volume': {'size': 1}},
                                   url=aio.aio.urls['volume'], headers=CINDER)
    assert status == 202, body
    vid = body['volume']['id']
    assert _volume_status(aio, vid, 'available') == 'available'
    return vid


def test_volumes_stay_reserved_while_offloaded_and_attach_on_unshelve(aio):
    kept, added, dropped = _new_volume(aio), _new_volume(aio), _new_volume(aio)
    # test:///default cannot hot-plug: the first volume is attached at boot.
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'vols', 'imageRef': aio.image_id, 'flavorRef': 'r64', 'networks': 'none',
        'block_device_mapping_v2': [
            {'source_type': 'image', 'destination_type': 'local', 'boot_index': 0,
             'uuid': aio.image_id},
            {'source_type': 'volume', 'destination_type': 'volume', 'uuid': kept}]}},
        version=V)
    assert status == 202, body
    server = body['server']['id']
    aio.wait_for_status(server, ['ACTIVE'])
    path = '/servers/%s/os-volume_attachments' % server
    assert _volume_status(aio, kept, 'in-use') == 'in-use'
    assert act(aio, server, {'shelve': None})[0] == 202
    aio.wait_for_status(server, ['SHELVED'])
    assert act(aio, server, {'shelveOffload': None}, token=ADMIN)[0] == 202
    aio.wait_for_status(server, ['SHELVED_OFFLOADED'])
    # Disconnected from the host, still held for this server.
    assert _volume_status(aio, kept) != 'available'
    for vid in (added, dropped):
        status, _h, body = aio.request('POST', path, {'volumeAttachment': {'volumeId': vid}},
                                       version=V)
        assert status == 200, body
        assert _volume_status(aio, vid, 'in-use') == 'in-use'
    assert aio.request('DELETE', '%s/%s' % (path, dropped), version=V)[0] == 202
    assert _volume_status(aio, dropped, 'available') == 'available'
    assert act(aio, server, {'unshelve': None})[0] == 202
    aio.wait_for_status(server, ['ACTIVE'])
    listed = aio.request('GET', path, version=V)[2]['volumeAttachments']
    assert sorted(a['volumeId'] for a in listed) == sorted([kept, added])
    assert all(a['device'] for a in listed)
    for vid in (kept, added):
        assert _volume_status(aio, vid, 'in-use') == 'in-use'
    assert aio.request('DELETE', '/servers/' + server)[0] == 204
    aio.wait_for_status(server, ['DELETED'])


def test_restart_during_resize_puts_the_old_flavor_back(aio, server):
    from nova.compute import api_resize
    from nova.conductor import scheduler
    mgr = aio.aio.services[1].manager
    before = usage(aio)
    row = aio.db.instance_get(server)
    new = api_resize.flavor_snapshot(aio.db.flavor_get('r96'))
    migration = aio.db.migration_create({
        'instance_uuid': server, 'status': 'migrating', 'migration_type': 'resize',
        'source_compute': 'testhost', 'dest_compute': 'testhost',
        'old_flavor': row['flavor'], 'new_flavor': new})
    assert aio.db.compute_node_claim('testhost', *scheduler.requested_resources(new))
    aio.db.instance_update(server, {'task_state': 'resize_migrating'})
    mgr._reconcile_on_start()   # what a compute restart runs first
    shown = show(aio, server)
    assert shown['status'] == 'ACTIVE' and shown['OS-EXT-STS:task_state'] is None
    assert shown['flavor']['original_name'] == 'r64'
    assert aio.db.migration_get(migration['id'])['status'] == 'error'
    assert usage(aio) == before


@pytest.mark.parametrize('body', [
    {'resize': {'flavorRef': 'r96'}}, {'confirmResize': None}, {'revertResize': None},
    {'shelve': None}, {'shelveOffload': None}, {'unshelve': None}, {'migrate': None}])
def test_actions_on_an_absent_server_are_404(aio, body):
    code, resp = act(aio, '8c3c6b0b-3a07-4b35-a8a3-2b6d2c4a3f59', body, token=ADMIN)
    assert code == 404, resp


def _topology(aio, sid):
    status, _h, body = aio.request('GET', '/servers/%s/topology' % sid, version='2.78',
                                   token=ADMIN)
    assert status == 200, body
    return [(n['vcpu_set'], n['memory_mb']) for n in body['nodes']]


def test_topology_follows_resize_revert_and_unshelve(aio, server):
    # The record is rewritten whenever the guest is defined anew from its flavor.
    status, _h, body = aio.request('POST', '/flavors', {'flavor': {
        'name': 'numa2', 'id': 'numa2', 'ram': 128, 'vcpus': 2, 'disk': 2}}, token=ADMIN)
    assert status == 200, body
    assert aio.request('POST', '/flavors/numa2/os-extra_specs', {
        'extra_specs': {'hw:numa_nodes': '2'}}, token=ADMIN)[0] == 200
    two = [([0], 64), ([1], 64)]
    assert _topology(aio, server) == []
    assert act(aio, server, {'resize': {'flavorRef': 'numa2'}})[0] == 202
    aio.wait_for_status(server, ['VERIFY_RESIZE'], version=V)
    assert _topology(aio, server) == two
    assert act(aio, server, {'revertResize': None})[0] == 202
    aio.wait_for_status(server, ['ACTIVE'], version=V)
    assert _topology(aio, server) == []
    assert act(aio, server, {'resize': {'flavorRef': 'numa2'}})[0] == 202
    aio.wait_for_status(server, ['VERIFY_RESIZE'], version=V)
    assert act(aio, server, {'confirmResize': None})[0] == 204
    aio.wait_for_status(server, ['ACTIVE'], version=V)
    assert act(aio, server, {'shelve': None})[0] == 202
    aio.wait_for_status(server, ['SHELVED'])
    assert act(aio, server, {'shelveOffload': None}, token=ADMIN)[0] == 202
    aio.wait_for_status(server, ['SHELVED_OFFLOADED'], version=V)
    assert act(aio, server, {'unshelve': None})[0] == 202
    aio.wait_for_status(server, ['ACTIVE'], version=V)
    assert _topology(aio, server) == two
