"""Cold migration and resize between two compute hosts of one all-in-one on test:///default."""

import os
import time

import pytest

from nova import exception
from nova.objects import instance as instance_obj
from nova.tests.functional import fixtures

ADMIN = 'admin:admin'
V = '2.56'
HOSTS = ('testhost', 'testhost2')


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('coldmigrate')
    running = fixtures.RunningAio(tmp, extra={('aio', 'extra_compute_hosts'): ['testhost2']})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    for fid, ram in (('cm64', 64), ('cm96', 96)):
        status, _h, body = running.request('POST', '/flavors', {'flavor': {
            'name': fid, 'id': fid, 'ram': ram, 'vcpus': 1, 'disk': 1}}, token=ADMIN)
        assert status == 200, body
    yield running
    running.stop()


@pytest.fixture
def server(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'cm', 'imageRef': aio.image_id, 'flavorRef': 'cm64', 'networks': 'none',
        'availability_zone': 'nova:testhost'}}, version=V, token=ADMIN)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
    yield sid
    aio.request('DELETE', '/servers/' + sid, token=ADMIN)
    aio.wait_for_status(sid, ['DELETED'], token=ADMIN)
    wait(lambda: usage(aio, 'testhost') == usage(aio, 'testhost2') == (0, 0, 0))


def wait(ok, timeout=15):
    deadline = time.monotonic() + timeout
    while not ok():
        assert time.monotonic() < deadline, 'timed out'
        time.sleep(0.05)


def usage(aio, host):
    node = aio.db.compute_node_get(host)
    return node['vcpus_used'], node['memory_mb_used'], node['local_gb_used']


def act(aio, sid, body, version=V):
    return aio.request('POST', '/servers/%s/action' % sid, body, version=version,
                       token=ADMIN)


def show(aio, sid):
    return aio.request('GET', '/servers/' + sid, version=V, token=ADMIN)[2]['server']


def migration(aio, sid):
    status, _h, body = aio.request('GET', '/os-migrations?instance_uuid=' + sid,
                                   version='2.80', token=ADMIN)
    assert status == 200, body
    return body['migrations'][0]


def driver(aio, host):
    return {svc.host: svc.manager.driver for svc in aio.aio.services[1:]}[host]


def guest_state(aio, host, sid):
    inst = instance_obj.Instance.from_db(aio.db.instance_get(sid))
    try:
        return driver(aio, host).get_info(inst).state
    except exception.InstanceNotFound:
        return None


def instance_dir(aio, host, sid):
    return os.path.join(driver(aio, host).core.instances_path, sid)


def volume_hosts(aio, volume_id):
    """The hosts the volume's attachments are connected from, per the volume service."""
    status, _h, body = aio.request('GET', '/v3/admin/volumes/' + volume_id,
                                   url=aio.aio.urls['volume'], token=ADMIN)
    assert status == 200, body
    assert body['volume']['status'] == 'in-use', body
    return [a['host_name'] for a in body['volume']['attachments']]


def migrate_to_verify(aio, sid, body=None):
    status, _h, resp = act(aio, sid, {'migrate': body})
    assert status == 202, resp
    aio.wait_for_status(sid, ['VERIFY_RESIZE'], token=ADMIN)


def test_migrate_then_confirm_moves_guest_files_and_claims(aio, server):
    migrate_to_verify(aio, server)
    shown = show(aio, server)
    assert shown['OS-EXT-SRV-ATTR:host'] == 'testhost2'
    mig = migration(aio, server)
    assert (mig['status'], mig['migration_type']) == ('finished', 'migration')
    assert (mig['source_compute'], mig['dest_compute']) == HOSTS
    # Running on the destination, from its own copy; the source keeps its files
    # for a revert, and both hosts hold a claim until the confirm.
    assert guest_state(aio, 'testhost2', server) == 1
    assert os.path.isfile(os.path.join(instance_dir(aio, 'testhost2', server), 'disk'))
    assert not os.path.exists(instance_dir(aio, 'testhost', server))
    assert os.path.isdir(instance_dir(aio, 'testhost', server) + '_resize')
    assert usage(aio, 'testhost')[1] == usage(aio, 'testhost2')[1] == 64
    # The root overlay reads its base from the destination's own image cache.
    info = _backing(os.path.join(instance_dir(aio, 'testhost2', server), 'disk'))
    assert info.startswith(driver(aio, 'testhost2').core.instances_path), info

    assert act(aio, server, {'confirmResize': None})[0] == 204
    aio.wait_for_status(server, ['ACTIVE'], token=ADMIN)
    wait(lambda: migration(aio, server)['status'] == 'confirmed')
    assert not os.path.exists(instance_dir(aio, 'testhost', server) + '_resize')
    assert usage(aio, 'testhost') == (0, 0, 0)
    assert usage(aio, 'testhost2')[1] == 64
    assert show(aio, server)['OS-EXT-SRV-ATTR:host'] == 'testhost2'


def test_migrate_then_revert_starts_it_on_the_source_again(aio, server):
    migrate_to_verify(aio, server, {'host': 'testhost2'})
    assert act(aio, server, {'revertResize': None})[0] == 202
    aio.wait_for_status(server, ['ACTIVE'], token=ADMIN)
    wait(lambda: migration(aio, server)['status'] == 'reverted')
    assert show(aio, server)['OS-EXT-SRV-ATTR:host'] == 'testhost'
    assert guest_state(aio, 'testhost', server) == 1
    assert os.path.isfile(os.path.join(instance_dir(aio, 'testhost', server), 'disk'))
    assert not os.path.exists(instance_dir(aio, 'testhost', server) + '_resize')
    assert not os.path.exists(instance_dir(aio, 'testhost2', server))
    assert usage(aio, 'testhost')[1] == 64 and usage(aio, 'testhost2') == (0, 0, 0)


def test_moved_server_takes_the_zone_of_its_host_and_back_on_revert(aio):
    status, _h, body = aio.request('POST', '/os-aggregates', {'aggregate': {
        'name': 'zone2', 'availability_zone': 'az2'}}, token=ADMIN)
    assert status == 200, body
    agg = '/os-aggregates/%s' % body['aggregate']['id']
    # A server placed on a host without being pinned to a zone (2.74's host).
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'cmaz', 'imageRef': aio.image_id, 'flavorRef': 'cm64', 'networks': 'none',
        'host': 'testhost'}}, version='2.74', token=ADMIN)
    assert status == 202, body
    sid = body['server']['id']
    try:
        aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        assert aio.request('POST', agg + '/action', {'add_host': {'host': 'testhost2'}},
                           token=ADMIN)[0] == 200
        assert show(aio, sid)['OS-EXT-AZ:availability_zone'] == 'nova'
        status, _h, resp = act(aio, sid, {'migrate': {'host': 'testhost2'}})
        assert status == 202, resp
        try:
            aio.wait_for_status(sid, ['VERIFY_RESIZE'], token=ADMIN)
        except AssertionError:
            raise AssertionError((show(aio, sid).get('fault'), migration(aio, sid)))
        assert show(aio, sid)['OS-EXT-AZ:availability_zone'] == 'az2'
        assert act(aio, sid, {'revertResize': None})[0] == 202
        aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        wait(lambda: migration(aio, sid)['status'] == 'reverted')
        shown = show(aio, sid)
        assert (shown['OS-EXT-SRV-ATTR:host'], shown['OS-EXT-AZ:availability_zone']) == (
            'testhost', 'nova')
    finally:
        aio.request('DELETE', '/servers/' + sid, token=ADMIN)
        aio.wait_for_status(sid, ['DELETED'], token=ADMIN)
        aio.request('POST', agg + '/action', {'remove_host': {'host': 'testhost2'}},
                    token=ADMIN)
        assert aio.request('DELETE', agg, token=ADMIN)[0] == 200
        wait(lambda: usage(aio, 'testhost') == usage(aio, 'testhost2') == (0, 0, 0))


def test_stopped_server_arrives_stopped(aio, server):
    assert act(aio, server, {'os-stop': None})[0] == 202
    aio.wait_for_status(server, ['SHUTOFF'], token=ADMIN)
    migrate_to_verify(aio, server)
    assert guest_state(aio, 'testhost2', server) == 4   # defined, shut down
    assert act(aio, server, {'confirmResize': None})[0] == 204
    aio.wait_for_status(server, ['SHUTOFF'], token=ADMIN)


def test_deleting_a_migrated_server_frees_both_hosts(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'cmdel', 'imageRef': aio.image_id, 'flavorRef': 'cm64', 'networks': 'none',
        'availability_zone': 'nova:testhost'}}, version=V, token=ADMIN)
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
    migrate_to_verify(aio, sid)
    assert aio.request('DELETE', '/servers/' + sid, token=ADMIN)[0] == 204
    aio.wait_for_status(sid, ['DELETED'], token=ADMIN)
    wait(lambda: usage(aio, 'testhost') == usage(aio, 'testhost2') == (0, 0, 0))
    wait(lambda: not os.path.exists(instance_dir(aio, 'testhost', sid) + '_resize'))
    assert not os.path.exists(instance_dir(aio, 'testhost2', sid))


def test_named_host_checks(aio, server):
    status, _h, body = act(aio, server, {'migrate': {'host': 'testhost'}})
    assert status == 400 and 'same one' in body['badRequest']['message']
    status, _h, body = act(aio, server, {'migrate': {'host': 'nosuchhost'}})
    assert status == 400 and 'could not be found' in body['badRequest']['message']
    assert show(aio, server)['status'] == 'ACTIVE'


def test_failure_on_the_destination_leaves_it_running_on_the_source(aio, server,
                                                                    monkeypatch):
    def unreachable(context, instance, disk_dir):
        raise exception.MigrationError(reason='the source directory is not reachable')
    monkeypatch.setattr(driver(aio, 'testhost2'), 'receive_instance_files', unreachable)
    assert act(aio, server, {'migrate': None})[0] == 202
    wait(lambda: migration(aio, server)['status'] == 'error')
    aio.wait_for_status(server, ['ACTIVE'], token=ADMIN)
    shown = show(aio, server)
    assert shown['OS-EXT-SRV-ATTR:host'] == 'testhost'
    assert shown['OS-EXT-STS:task_state'] is None
    assert guest_state(aio, 'testhost', server) == 1
    assert not os.path.exists(instance_dir(aio, 'testhost', server) + '_resize')
    assert usage(aio, 'testhost')[1] == 64 and usage(aio, 'testhost2') == (0, 0, 0)
    fault = aio.db.faults_latest([server])[server]
    assert 'not reachable' in fault['message']


def test_anti_affinity_member_moves_only_where_the_policy_allows(aio):
    status, _h, group = aio.request('POST', '/os-server-groups', {'server_group': {
        'name': 'aa', 'policy': 'anti-affinity'}}, version='2.64', token=ADMIN)
    assert status == 200, group
    sids = []
    for name in ('aa1', 'aa2'):
        status, _h, body = aio.request('POST', '/servers', {
            'server': {'name': name, 'imageRef': aio.image_id, 'flavorRef': 'cm64',
                       'networks': 'none'},
            'os:scheduler_hints': {'group': group['server_group']['id']}},
            version=V, token=ADMIN)
        assert status == 202, body
        sids.append(body['server']['id'])
    try:
        for sid in sids:
            aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        # Each host has one member: the other host is taken, no move is allowed.
        assert act(aio, sids[0], {'migrate': None})[0] == 202
        wait(lambda: migration(aio, sids[0])['status'] == 'error')
        aio.wait_for_status(sids[0], ['ACTIVE'], token=ADMIN)
        fault = aio.db.faults_latest([sids[0]])[sids[0]]
        assert 'No valid host found for cold migrate' in fault['message']
    finally:
        for sid in sids:
            aio.request('DELETE', '/servers/' + sid, token=ADMIN)
        for sid in sids:
            aio.wait_for_status(sid, ['DELETED'], token=ADMIN)


def _backing(path):
    from nova.virt.libvirt import imagebackend
    info = imagebackend.qemu_img_info(path)
    return info.get('full-backing-filename') or info.get('backing-filename') or ''


def test_resize_goes_to_another_host_when_the_same_host_is_not_allowed(aio, server):
    aio.conf.set_override('allow_resize_to_same_host', False)
    try:
        status, _h, body = act(aio, server, {'resize': {'flavorRef': 'cm96'}})
        assert status == 202, body
        aio.wait_for_status(server, ['VERIFY_RESIZE'], token=ADMIN)
    finally:
        aio.conf.clear_override('allow_resize_to_same_host')
    shown = show(aio, server)
    assert shown['OS-EXT-SRV-ATTR:host'] == 'testhost2'
    assert shown['flavor']['ram'] == 96
    assert migration(aio, server)['migration_type'] == 'resize'
    assert usage(aio, 'testhost')[1] == 64 and usage(aio, 'testhost2')[1] == 96
    assert act(aio, server, {'revertResize': None})[0] == 202
    aio.wait_for_status(server, ['ACTIVE'], token=ADMIN)
    shown = show(aio, server)
    assert (shown['OS-EXT-SRV-ATTR:host'], shown['flavor']['ram']) == ('testhost', 64)
    wait(lambda: usage(aio, 'testhost2') == (0, 0, 0))
    assert usage(aio, 'testhost')[1] == 64


def test_an_rpc_pin_below_the_move_is_409_and_changes_nothing(aio, server):
    from nova import context as nova_context
    from nova import wiring
    aio.conf.set_override('compute', '1.2', group='upgrade_levels')
    try:
        api = wiring.compute_api(aio.conf, aio.db)
    finally:
        aio.conf.clear_override('compute', group='upgrade_levels')
    ctx = nova_context.get_admin_context()
    with pytest.raises(exception.RPCVersionPinned) as caught:
        api.resize.migrate(ctx, aio.db.instance_get(server))
    assert caught.value.code == 409 and 'pins it to 1.2' in caught.value.format_message()
    status, _h, body = aio.request('GET', '/os-migrations?instance_uuid=' + server,
                                   version='2.80', token=ADMIN)
    assert body['migrations'] == []
    assert show(aio, server)['OS-EXT-STS:task_state'] is None


def test_volume_backed_server_moves_with_its_volume_attached(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'cmvol', 'imageRef': '', 'flavorRef': 'cm64', 'networks': 'none',
        'availability_zone': 'nova:testhost',
        'block_device_mapping_v2': [{
            'source_type': 'image', 'destination_type': 'volume', 'boot_index': 0,
            'uuid': aio.image_id, 'volume_size': 1, 'delete_on_termination': True}]}},
        version=V, token=ADMIN)
    assert status == 202, body
    sid = body['server']['id']
    try:
        aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        [vol] = show(aio, sid)['os-extended-volumes:volumes_attached']
        assert volume_hosts(aio, vol['id']) == ['testhost']
        migrate_to_verify(aio, sid)
        assert show(aio, sid)['OS-EXT-SRV-ATTR:host'] == 'testhost2'
        assert guest_state(aio, 'testhost2', sid) == 1
        # The attachment moved with the guest: connected with the destination's
        # connector, the source's one gone, as upstream's move leaves it.
        assert volume_hosts(aio, vol['id']) == ['testhost2']
        assert act(aio, sid, {'revertResize': None})[0] == 202
        aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        wait(lambda: migration(aio, sid)['status'] == 'reverted')
        assert guest_state(aio, 'testhost', sid) == 1
        assert volume_hosts(aio, vol['id']) == ['testhost']
        migrate_to_verify(aio, sid)
        assert volume_hosts(aio, vol['id']) == ['testhost2']
        assert act(aio, sid, {'confirmResize': None})[0] == 204
        aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        shown = show(aio, sid)
        assert shown['os-extended-volumes:volumes_attached'] == [vol]
        status, _h, body = aio.request('GET', '/os-volumes/' + vol['id'], version='2.35',
                                       token=ADMIN)
        assert body['volume']['status'] == 'in-use', body
    finally:
        aio.request('DELETE', '/servers/' + sid, token=ADMIN)
        aio.wait_for_status(sid, ['DELETED'], token=ADMIN)
