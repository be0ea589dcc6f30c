"""End to end on real libvirtd + QEMU (TCG): boot, console, rescue, delete through the API."""

import os
import time

import libvirt
import pytest

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures

pytestmark = fx.requires_libvirtd()
V = '2.106'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('qemu')
    running = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI)
    root = bootimg.write_boot_image(str(tmp / 'root.img'), 'ROOT-DISK-OK\r\n')
    rescue = bootimg.write_boot_image(str(tmp / 'rescue.img'), 'RESCUE-MEDIA-OK\r\n')
    running.root_image = running.upload_image(root, name='root')
    running.rescue_image = running.upload_image(rescue, name='rescue-usb',
                                                hw_rescue_bus='usb', hw_rescue_device='disk')
    running.legacy_rescue_image = running.upload_image(rescue, name='rescue-legacy')
    yield running
    running.stop()


def console(cloud, sid):
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                     {'os-getConsoleOutput': {}}, version=V)
    assert status == 200, body
    return body['output']


def wait_console(cloud, sid, text, count=1, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        output = console(cloud, sid)
        if output.count(text) >= count:
            return output
        time.sleep(0.2)
    raise AssertionError('%r seen fewer than %d times in %r' % (text, count, output))


def boot(cloud, name, **extra):
    server = dict({'name': name, 'imageRef': cloud.root_image, 'flavorRef': '1',
                   'networks': 'none'}, **extra)
    status, _h, body = cloud.request('POST', '/servers', {'server': server}, version=V)
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    return sid


def test_boot_console_and_delete_a_real_guest(cloud):
    sid = boot(cloud, 'e2e')
    wait_console(cloud, sid, 'ROOT-DISK-OK')
    instance_dir = os.path.join(cloud.conf.instances_path, sid)
    assert os.path.isdir(instance_dir)
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
    cloud.wait_for_status(sid, ['DELETED'])
    conn = libvirt.open(fx.QEMU_URI)
    try:
        with pytest.raises(libvirt.libvirtError):
            conn.lookupByUUIDString(sid)
    finally:
        conn.close()
    assert not os.path.exists(instance_dir)
