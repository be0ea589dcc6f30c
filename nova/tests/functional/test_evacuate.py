"""Evacuate between two compute hosts of one all-in-one on test:///default: the API's checks,
the rebuild on the new host, and the old host's clean-up when its service runs again."""

import os

import pytest

from nova.objects import instance as instance_obj
from nova.tests.functional import fixtures
from nova.tests.functional.test_cold_migrate import (
    ADMIN,
    act,
    driver,
    guest_state,
    instance_dir,
    show,
    usage,
    volume_hosts,
    wait,
)
from nova.tests.functional.test_openstack_cli import osc

V = '2.14'


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('evacuate')
    running = fixtures.RunningAio(tmp, extra={('aio', 'extra_compute_hosts'): ['testhost2']})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    status, _h, body = running.request('POST', '/flavors', {'flavor': {
        'name': 'ev64', 'id': 'ev64', 'ram': 64, 'vcpus': 1, 'disk': 1}}, token=ADMIN)
    assert status == 200, body
    yield running
    running.stop()


def service_id(aio, host):
    status, _h, body = aio.request('GET', '/os-services?binary=nova-compute&host=' + host,
                                   version='2.53', token=ADMIN)
    assert status == 200, body
    return body['services'][0]['id']


def set_service(aio, host, **values):
    status, _h, body = aio.request('PUT', '/os-services/' + service_id(aio, host), values,
                                   version='2.53', token=ADMIN)
    assert status == 200, body


def service(aio, host):
    return {svc.host: svc for svc in aio.aio.services[1:]}[host]


def host_dies(aio, sid):
    """testhost fails: its compute service stops, it is marked down, and its guest is
    gone with it (its files stay on its disk). On the shared test:///default the
    domain is removed through its driver."""
    svc = service(aio, 'testhost')
    svc.stop()
    svc.dead = True
    set_service(aio, 'testhost', forced_down=True)
    inst = instance_obj.Instance.from_db(aio.db.instance_get(sid))
    guest = driver(aio, 'testhost').core.guest(inst)
    guest.poweroff()
    guest.undefine()


def host_returns(aio):
    """testhost's compute service starts again (init_host), no longer marked down."""
    set_service(aio, 'testhost', forced_down=False)
    svc = service(aio, 'testhost')
    if getattr(svc, 'dead', False):
        svc.dead = False
        svc.start()


def evacuation(aio, sid):
    status, _h, body = aio.request('GET', '/os-migrations?instance_uuid=' + sid +
                                   '&migration_type=evacuation', version='2.80', token=ADMIN)
    assert status == 200, body
    return body['migrations'][0] if body['migrations'] else None


def boot(aio, name, extra=None, status='ACTIVE'):
    server = {'name': name, 'imageRef': aio.image_id, 'flavorRef': 'ev64', 'networks': 'none',
              'availability_zone': 'nova:testhost'}
    server.update(extra or {})
    code, _h, body = aio.request('POST', '/servers', {'server': server}, version='2.37',
                                 token=ADMIN)
    assert code == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, [status], token=ADMIN)
    return sid


@pytest.fixture
def server(aio):
    sid = boot(aio, 'ev')
    yield sid
    host_returns(aio)
    aio.request('DELETE', '/servers/' + sid, token=ADMIN)
    aio.wait_for_status(sid, ['DELETED'], token=ADMIN)
    wait(lambda: usage(aio, 'testhost') == usage(aio, 'testhost2') == (0, 0, 0))


def test_refused_while_the_host_is_up_and_for_bad_requests(aio, server):
    before = show(aio, server)
    status, _h, body = act(aio, server, {'evacuate': {}}, version=V)
    assert status == 400, body
    assert body['badRequest']['message'] == 'Compute service of testhost is still in use.'
    set_service(aio, 'testhost', forced_down=True)
    for request, version, code, message in (
            ({'host': 'testhost'}, V, 400, "The target host can't be the same one."),
            ({'host': 'nosuchhost'}, V, 404, 'Compute host nosuchhost not found.'),
            ({}, '2.1', 400, None),   # onSharedStorage is required before 2.14
            ({'onSharedStorage': True}, '2.1', 400, 'Invalid onSharedStorage'),
            ({'onSharedStorage': True, 'adminPass': 'x'}, '2.1', 400,
             "admin password can't be changed on existing disk"),
            ({'onSharedStorage': False}, V, 400, None),   # gone at 2.14
            ({'force': True}, '2.29', 400, "Can't force to a non-provided destination"),
            ({'host': 'testhost2', 'force': True}, '2.68', 400, None)):
        status, _h, body = act(aio, server, {'evacuate': request}, version=version)
        assert status == code, (request, version, body)
        text = next(iter(body.values()))['message']
        assert message is None or text.startswith(message), (request, text)
    assert evacuation(aio, server) is None
    after = show(aio, server)
    assert (after['status'], after['OS-EXT-SRV-ATTR:host']) == (before['status'], 'testhost')
    # An admin-only action: another project's member is refused.
    status, _h, body = aio.request('POST', '/servers/%s/action' % server, {'evacuate': {}},
                                   version=V, token='demo:demo')
    assert status in (403, 404), body


def test_evacuate_rebuilds_on_the_new_host_and_the_old_one_cleans_up(aio, server):
    old_dir = instance_dir(aio, 'testhost', server)
    assert os.path.isdir(old_dir)
    host_dies(aio, server)
    status, _h, body = act(aio, server, {'evacuate': {}}, version=V)
    # 200 with no body from 2.14, as upstream.
    assert (status, body) == (200, None), body
    aio.wait_for_status(server, ['ACTIVE'], token=ADMIN)
    wait(lambda: evacuation(aio, server)['status'] == 'done')
    shown = show(aio, server)
    assert shown['OS-EXT-SRV-ATTR:host'] == 'testhost2'
    assert shown['OS-EXT-STS:task_state'] is None
    mig = evacuation(aio, server)
    assert (mig['source_compute'], mig['dest_compute']) == ('testhost', 'testhost2')
    assert guest_state(aio, 'testhost2', server) == 1
    assert os.path.isfile(os.path.join(instance_dir(aio, 'testhost2', server), 'disk'))
    # The old host keeps the room and its files until its service runs again.
    assert os.path.isdir(old_dir)
    assert usage(aio, 'testhost')[1] == usage(aio, 'testhost2')[1] == 64
    status, _h, body = aio.request('GET', '/servers/%s/os-instance-actions' % server,
                                   version='2.21', token=ADMIN)
    assert body['instanceActions'][0]['action'] == 'evacuate', body

    # Its compute service starts again: what the server left there goes.
    host_returns(aio)
    assert not os.path.exists(old_dir)
    assert evacuation(aio, server)['status'] == 'completed'
    assert usage(aio, 'testhost') == (0, 0, 0)
    # Both hosts share test:///default here: the domain there is testhost2's
    # (its files are not testhost's), so the clean-up left it running.
    assert guest_state(aio, 'testhost2', server) == 1
    assert service(aio, 'testhost').manager.evacuate.cleanup_evacuated() == 0


def test_legacy_answer_has_the_password_and_a_stopped_server_arrives_stopped(aio, server):
    assert act(aio, server, {'os-stop': None})[0] == 202
    aio.wait_for_status(server, ['SHUTOFF'], token=ADMIN)
    host_dies(aio, server)
    status, _h, body = act(aio, server, {'evacuate': {'onSharedStorage': False,
                                                      'host': 'testhost2'}}, version='2.1')
    assert status == 200, body
    assert len(body['adminPass']) >= 8, body
    aio.wait_for_status(server, ['SHUTOFF'], token=ADMIN)
    wait(lambda: evacuation(aio, server)['status'] == 'done')
    assert guest_state(aio, 'testhost2', server) == 4   # defined, shut down


def test_from_2_95_an_active_server_arrives_stopped(aio, server):
    host_dies(aio, server)
    status, _h, body = act(aio, server, {'evacuate': {'adminPass': 'Secret123'}},
                           version='2.95')
    assert (status, body) == (200, None), body
    aio.wait_for_status(server, ['SHUTOFF'], token=ADMIN)
    assert show(aio, server)['OS-EXT-SRV-ATTR:host'] == 'testhost2'
    wait(lambda: evacuation(aio, server)['status'] == 'done')
    # The periodic clean-up of a host that kept running (only marked down) also
    # gives its room back.
    old_dir = instance_dir(aio, 'testhost', server)
    assert usage(aio, 'testhost')[1] == 64 and os.path.isdir(old_dir)
    assert service(aio, 'testhost').manager.evacuate.cleanup_evacuated() == 1
    assert usage(aio, 'testhost') == (0, 0, 0) and not os.path.exists(old_dir)
    assert evacuation(aio, server)['status'] == 'completed'


def test_no_host_fits_the_server_stays_as_it_was_with_a_fault(aio, server):
    host_dies(aio, server)
    set_service(aio, 'testhost2', status='disabled', disabled_reason='evacuate test')
    try:
        status, _h, body = act(aio, server, {'evacuate': {}}, version=V)
        assert status == 200, body
        wait(lambda: evacuation(aio, server)['status'] == 'error')
        shown = show(aio, server)
        assert (shown['status'], shown['OS-EXT-STS:task_state']) == ('ACTIVE', None)
        assert shown['OS-EXT-SRV-ATTR:host'] == 'testhost'
        # The refusal is recorded on the evacuate action (an ACTIVE server shows no fault).
        status, _h, body = aio.request('GET', '/servers/%s/os-instance-actions' % server,
                                       version='2.51', token=ADMIN)
        action = body['instanceActions'][0]
        assert action['action'] == 'evacuate', body
        status, _h, body = aio.request(
            'GET', '/servers/%s/os-instance-actions/%s' % (server, action['request_id']),
            version='2.51', token=ADMIN)
        [event] = [e for e in body['instanceAction']['events']
                   if e['event'] == 'conductor_rebuild_server']
        assert event['result'] == 'Error', body
        assert usage(aio, 'testhost2') == (0, 0, 0)
    finally:
        set_service(aio, 'testhost2', status='enabled')


def test_volume_backed_server_evacuates_with_its_volume(aio):
    sid = boot(aio, 'evvol', {'imageRef': '', 'block_device_mapping_v2': [{
        'source_type': 'image', 'destination_type': 'volume', 'boot_index': 0,
        'uuid': aio.image_id, 'volume_size': 1, 'delete_on_termination': True}]})
    try:
        [vol] = show(aio, sid)['os-extended-volumes:volumes_attached']
        assert volume_hosts(aio, vol['id']) == ['testhost']
        host_dies(aio, sid)
        assert act(aio, sid, {'evacuate': {'host': 'testhost2'}}, version=V)[0] == 200
        aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        wait(lambda: evacuation(aio, sid)['status'] == 'done')
        # One attachment, connected from the new host; the dead host's is gone.
        assert volume_hosts(aio, vol['id']) == ['testhost2']
        assert guest_state(aio, 'testhost2', sid) == 1
    finally:
        host_returns(aio)
        aio.request('DELETE', '/servers/' + sid, token=ADMIN)
        aio.wait_for_status(sid, ['DELETED'], token=ADMIN)
        wait(lambda: usage(aio, 'testhost') == usage(aio, 'testhost2') == (0, 0, 0))


def test_openstack_server_evacuate_as_an_admin_would(aio, server):
    """The stock client: `openstack server evacuate --host ...` with the admin's clouds.yaml."""
    from nova.cmd import aio as aio_cmd
    urls = aio.aio.urls
    path = aio_cmd.write_clouds_yaml(aio.conf, urls['compute'], urls['image'], urls['volume'])
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env.update(OS_CLIENT_CONFIG_FILE=path, OS_CLOUD='nova-aio-admin',
               OS_COMPUTE_API_VERSION='2.29')
    admin = type('Admin', (), {'env': env})()
    host_dies(aio, server)
    # (Without --wait: this client's evacuate --wait compares 'ACTIVE' with the
    # lower-cased status and never ends, whatever the service.)
    osc(admin, 'server', 'evacuate', '--host', 'testhost2', '--password', 'Secret123', server)
    aio.wait_for_status(server, ['ACTIVE'], token=ADMIN)
    wait(lambda: evacuation(aio, server)['status'] == 'done')
    shown = show(aio, server)
    assert (shown['status'], shown['OS-EXT-SRV-ATTR:host']) == ('ACTIVE', 'testhost2')



def test_a_conductor_that_cannot_list_evacuations_does_not_stop_the_clean_up(
        aio, monkeypatch, caplog):
    """An older conductor refuses the new call (a compute host upgraded first): the
    clean-up logs one warning and reports nothing cleaned; the host's service runs on."""
    import oslo_messaging

    evacuate = service(aio, 'testhost').manager.evacuate

    def refuse(host):
        raise oslo_messaging.NoSuchMethod('evacuations_from')

    monkeypatch.setattr(evacuate.conductor_db, 'evacuations_from', refuse)
    with caplog.at_level('WARNING', logger='nova.compute.manager_evacuate'):
        assert evacuate.cleanup_evacuated(startup=True) == 0
    warnings = [r for r in caplog.records if 'evacuated from this host' in r.getMessage()]
    assert len(warnings) == 1 and 'NoSuchMethod' in warnings[0].getMessage()
