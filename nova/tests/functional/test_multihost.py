"""Two compute hosts in one all-in-one ([aio] extra_compute_hosts) on test:///default."""

import os

import pytest

from nova import exception
from nova.cmd import aio as aio_cmd
from nova.cmd import common
from nova.tests.functional import fixtures

ADMIN = 'admin:admin'
V = '2.91'
HOSTS = {'testhost', 'testhost2'}


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('multihost')
    running = fixtures.RunningAio(tmp, extra={('aio', 'extra_compute_hosts'): ['testhost2'],
                                              ('DEFAULT', 'shelved_offload_time'): -1})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    status, _h, body = running.request('POST', '/flavors', {'flavor': {
        'name': 'mh64', 'id': 'mh64', 'ram': 64, 'vcpus': 1, 'disk': 1}}, token=ADMIN)
    assert status == 200, body
    yield running
    running.stop()


def boot(aio, name='mh', hints=None, **extra):
    body = {'server': dict(name=name, imageRef=aio.image_id, flavorRef='mh64',
                           networks='none', **extra)}
    if hints:
        body['os:scheduler_hints'] = hints
    status, _h, resp = aio.request('POST', '/servers', body, version=V, token=ADMIN)
    assert status == 202, resp
    return resp


def host_of(aio, sid):
    status, _h, body = aio.request('GET', '/servers/' + sid, version=V, token=ADMIN)
    assert status == 200, body
    return body['server']['OS-EXT-SRV-ATTR:host']


@pytest.fixture
def servers(aio):
    made = []
    yield made
    for sid in made:
        aio.request('DELETE', '/servers/' + sid, token=ADMIN)
    for sid in made:
        aio.wait_for_status(sid, ['DELETED'], token=ADMIN)


def started(aio, servers, **kwargs):
    sid = boot(aio, **kwargs)['server']['id']
    servers.append(sid)
    aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
    return sid


def test_each_host_has_its_service_and_hypervisor(aio):
    status, _h, body = aio.request('GET', '/os-services?binary=nova-compute', token=ADMIN)
    assert status == 200, body
    assert {s['host'] for s in body['services']} == HOSTS
    assert all(s['state'] == 'up' for s in body['services'])
    status, _h, body = aio.request('GET', '/os-hypervisors/detail', version='2.53',
                                   token=ADMIN)
    assert status == 200, body
    hypervisors = body['hypervisors']
    assert {h['service']['host'] for h in hypervisors} == HOSTS
    # Unique node names: the extra host reports its own, not the libvirtd's.
    names = {h['service']['host']: h['hypervisor_hostname'] for h in hypervisors}
    assert names['testhost2'] == 'testhost2' and names['testhost'] != 'testhost2'
    for hyp in hypervisors:
        # A call to each host's own RPC server.
        status, _h, up = aio.request('GET', '/os-hypervisors/%s/uptime' % hyp['id'],
                                     version='2.53', token=ADMIN)
        assert status == 200 and up['hypervisor']['uptime'], up


def test_extra_host_keeps_its_files_in_its_own_directory(aio, servers):
    sid = started(aio, servers, hints=None, availability_zone='nova:testhost2')
    assert host_of(aio, sid) == 'testhost2'
    state = aio.conf.state_path
    assert os.path.isdir(os.path.join(state, 'hosts', 'testhost2', 'instances', sid))
    assert not os.path.exists(os.path.join(aio.conf.instances_path, sid))
    # Casts reach that host's server: its own event records the stop.
    assert aio.request('POST', '/servers/%s/action' % sid, {'os-stop': None},
                       token=ADMIN)[0] == 202
    aio.wait_for_status(sid, ['SHUTOFF'], token=ADMIN)
    status, _h, acts = aio.request('GET', '/servers/%s/os-instance-actions' % sid,
                                   version='2.62', token=ADMIN)
    [stop] = [a for a in acts['instanceActions'] if a['action'] == 'stop']
    status, _h, detail = aio.request(
        'GET', '/servers/%s/os-instance-actions/%s' % (sid, stop['request_id']),
        version='2.62', token=ADMIN)
    assert [e['host'] for e in detail['instanceAction']['events']] == ['testhost2']


def test_anti_affinity_spreads_and_affinity_packs(aio, servers):
    for policy, distinct in (('anti-affinity', 2), ('affinity', 1)):
        status, _h, group = aio.request('POST', '/os-server-groups', {'server_group': {
            'name': policy, 'policy': policy}}, version='2.64', token=ADMIN)
        assert status == 200, group
        resp = boot(aio, name=policy, hints={'group': group['server_group']['id']},
                    min_count=2, return_reservation_id=True)
        status, _h, body = aio.request(
            'GET', '/servers/detail?reservation_id=' + resp['reservation_id'], version=V,
            token=ADMIN)
        ids = [s['id'] for s in body['servers']]
        servers.extend(ids)
        assert len(ids) == 2
        for sid in ids:
            aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        assert len({host_of(aio, sid) for sid in ids}) == distinct, policy


def test_same_and_different_host_hints(aio, servers):
    first = started(aio, servers, name='first')
    home = host_of(aio, first)
    other = started(aio, servers, name='other', hints={'different_host': [first]})
    assert host_of(aio, other) == (HOSTS - {home}).pop()
    same = started(aio, servers, name='same', hints={'same_host': first})
    assert host_of(aio, same) == home


def test_unshelve_to_a_named_host(aio, servers):
    sid = started(aio, servers, name='shelved')
    home = host_of(aio, sid)
    for target in ((HOSTS - {home}).pop(), home):
        assert aio.request('POST', '/servers/%s/action' % sid, {'shelve': None},
                           token=ADMIN)[0] == 202
        aio.wait_for_status(sid, ['SHELVED'], token=ADMIN)
        assert aio.request('POST', '/servers/%s/action' % sid, {'shelveOffload': None},
                           token=ADMIN)[0] == 202
        aio.wait_for_status(sid, ['SHELVED_OFFLOADED'], token=ADMIN)
        status, _h, resp = aio.request('POST', '/servers/%s/action' % sid,
                                       {'unshelve': {'host': target}}, version=V,
                                       token=ADMIN)
        assert status == 202, resp
        aio.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        assert host_of(aio, sid) == target


def test_one_hosts_cleanup_leaves_the_other_hosts_guests(aio, servers):
    sids = {}
    for host in sorted(HOSTS):
        sids[host] = started(aio, servers, name=host, availability_zone='nova:' + host)
    for svc in aio.aio.services[1:]:
        assert svc.manager.conf.running_deleted_instance_action == 'reap'
        # Both see every domain on the shared libvirtd; none counts as an orphan.
        assert svc.manager.lifecycle.cleanup_running_deleted_instances() == []
        svc.manager.reconcile.reconcile_periodic()
        svc.manager.lifecycle.sync_power_states()
    for host, sid in sids.items():
        assert host_of(aio, sid) == host
        driver = _driver(aio, host)
        assert driver.get_info(_instance(aio, sid)).state == 1   # running


def test_orphans_on_the_extra_host_are_reaped_by_it_alone(aio, servers):
    deleted = started(aio, servers, name='deleted', availability_zone='nova:testhost2')
    unknown = started(aio, servers, name='unknown', availability_zone='nova:testhost2')
    instances = [_instance(aio, sid) for sid in (deleted, unknown)]
    # Behind the service's back: a row deleted while its guest kept running,
    # and a guest the database never heard of (a restored database, say).
    aio.db.instance_destroy(deleted)
    aio.db.instance_hard_delete(unknown)
    servers.clear()
    primary, extra = (svc.manager for svc in aio.aio.services[1:3])
    assert primary.lifecycle.cleanup_running_deleted_instances() == []
    for instance in instances:
        assert _driver(aio, 'testhost2').get_info(instance).state == 1
    assert sorted(extra.lifecycle.cleanup_running_deleted_instances()) == sorted(
        [deleted, unknown])
    for instance in instances:
        with pytest.raises(exception.InstanceNotFound):
            _driver(aio, 'testhost2').get_info(instance)


def test_a_bad_extra_host_name_stops_the_start(tmp_path):
    for names in (['../x'], ['testhost'], ['a', 'a']):
        conf = fixtures.make_conf(tmp_path, extra={('aio', 'extra_compute_hosts'): names})
        with pytest.raises(common.StartupError, match='extra_compute_hosts'):
            aio_cmd.extra_host_dirs(conf)


def _driver(aio, host):
    return {svc.host: svc.manager.driver for svc in aio.aio.services[1:]}[host]


def _instance(aio, sid):
    from nova.objects import instance as instance_obj
    return instance_obj.Instance.from_db(aio.db.instance_get(sid))
