"""Guests changed behind the service's back on test:///default: events, recreation, orphans."""

import os
import time

import libvirt
import pytest

from nova.tests.functional import fixtures

V = '2.100'


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('lifecycle-events')
    running = fixtures.RunningAio(tmp, extra={
        ('DEFAULT', 'ram_allocation_ratio'): 100.0,
        ('DEFAULT', 'cpu_allocation_ratio'): 100.0,
        # The periodic tasks stay off: only events (or explicit calls) act.
        ('DEFAULT', 'running_deleted_instance_poll_interval'): -1})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    running.compute = running.aio.services[1].manager
    listener = running.compute.driver.lifecycle.listener
    assert listener is not None and listener.connected.wait(10)
    running.conn = libvirt.open('test:///default')
    yield running
    running.conn.close()
    running.stop()


def _server(aio, **extra):
    server = dict({'name': 'ev', 'imageRef': aio.image_id, 'flavorRef': '1',
                   'networks': 'none'}, **extra)
    status, _h, body = aio.request('POST', '/servers', {'server': server}, version=V)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    return sid


def _get(aio, sid):
    status, _h, body = aio.request('GET', '/servers/' + sid, version=V)
    assert status == 200, body
    return body['server']


def _wait(aio, sid, check, timeout=2.0):
    """Poll GET /servers/{id} until ``check(server)``; the event path must be fast."""
    deadline = time.monotonic() + timeout
    while True:
        server = _get(aio, sid)
        if check(server):
            return server
        if time.monotonic() > deadline:
            raise AssertionError('not reached in %.1fs: %s %s task=%s'
                                 % (timeout, server['status'],
                                    server['OS-EXT-STS:power_state'],
                                    server['OS-EXT-STS:task_state']))
        time.sleep(0.05)


def _act(aio, sid, body):
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid, body, version=V)
    assert status == 202, resp


def _disk_targets(dom):
    from lxml import etree
    root = etree.fromstring(dom.XMLDesc(0).encode())
    return sorted((d.find('target').get('dev'), d.find('target').get('bus'),
                   (d.find('source').get('file') if d.find('source') is not None else None))
                  for d in root.iter('disk'))


def test_destroy_behind_our_back_shows_shutoff_within_two_seconds(aio):
    sid = _server(aio)
    aio.conn.lookupByUUIDString(sid).destroy()
    server = _wait(aio, sid, lambda s: s['status'] == 'SHUTOFF'
                   and s['OS-EXT-STS:task_state'] is None)
    assert server['OS-EXT-STS:power_state'] == 4
    # Through the stop path, as upstream: a 'stop' action is on record.
    status, _h, body = aio.request('GET', '/servers/%s/os-instance-actions' % sid,
                                   version=V)
    assert status == 200, body
    assert 'stop' in [a['action'] for a in body['instanceActions']]


def test_pause_and_resume_behind_our_back_update_the_power_state(aio):
    sid = _server(aio)
    dom = aio.conn.lookupByUUIDString(sid)
    dom.suspend()
    server = _wait(aio, sid, lambda s: s['OS-EXT-STS:power_state'] == 3)
    # Upstream keeps vm_state ACTIVE for a guest paused unexpectedly.
    assert server['status'] == 'ACTIVE'
    dom.resume()
    _wait(aio, sid, lambda s: s['OS-EXT-STS:power_state'] == 1)


def test_started_behind_our_back_while_stopped_is_stopped_again(aio):
    sid = _server(aio)
    _act(aio, sid, {'os-stop': None})
    aio.wait_for_status(sid, ['SHUTOFF'])
    dom = aio.conn.lookupByUUIDString(sid)
    dom.create()
    _wait(aio, sid, lambda s: s['OS-EXT-STS:task_state'] is None and not dom.isActive())
    assert _get(aio, sid)['status'] == 'SHUTOFF'


def test_events_during_an_operation_are_left_to_it(aio):
    sid = _server(aio)
    _act(aio, sid, {'reboot': {'type': 'HARD'}})
    aio.wait_for_status(sid, ['ACTIVE'])
    time.sleep(0.5)   # the reboot's own stop/start events have been handled
    server = _get(aio, sid)
    assert server['status'] == 'ACTIVE' and server['OS-EXT-STS:power_state'] == 1


def test_an_event_during_an_operation_is_looked_at_again_after_it(aio):
    sid = _server(aio)
    lock = aio.compute.core.lock(sid)
    with lock:   # as an operation on the instance would
        aio.conn.lookupByUUIDString(sid).destroy()
        time.sleep(0.5)
        assert _get(aio, sid)['status'] == 'ACTIVE'
    _wait(aio, sid, lambda s: s['status'] == 'SHUTOFF', timeout=3)


def test_hard_reboot_recreates_an_undefined_domain(aio):
    sid = _server(aio)
    dom = aio.conn.lookupByUUIDString(sid)
    before = _disk_targets(dom)
    dom.destroy()
    _wait(aio, sid, lambda s: s['status'] == 'SHUTOFF')
    dom.undefine()
    _act(aio, sid, {'reboot': {'type': 'HARD'}})
    server = aio.wait_for_status(sid, ['ACTIVE'])
    assert server['OS-EXT-STS:power_state'] == 1
    dom = aio.conn.lookupByUUIDString(sid)
    assert dom.isActive() and dom.isPersistent()
    assert _disk_targets(dom) == before


def test_start_recreates_an_undefined_domain(aio):
    sid = _server(aio)
    _act(aio, sid, {'os-stop': None})
    aio.wait_for_status(sid, ['SHUTOFF'])
    aio.conn.lookupByUUIDString(sid).undefine()
    _act(aio, sid, {'os-start': None})
    aio.wait_for_status(sid, ['ACTIVE'])
    assert aio.conn.lookupByUUIDString(sid).isActive()


def test_soft_reboot_of_a_missing_domain_falls_back_to_hard(aio):
    sid = _server(aio)
    dom = aio.conn.lookupByUUIDString(sid)
    dom.destroy()
    _wait(aio, sid, lambda s: s['status'] == 'SHUTOFF')
    dom.undefine()
    # As if the events had been missed: the database still says ACTIVE.
    aio.db.instance_update(sid, {'vm_state': 'active', 'power_state': 1})
    _act(aio, sid, {'reboot': {'type': 'SOFT'}})
    _wait(aio, sid, lambda s: s['status'] == 'ACTIVE' and s['OS-EXT-STS:task_state'] is None,
          timeout=20)
    assert aio.conn.lookupByUUIDString(sid).isActive()


def test_periodic_sync_is_the_fallback(aio):
    sid = _server(aio)
    aio.compute.cleanup_host()   # no events from here on
    try:
        aio.conn.lookupByUUIDString(sid).destroy()
        time.sleep(0.3)
        assert _get(aio, sid)['status'] == 'ACTIVE'
        aio.compute.lifecycle.sync_power_states()
        assert _get(aio, sid)['status'] == 'SHUTOFF'
    finally:
        listener = aio.compute.lifecycle.start_lifecycle_events()
        assert listener.connected.wait(10)


def _define(aio, name, uuid, files_dir):
    xml = ("<domain type='test'><name>%s</name><uuid>%s</uuid><memory>8192</memory>"
           "<os><type>hvm</type></os><devices><disk type='file' device='disk'>"
           "<source file='%s/disk'/><target dev='vda' bus='virtio'/></disk>"
           "</devices></domain>" % (name, uuid, files_dir))
    dom = aio.conn.defineXML(xml)
    dom.create()
    return dom


def _exists(aio, uuid):
    try:
        aio.conn.lookupByUUIDString(uuid)
        return True
    except libvirt.libvirtError:
        return False


def test_running_deleted_guests_are_handled_and_foreign_ones_untouched(aio, tmp_path):
    import uuid as uuidlib
    conf, compute = aio.conf, aio.compute
    # An instance deleted in the database while its guest kept running.
    deleted = _server(aio)
    aio.db.instance_destroy(deleted)
    # A guest of ours the database never heard of (its files are ours).
    unknown = str(uuidlib.uuid4())
    ours_name = conf.instance_name_template % 0x7ffffff0
    unknown_dir = os.path.join(conf.instances_path, unknown)
    os.makedirs(unknown_dir)
    _define(aio, ours_name, unknown, unknown_dir)
    # Not ours: another naming scheme, or our naming but files elsewhere.
    foreign = str(uuidlib.uuid4())
    _define(aio, 'foreign-%s' % foreign[:8], foreign, unknown_dir)
    lookalike = str(uuidlib.uuid4())
    _define(aio, conf.instance_name_template % 0x7ffffff1, lookalike, str(tmp_path))
    try:
        conf.set_override('running_deleted_instance_action', 'log')
        assert sorted(compute.lifecycle.cleanup_running_deleted_instances()) == sorted(
            [deleted, unknown])
        assert aio.conn.lookupByUUIDString(deleted).isActive()

        conf.set_override('running_deleted_instance_action', 'shutdown')
        compute.lifecycle.cleanup_running_deleted_instances()
        assert not aio.conn.lookupByUUIDString(deleted).isActive()
        assert not aio.conn.lookupByUUIDString(unknown).isActive()

        conf.set_override('running_deleted_instance_action', 'reap')
        compute.lifecycle.cleanup_running_deleted_instances()
        assert not _exists(aio, deleted) and not _exists(aio, unknown)
        assert not os.path.exists(unknown_dir)
        for uuid in (foreign, lookalike):
            assert aio.conn.lookupByUUIDString(uuid).isActive()
    finally:
        conf.clear_override('running_deleted_instance_action')
        for uuid in (foreign, lookalike, unknown):
            if _exists(aio, uuid):
                dom = aio.conn.lookupByUUIDString(uuid)
                dom.destroy()
                dom.undefine()


def test_the_periodic_task_reaps_by_default(tmp_path):
    running = fixtures.RunningAio(tmp_path, extra={
        ('DEFAULT', 'running_deleted_instance_poll_interval'): 1})
    running.conn = conn = libvirt.open('test:///default')
    try:
        assert running.conf.running_deleted_instance_action == 'reap'
        running.image_id = running.upload_image(fixtures.tiny_disk(tmp_path / 'disk.img'))
        sid = _server(running)
        running.db.instance_destroy(sid)    # the row goes, the guest stays
        # The reap undefines the guest, then removes its files: wait for both.
        path = os.path.join(running.conf.instances_path, sid)
        deadline = time.monotonic() + 5
        while _exists(running, sid) or os.path.exists(path):
            assert time.monotonic() < deadline, 'not reaped (guest %s, files %s)' % (
                _exists(running, sid), os.path.exists(path))
            time.sleep(0.1)
    finally:
        conn.close()
        running.stop()
