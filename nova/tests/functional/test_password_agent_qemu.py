"""changePassword end to end: a real QEMU guest whose guest agent applies the password."""

import time

import pytest

from nova.tests.fixtures import agentguest, kernelguest
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures

pytestmark = fx.requires_libvirtd()
# Under TCG the kernel reaches /init in about 8 s; leave room for a busy host.
TIMEOUT = 120


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    try:
        kernel, busybox = kernelguest.fetch()
        tmp = tmp_path_factory.mktemp('agent')
        initrd = agentguest.write_initrd(str(tmp / 'initrd.gz'), busybox)
    except kernelguest.KernelUnavailable as exc:
        pytest.skip('no test kernel: %s' % exc)
    running = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI)
    kernel_id, ramdisk_id = running.upload_kernel_and_ramdisk(kernel, initrd)
    root = fixtures.tiny_disk(tmp / 'root.img')
    running.agent_image = running.upload_image(
        root, name='agent-guest', kernel_id=kernel_id, ramdisk_id=ramdisk_id,
        os_command_line='console=ttyS0 quiet', hw_qemu_guest_agent='yes')
    running.plain_image = running.upload_image(
        root, name='no-agent-flag', kernel_id=kernel_id, ramdisk_id=ramdisk_id,
        os_command_line='console=ttyS0 quiet')
    yield running
    running.stop()


def _boot(cloud, name, image):
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': name, 'imageRef': image, 'flavorRef': '1', 'networks': 'none'}},
        version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'], timeout=TIMEOUT)
    return sid


def _console(cloud, sid):
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                     {'os-getConsoleOutput': {}})
    assert status == 200, body
    return body['output']


def _change_password(cloud, sid, password):
    return cloud.request('POST', '/servers/%s/action' % sid,
                         {'changePassword': {'adminPass': password}})


def _server(cloud, sid):
    status, _h, body = cloud.request('GET', '/servers/' + sid)
    assert status == 200, body
    return body['server']


def test_the_guest_agent_sets_the_password_even_while_the_guest_boots(cloud):
    sid = _boot(cloud, 'agent', cloud.agent_image)
    # At once after ACTIVE the kernel is still booting: the change waits for
    # the agent to open its channel instead of failing with 501.
    assert agentguest.READY_MARKER not in _console(cloud, sid)
    status, _h, body = _change_password(cloud, sid, 'first-Secret1')
    assert status == 202, body
    assert agentguest.passwords_set(_console(cloud, sid)) == [
        ('root', agentguest.sha256('first-Secret1'))]
    # Once the agent runs, a second change goes straight through.
    status, _h, body = _change_password(cloud, sid, 'second-Secret2')
    assert status == 202, body
    assert agentguest.passwords_set(_console(cloud, sid))[-1] == (
        'root', agentguest.sha256('second-Secret2'))
    server = _server(cloud, sid)
    assert server['status'] == 'ACTIVE'
    assert server['OS-EXT-STS:task_state'] is None
    status, _h, body = cloud.request('GET', '/servers/%s/os-instance-actions' % sid)
    assert status == 200, body
    assert [a['action'] for a in body['instanceActions']].count('changePassword') == 2
    cloud.request('DELETE', '/servers/' + sid)


def test_an_image_without_the_agent_flag_is_409_and_the_server_unchanged(cloud):
    sid = _boot(cloud, 'no-agent', cloud.plain_image)
    status, _h, body = _change_password(cloud, sid, 'third-Secret3')
    assert status == 409, body
    server = _server(cloud, sid)
    assert server['status'] == 'ACTIVE'
    assert server['OS-EXT-STS:task_state'] is None
    # The guest never got a channel, so nothing reached it.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        assert agentguest.passwords_set(_console(cloud, sid)) == []
        time.sleep(1)
    cloud.request('DELETE', '/servers/' + sid)
