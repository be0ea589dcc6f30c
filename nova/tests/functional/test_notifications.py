"""Instance-action notifications sent over a real RabbitMQ and consumed from it."""

import os
import threading
import time
import uuid

import oslo_messaging as messaging
import pytest

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures

RABBIT = os.environ.get('NOVA_TEST_RABBIT_URL', 'rabbit://guest:guest@127.0.0.1:5672/')
V = '2.105'


class Collector:
    """A notification listener endpoint that keeps every message it hears."""

    def __init__(self):
        self.messages = []
        self._cond = threading.Condition()

    def _keep(self, priority, publisher_id, event_type, payload):
        with self._cond:
            self.messages.append(dict(priority=priority, publisher_id=publisher_id,
                                      event_type=event_type, payload=payload))
            self._cond.notify_all()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        self._keep('INFO', publisher_id, event_type, payload)

    def error(self, ctxt, publisher_id, event_type, payload, metadata):
        self._keep('ERROR', publisher_id, event_type, payload)

    def wait_for(self, event_type, uuid_, timeout=30):
        """The first message of ``event_type`` about instance ``uuid_``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for msg in self.messages:
                    if msg['event_type'] == event_type and _uuid(msg) == uuid_:
                        return msg
                left = deadline - time.monotonic()
                assert left > 0, 'no %s for %s; got %s' % (
                    event_type, uuid_, [m['event_type'] for m in self.messages])
                self._cond.wait(left)

    def about(self, uuid_, prefix):
        with self._cond:
            return [m for m in self.messages
                    if _uuid(m) == uuid_ and m['event_type'].startswith(prefix)]


def _uuid(msg):
    payload = msg['payload']
    if 'nova_object.data' in payload:
        return payload['nova_object.data']['uuid']
    return payload.get('instance_id')


def _start(tmp, extra=None, **kwargs):
    """An all-in-one sending both formats to RabbitMQ, and a listener on its topics."""
    # Topics of our own: other runs on the same broker do not interfere.
    suffix = uuid.uuid4().hex[:8]
    legacy, versioned = 'notifications-' + suffix, 'versioned_notifications-' + suffix
    policy = tmp / 'policy.yaml'
    policy.write_text('"os_compute_api:servers:create:image_props_override": '
                      '"rule:project_member_or_admin"\n')
    running = fixtures.RunningAio(tmp, extra={
        ('oslo_policy', 'policy_file'): str(policy),
        ('oslo_messaging_notifications', 'driver'): ['messagingv2'],
        ('oslo_messaging_notifications', 'transport_url'): RABBIT,
        ('oslo_messaging_notifications', 'topics'): [legacy],
        ('notifications', 'notification_format'): 'both',
        ('notifications', 'versioned_notifications_topics'): [versioned], **(extra or {})},
        **kwargs)
    running.collector = Collector()
    transport = messaging.get_notification_transport(running.conf)
    # The listener declares its queues before any server exists, so nothing is missed.
    listener = messaging.get_notification_listener(
        transport, [messaging.Target(topic=legacy), messaging.Target(topic=versioned)],
        [running.collector], executor='threading')
    listener.start()

    def stop():
        listener.stop()
        listener.wait()
        transport.cleanup()
        running.stop()
    return running, stop


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('notifications')
    running, stop = _start(tmp)
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'),
                                            hw_disk_bus='scsi')
    yield running
    stop()


def _act(aio, sid, body):
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid, body, version=V)
    assert status in (200, 202), resp
    return resp


def _create(aio, timeout=60):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'notified', 'imageRef': aio.image_id, 'flavorRef': '1', 'networks': 'none',
        'image_props_override': {'hw_disk_bus': 'virtio'}}}, version=V)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'], timeout=timeout)
    return sid


# (request body, versioned event, status to wait for)
STEPS = [
    ({'os-stop': None}, 'power_off', 'SHUTOFF'),
    ({'os-start': None}, 'power_on', 'ACTIVE'),
    ({'reboot': {'type': 'HARD'}}, 'reboot', 'ACTIVE'),
    ({'pause': None}, 'pause', 'PAUSED'),
    ({'unpause': None}, 'unpause', 'ACTIVE'),
    ({'suspend': None}, 'suspend', 'SUSPENDED'),
    ({'resume': None}, 'resume', 'ACTIVE'),
    ({'rescue': {}}, 'rescue', 'RESCUE'),
    ({'unrescue': None}, 'unrescue', 'ACTIVE'),
    ({'createImage': {'name': 'snap'}}, 'snapshot', 'ACTIVE'),
    ({'rebuild': {'imageRef': 'IMAGE'}}, 'rebuild', 'ACTIVE'),
]


def test_versioned_lifecycle_in_order_with_upstream_payloads(aio):
    sid = _create(aio)
    c = aio.collector
    start = c.wait_for('instance.create.start', sid)
    end = c.wait_for('instance.create.end', sid)
    assert start['publisher_id'] == 'nova-compute:testhost'
    payload = end['payload']
    assert payload['nova_object.name'] == 'InstanceCreatePayload'
    assert payload['nova_object.namespace'] == 'nova'
    assert payload['nova_object.version'] == '1.11'
    data = payload['nova_object.data']
    assert data['state'] == 'active' and data['power_state'] == 'running'
    assert data['task_state'] is None and data['fault'] is None
    assert data['flavor']['nova_object.name'] == 'FlavorPayload'
    assert data['flavor']['nova_object.data']['flavorid'] == '1'
    assert data['image_uuid'] == aio.image_id and data['tenant_id'] == 'demo'
    assert data['instance_name'] and data['launched_at'].endswith('Z')
    assert data['image_props_override'] == {'hw_disk_bus': 'virtio'}
    assert start['payload']['nova_object.data']['state'] == 'building'

    for body, event, status in STEPS:
        if 'rebuild' in body:
            body = {'rebuild': {'imageRef': aio.image_id}}
        resp = _act(aio, sid, body)
        aio.wait_for_status(sid, [status])
        end = c.wait_for('instance.%s.end' % event, sid)
        data = end['payload']['nova_object.data']
        assert data['task_state'] is None, event
        if event == 'rescue':
            assert end['payload']['nova_object.name'] == 'InstanceActionRescuePayload'
            assert data['rescue_image_ref'] == aio.image_id
            assert data['state'] == 'rescued'
        elif event == 'snapshot':
            assert end['payload']['nova_object.name'] == 'InstanceActionSnapshotPayload'
            assert data['snapshot_image_id'] == resp['image_id']
        elif event == 'rebuild':
            assert end['payload']['nova_object.name'] == 'InstanceActionRebuildPayload'
        else:
            assert end['payload']['nova_object.name'] == 'InstanceActionPayload'
            assert end['payload']['nova_object.version'] == '1.7'
    assert c.wait_for('instance.power_off.end', sid)['payload'][
        'nova_object.data']['power_state'] == 'shutdown'

    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    end = c.wait_for('instance.delete.end', sid)
    data = end['payload']['nova_object.data']
    assert data['state'] == 'deleted' and data['deleted_at'] and data['terminated_at']

    events = [m['event_type'] for m in c.about(sid, 'instance.')]
    expected = ['instance.create.start', 'instance.create.end']
    for _body, event, _status in STEPS:
        expected += ['instance.%s.start' % event, 'instance.%s.end' % event]
    expected += ['instance.delete.start', 'instance.delete.end']
    assert events == expected


def test_legacy_notifications_beside_the_versioned_ones(aio):
    sid = _create(aio)
    c = aio.collector
    start = c.wait_for('compute.instance.create.start', sid)
    end = c.wait_for('compute.instance.create.end', sid)
    assert start['publisher_id'] == 'compute.testhost'
    assert end['payload']['state'] == 'active'
    assert end['payload']['instance_type'] == 'm1.tiny'
    assert end['payload']['image_props_override'] == {'hw_disk_bus': 'virtio'}
    assert aio.request('DELETE', '/servers/' + sid)[0] == 204
    c.wait_for('compute.instance.delete.end', sid)


def test_failed_action_ends_in_error_with_the_exception(aio):
    sid = _create(aio)
    os.unlink(os.path.join(aio.conf.instances_path, sid, 'disk'))
    _act(aio, sid, {'createImage': {'name': 'will-fail'}})
    error = aio.collector.wait_for('instance.snapshot.error', sid)
    assert error['priority'] == 'ERROR'
    fault = error['payload']['nova_object.data']['fault']
    assert fault['nova_object.name'] == 'ExceptionPayload'
    assert fault['nova_object.version'] == '1.1'
    assert fault['nova_object.data']['exception']
    assert fault['nova_object.data']['exception_message']
    assert 'Traceback' in fault['nova_object.data']['traceback']
    assert [m['event_type'] for m in aio.collector.about(sid, 'instance.snapshot')] == [
        'instance.snapshot.start', 'instance.snapshot.error']
    aio.request('DELETE', '/servers/' + sid)


def _volume(aio, statuses=('available',), vid=None):
    if vid is None:
        status, _h, body = aio.request('POST', '/v3/demo/volumes', {'volume': {'size': 1}},
                                       url=aio.aio.urls['volume'],
                                       headers={'OpenStack-API-Version': 'volume 3.44'})
        assert status == 202, body
        vid = body['volume']['id']
    deadline = time.monotonic() + 30
    while aio.request('GET', '/v3/demo/volumes/' + vid, url=aio.aio.urls['volume'])[2][
            'volume']['status'] not in statuses:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return vid


def test_volume_attach_error_on_a_hypervisor_without_hotplug(aio):
    """libvirt's test driver cannot hot-plug: the attach ends in .error, with the volume."""
    sid = _create(aio)
    vid = _volume(aio)
    status, _h, body = aio.request('POST', '/servers/%s/os-volume_attachments' % sid,
                                   {'volumeAttachment': {'volumeId': vid}}, version=V)
    assert status in (200, 202), body
    start = aio.collector.wait_for('instance.volume_attach.start', sid)
    assert start['payload']['nova_object.name'] == 'InstanceActionVolumePayload'
    assert start['payload']['nova_object.data']['volume_id'] == vid
    error = aio.collector.wait_for('instance.volume_attach.error', sid)
    assert error['payload']['nova_object.data']['fault'] is not None
    assert error['payload']['nova_object.data']['volume_id'] == vid
    aio.request('DELETE', '/servers/' + sid)


@pytest.mark.libvirtd
@pytest.mark.skipif(not fx.libvirtd_reachable(fx.QEMU_URI), reason='no libvirtd on qemu:///system')
def test_volume_attach_and_detach_on_qemu(tmp_path):
    """Real QEMU: attach ends in .end; a detach the guest ignores ends in .error, and
    the detach of the stopped server in .end."""
    # The boot image's guest never releases a hot-unplugged disk.
    running, stop = _start(tmp_path, connection_uri=fx.QEMU_URI,
                           extra={('libvirt', 'device_detach_timeout'): 2})
    try:
        running.image_id = running.upload_image(
            bootimg.write_boot_image(str(tmp_path / 'root.img'), 'ROOT-OK\r\n'))
        sid = _create(running, timeout=120)
        vid = _volume(running)
        status, _h, body = running.request(
            'POST', '/servers/%s/os-volume_attachments' % sid,
            {'volumeAttachment': {'volumeId': vid}}, version=V)
        assert status in (200, 202), body
        end = running.collector.wait_for('instance.volume_attach.end', sid, timeout=60)
        assert end['payload']['nova_object.data']['volume_id'] == vid
        _volume(running, ('in-use',), vid)
        detach = ('DELETE', '/servers/%s/os-volume_attachments/%s' % (sid, vid))
        status, _h, body = running.request(*detach, version=V)
        assert status == 202, body
        error = running.collector.wait_for('instance.volume_detach.error', sid, timeout=60)
        fault = error['payload']['nova_object.data']['fault']['nova_object.data']
        assert fault['exception'] == 'HypervisorError'
        _volume(running, ('in-use',), vid)
        _act(running, sid, {'os-stop': None})
        running.wait_for_status(sid, ['SHUTOFF'], timeout=60)
        status, _h, body = running.request(*detach, version=V)
        assert status == 202, body
        end = running.collector.wait_for('instance.volume_detach.end', sid, timeout=60)
        assert end['payload']['nova_object.name'] == 'InstanceActionVolumePayload'
        assert end['payload']['nova_object.data']['volume_id'] == vid
        assert [m['event_type'] for m in running.collector.about(sid, 'instance.volume')] == [
            'instance.volume_attach.start', 'instance.volume_attach.end',
            'instance.volume_detach.start', 'instance.volume_detach.error',
            'instance.volume_detach.start', 'instance.volume_detach.end']
        running.request('DELETE', '/servers/' + sid)
        running.collector.wait_for('instance.delete.end', sid, timeout=60)
    finally:
        stop()


def test_failed_build_ends_in_create_error(aio, tmp_path):
    """An image that is not what it claims to be fails on the host: create.error."""
    bogus = tmp_path / 'bogus.qcow2'
    bogus.write_bytes(b'not a qcow2 image' * 4096)
    image = aio.upload_image(str(bogus), name='bogus', disk_format='qcow2')
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'doomed', 'imageRef': image, 'flavorRef': '1', 'networks': 'none'}},
        version=V)
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ERROR'])
    error = aio.collector.wait_for('instance.create.error', sid)
    assert error['priority'] == 'ERROR'
    data = error['payload']['nova_object.data']
    assert error['payload']['nova_object.name'] == 'InstanceCreatePayload'
    assert data['state'] == 'error' and data['fault']['nova_object.data']['exception']
    assert [m['event_type'] for m in aio.collector.about(sid, 'instance.create')] == [
        'instance.create.start', 'instance.create.error']
    aio.request('DELETE', '/servers/' + sid)
