"""A server's port follows it between the all-in-one's two compute hosts: migrate, shelve."""


import pytest

from nova.tests.functional import fixtures, netns_guest

ADMIN = 'admin:admin'
V = '2.56'


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('portmoves')
    running = fixtures.RunningAio(tmp, extra={('aio', 'extra_compute_hosts'): ['testhost2']})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    status, _h, body = running.request('POST', '/flavors', {'flavor': {
        'name': 'pm64', 'id': 'pm64', 'ram': 64, 'vcpus': 1, 'disk': 1}}, token=ADMIN)
    assert status == 200, body
    yield running
    running.stop()


def _wait(what, ok, timeout=30):
    return netns_guest.wait_for(what, ok, timeout, interval=0.05)


def _ports(aio, sid):
    status, _h, body = aio.request('GET', '/v2.0/ports?device_id=' + sid,
                                   url=aio.network_url, token=ADMIN)
    assert status == 200, body
    return body['ports']


def _show(aio, sid):
    status, _h, body = aio.request('GET', '/servers/' + sid, version=V, token=ADMIN)
    assert status == 200, body
    return body['server']


def _act(aio, sid, action, value=None, version=V):
    status, _h, body = aio.request('POST', '/servers/%s/action' % sid, {action: value},
                                   version=version, token=ADMIN)
    assert status in (200, 202, 204), (action, body)


def _bound_to(aio, sid, host):
    """The server's one port is bound to ``host`` and its cache shows the port."""
    [port] = _ports(aio, sid)
    assert port['binding:host_id'] == host, port
    assert port['binding:vif_type'] == 'tap', port
    info = aio.db.instance_get(sid)['network_info']
    assert [vif['id'] for vif in info] == [port['id']]
    return port


@pytest.fixture
def server(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'pm', 'imageRef': aio.image_id, 'flavorRef': 'pm64', 'networks': 'auto',
        'availability_zone': 'nova:testhost'}}, version=V, token=ADMIN)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
    yield sid
    aio.request('DELETE', '/servers/' + sid, token=ADMIN)
    aio.wait_for_status(sid, ['DELETED'], token=ADMIN)
    assert _ports(aio, sid) == []


def test_cold_migration_binds_the_port_on_the_destination_and_revert_binds_it_back(
        aio, server):
    port = _bound_to(aio, server, 'testhost')
    address = port['fixed_ips'][0]['ip_address']
    _act(aio, server, 'migrate', {'host': 'testhost2'})
    aio.wait_for_status(server, ['VERIFY_RESIZE'], token=ADMIN)
    assert _show(aio, server)['OS-EXT-SRV-ATTR:host'] == 'testhost2'
    moved = _bound_to(aio, server, 'testhost2')
    assert moved['id'] == port['id'] and moved['mac_address'] == port['mac_address']
    addresses = _show(aio, server)['addresses']
    assert [a['addr'] for net in addresses.values() for a in net] == [address]

    _act(aio, server, 'revertResize')
    aio.wait_for_status(server, ['ACTIVE'], token=ADMIN)
    _wait('the revert to end', lambda: _show(aio, server)['OS-EXT-STS:task_state'] is None)
    assert _show(aio, server)['OS-EXT-SRV-ATTR:host'] == 'testhost'
    _bound_to(aio, server, 'testhost')

    _act(aio, server, 'migrate', {'host': 'testhost2'})
    aio.wait_for_status(server, ['VERIFY_RESIZE'], token=ADMIN)
    _act(aio, server, 'confirmResize', version='2.1')
    aio.wait_for_status(server, ['ACTIVE'], token=ADMIN)
    _bound_to(aio, server, 'testhost2')


def test_shelve_offload_unbinds_the_port_and_unshelve_binds_it_where_the_server_lands(
        aio, server):
    port = _bound_to(aio, server, 'testhost')
    _act(aio, server, 'shelve')
    aio.wait_for_status(server, ['SHELVED', 'SHELVED_OFFLOADED'], token=ADMIN)
    if _show(aio, server)['status'] == 'SHELVED':
        # Offloaded at once or by this call (409 when it came first).
        aio.request('POST', '/servers/%s/action' % server, {'shelveOffload': None},
                    version=V, token=ADMIN)
    aio.wait_for_status(server, ['SHELVED_OFFLOADED'], token=ADMIN)
    [parked] = _ports(aio, server)
    assert parked['id'] == port['id']
    assert not parked['binding:host_id'], parked
    assert parked['device_owner'] == port['device_owner']

    _act(aio, server, 'unshelve', {'host': 'testhost2'}, version='2.91')
    aio.wait_for_status(server, ['ACTIVE'], token=ADMIN)
    assert _show(aio, server)['OS-EXT-SRV-ATTR:host'] == 'testhost2'
    _bound_to(aio, server, 'testhost2')


def _migrate_counting_calls(aio, sid):
    """Migrate and confirm ``sid`` to the other host: the compute hosts' Neutron calls."""
    calls = []
    clients = {id(c): c for c in (svc.manager.network_api.client
                                  for svc in aio.aio.services[1:])}
    assert len(aio.aio.services) == 3 and clients
    for client in clients.values():
        client.call = (lambda original: lambda *a, **k: calls.append(a[1:3])
                       or original(*a, **k))(client.call)
    try:
        other = 'testhost2' if _show(aio, sid)['OS-EXT-SRV-ATTR:host'] == 'testhost' \
            else 'testhost'
        _act(aio, sid, 'migrate', {'host': other})
        aio.wait_for_status(sid, ['VERIFY_RESIZE'], token=ADMIN)
        _act(aio, sid, 'confirmResize', version='2.1')
        aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
    finally:
        for client in clients.values():
            del client.call
    return calls


def test_a_networkless_move_makes_no_network_call(aio, server):
    assert ('PUT', '/ports/' + _ports(aio, server)[0]['id']) in \
        _migrate_counting_calls(aio, server)
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'pm-none', 'imageRef': aio.image_id, 'flavorRef': 'pm64', 'networks': 'none',
        'availability_zone': 'nova:testhost'}}, version=V, token=ADMIN)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
    try:
        assert _migrate_counting_calls(aio, sid) == []
    finally:
        aio.request('DELETE', '/servers/' + sid, token=ADMIN)
        aio.wait_for_status(sid, ['DELETED'], token=ADMIN)


def test_deleting_an_offloaded_server_deletes_its_port(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'pm-off', 'imageRef': aio.image_id, 'flavorRef': 'pm64', 'networks': 'auto',
        'availability_zone': 'nova:testhost'}}, version=V, token=ADMIN)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
    assert len(_ports(aio, sid)) == 1
    _act(aio, sid, 'shelve')
    aio.wait_for_status(sid, ['SHELVED', 'SHELVED_OFFLOADED'], token=ADMIN)
    aio.request('POST', '/servers/%s/action' % sid, {'shelveOffload': None}, version=V,
                token=ADMIN)
    aio.wait_for_status(sid, ['SHELVED_OFFLOADED'], token=ADMIN)
    assert len(_ports(aio, sid)) == 1
    status, _h, body = aio.request('DELETE', '/servers/' + sid, token=ADMIN)
    assert status == 204, body
    aio.wait_for_status(sid, ['DELETED'], token=ADMIN)
    assert _ports(aio, sid) == []


def _host_manager(aio, host):
    [svc] = [s for s in aio.aio.services[1:] if s.host == host]
    return svc.manager


def _instance(aio, sid):
    from nova.objects import instance as instance_obj
    return instance_obj.Instance.from_db(aio.db.instance_get(sid))


def test_live_migration_port_steps_on_the_network_service(aio, server):
    """The live migration's port steps against the network service (test:///default
    cannot live migrate a guest, so the steps are driven here, host by host)."""
    from nova import context as nova_context
    ctx = nova_context.RequestContext(user_id='admin', project_id='admin', is_admin=True,
                                      auth_token=ADMIN)
    port = _bound_to(aio, server, 'testhost')
    # The move in progress lets the destination write the server's records.
    migration = aio.db.migration_create({
        'instance_uuid': server, 'source_compute': 'testhost', 'dest_compute': 'testhost2',
        'source_node': 'testhost', 'dest_node': 'testhost2', 'status': 'running',
        'migration_type': 'live-migration'})
    source = _host_manager(aio, 'testhost').live_migrate.ports
    dest = _host_manager(aio, 'testhost2').live_migrate.ports
    # Destination first: no binding-extended here, so the source binding is marked.
    info = dest.prepare_live_destination(ctx, _instance(aio, server))
    assert [vif['id'] for vif in info] == [port['id']]
    [marked] = _ports(aio, server)
    assert marked['binding:host_id'] == 'testhost'
    assert marked['binding:profile'].get('migrating_to') == 'testhost2'
    # A failed move takes the mark away.
    dest.rollback_live_destination(ctx, _instance(aio, server))
    [rolled] = _ports(aio, server)
    assert 'migrating_to' not in (rolled['binding:profile'] or {})
    assert rolled['binding:host_id'] == 'testhost'
    # A move that worked: activated from the source (nothing to activate without
    # binding-extended), then bound on the destination, the mark gone, the cache fresh.
    dest.prepare_live_destination(ctx, _instance(aio, server))
    source.activate_on(ctx, _instance(aio, server), 'testhost2')
    moved_info = dest.finish_live_destination(ctx, _instance(aio, server))
    [moved] = _ports(aio, server)
    assert moved['binding:host_id'] == 'testhost2'
    assert 'migrating_to' not in (moved['binding:profile'] or {})
    assert [vif['id'] for vif in moved_info] == [port['id']]
    assert aio.db.instance_get(server)['network_info'] == moved_info
    aio.db.migration_update(migration['id'], {'status': 'completed'})
    # Back where the server's record says it is, for the fixture's delete.
    _host_manager(aio, 'testhost').migrate.ports.bind_here(ctx, _instance(aio, server))
    _bound_to(aio, server, 'testhost')


def test_evacuation_binds_the_port_on_the_new_host_and_keeps_it(aio, server):
    from nova.objects import instance as instance_obj
    from nova.tests.functional import test_evacuate as ev
    port = _bound_to(aio, server, 'testhost')
    ev.host_dies(aio, server)
    try:
        _act(aio, server, 'evacuate', {'host': 'testhost2'}, version='2.14')
        aio.wait_for_status(server, ['ACTIVE'], token=ADMIN)
        _wait('the evacuation', lambda: ev.evacuation(aio, server)['status'] == 'done')
        # The same port (its MAC and address), now bound to the new host.
        moved = _bound_to(aio, server, 'testhost2')
        assert (moved['id'], moved['mac_address'], moved['fixed_ips']) == (
            port['id'], port['mac_address'], port['fixed_ips'])
        inst = instance_obj.Instance.from_db(aio.db.instance_get(server))
        xml = ev.driver(aio, 'testhost2').core.guest(inst).get_xml_desc()
        assert port['mac_address'] in xml
    finally:
        ev.host_returns(aio)
    assert ev.evacuation(aio, server)['status'] == 'completed'
    assert _bound_to(aio, server, 'testhost2')['id'] == port['id']
