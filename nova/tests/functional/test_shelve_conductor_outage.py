"""Shelve while the conductor stops answering (test:///default): undone or finished, not stuck."""

import threading
import time

import oslo_messaging as messaging
import pytest

from nova.tests.functional import fixtures

V = '2.100'
ADMIN = 'admin:admin'


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('shelve-outage')
    running = fixtures.RunningAio(tmp, extra={('DEFAULT', 'shelved_offload_time'): -1})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    status, _h, body = running.request('POST', '/flavors', {'flavor': {
        'name': 'so64', 'id': 'so64', 'ram': 64, 'vcpus': 1, 'disk': 1}}, token=ADMIN)
    assert status == 200, body
    mgr = running.aio.services[1].manager
    # Tries again quickly: the test waits seconds, not minutes.
    mgr.shelve._conductor_retry().delays = (0.3,) * 10
    yield running
    running.stop()


@pytest.fixture
def server(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'shelf', 'imageRef': aio.image_id, 'flavorRef': 'so64', 'networks': 'none'}},
        version=V)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    yield sid
    aio.request('DELETE', '/servers/' + sid, token=ADMIN)
    aio.wait_for_status(sid, ['DELETED'], token=ADMIN)


class Outage:
    """The host's conductor link fails ``calls`` calls, from the first that ``starts`` matches.

    A MessagingTimeout is what the compute host sees when the conductor
    restarts or a reply goes to another deployment's queue. Only the shelve's
    thread and the retries fail: a lifecycle event's read must not use up the
    outage.
    """

    def __init__(self, starts, calls):
        self.starts, self.left, self.thread = starts, calls, None
        self.failed = []
        self._lock = threading.Lock()

    def install(self, monkeypatch, cdb):
        real = cdb._send

        def send(context, host, method, args, kwargs):
            me = threading.current_thread()
            with self._lock:
                if self.thread is None and self.starts(method, args):
                    self.thread = me
                failing = self.left > 0 and (me is self.thread or (
                    self.thread is not None and me.name == 'conductor-retry'))
                if failing:
                    self.left -= 1
                    self.failed.append(method)
            if failing:
                raise messaging.MessagingTimeout('no reply from the conductor (test outage)')
            return real(context, host, method, args, kwargs)

        monkeypatch.setattr(cdb, '_send', send)


def _update(values):
    return lambda method, args: method == 'instance_update' and all(
        args[1].get(k) == v for k, v in values.items())


def settled(aio, sid, timeout=30):
    """The server once its task state is cleared (fails when it stays set)."""
    deadline = time.monotonic() + timeout
    while True:
        server = aio.request('GET', '/servers/' + sid, version=V, token=ADMIN)[2]['server']
        if server['OS-EXT-STS:task_state'] is None:
            return server
        assert time.monotonic() < deadline, 'stuck in %s/%s' % (
            server['status'], server['OS-EXT-STS:task_state'])
        time.sleep(0.2)


def shelve_images(aio):
    status, _h, body = aio.request('GET', '/v2/images?name=shelf-shelved',
                                   url=aio.image_url, token=ADMIN)
    assert status == 200, body
    return body['images']


@pytest.mark.parametrize('starts, calls', [
    # Before anything changed: the event is not even started.
    (lambda method, args: method == 'event_start', 3),
    # Guest still running; the first task state is not recorded.
    (_update({'task_state': 'shelving_image_pending_upload'}), 3),
    # Guest powered off, nothing uploaded yet.
    (_update({'task_state': 'shelving_image_uploading'}), 5),
], ids=['event_start', 'pending_upload', 'uploading'])
def test_outage_before_the_upload_rolls_back_with_a_fault(aio, server, monkeypatch,
                                                          starts, calls):
    outage = Outage(starts, calls)
    outage.install(monkeypatch, aio.aio.services[1].manager.conductor_db)
    status, _h, body = aio.request('POST', '/servers/%s/action' % server, {'shelve': None},
                                   version=V)
    assert status == 202, body
    shown = settled(aio, server)
    assert outage.left == 0, outage.failed   # the rollback's own writes failed too
    assert shown['status'] == 'ACTIVE', shown
    assert shown['OS-EXT-STS:power_state'] == 1   # running again
    fault = aio.db.faults_latest([server])[server]
    assert fault['code'] == 500 and 'conductor' in fault['message'], fault
    deadline = time.monotonic() + 10
    while shelve_images(aio) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert shelve_images(aio) == []   # the unfinished snapshot is gone
    # Usable: a shelve with the conductor back works.
    monkeypatch.undo()
    assert aio.request('POST', '/servers/%s/action' % server, {'shelve': None},
                       version=V)[0] == 202
    assert aio.wait_for_status(server, ['SHELVED'])['OS-EXT-STS:task_state'] is None


def test_outage_after_the_upload_still_shelves(aio, server, monkeypatch):
    outage = Outage(_update({'vm_state': 'shelved'}), 3)
    outage.install(monkeypatch, aio.aio.services[1].manager.conductor_db)
    assert aio.request('POST', '/servers/%s/action' % server, {'shelve': None},
                       version=V)[0] == 202
    shown = settled(aio, server)
    assert outage.left == 0, outage.failed
    assert shown['status'] == 'SHELVED', shown
    [image] = shelve_images(aio)
    assert image['status'] == 'active'
    assert aio.db.instance_get(server)['system_metadata']['shelved_image_id'] == image['id']
    assert aio.db.faults_latest([server]) == {}
    monkeypatch.undo()
    assert aio.request('POST', '/servers/%s/action' % server, {'unshelve': None},
                       version=V)[0] == 202
    aio.wait_for_status(server, ['ACTIVE'])


def test_restart_in_the_middle_of_a_shelve_rolls_it_back(aio, server):
    # What a compute restart finds after dying between power off and upload.
    from nova import context as nova_context
    from nova.objects import instance as instance_obj
    mgr = aio.aio.services[1].manager
    # The task first: the power-off event must not find a server to stop.
    row = aio.db.instance_update(server, {'task_state': 'shelving_image_uploading'})
    mgr.driver.power_off(instance_obj.Instance.from_db(row))
    assert mgr.core.power_state(instance_obj.Instance.from_db(row)) == 4   # shut down
    status, _h, image = aio.request('POST', '/v2/images', {
        'name': 'shelf-shelved', 'disk_format': 'qcow2', 'container_format': 'bare',
        'image_type': 'snapshot', 'instance_uuid': server}, url=aio.image_url)
    assert status == 201 and image['status'] == 'queued', image
    # The restart reconciliation's entry point for interrupted resizes and shelves.
    assert mgr.shelve.reconcile_shelve(nova_context.get_admin_context(), row) is True
    shown = settled(aio, server)
    assert shown['status'] == 'ACTIVE' and shown['OS-EXT-STS:power_state'] == 1, shown
    assert shelve_images(aio) == []
    fault = aio.db.faults_latest([server])[server]
    assert 'the shelve was rolled back; the server is back in active' in fault['message']
