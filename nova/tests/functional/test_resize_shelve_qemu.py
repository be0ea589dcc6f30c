"""Resize and shelve on real libvirtd + QEMU (TCG): the guest really changes and boots again."""

import json
import os
import subprocess
import time

import libvirt
import pytest

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures

pytestmark = fx.requires_libvirtd()
V = '2.100'
ADMIN = 'admin:admin'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('qemu-resize')
    running = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI)
    root = bootimg.write_boot_image(str(tmp / 'root.img'), 'ROOT-DISK-OK\r\n')
    running.root_image = running.upload_image(root, name='root')
    status, _h, body = running.request('POST', '/flavors', {'flavor': {
        'name': 'grown', 'id': 'grown', 'ram': 768, 'vcpus': 2, 'disk': 2}}, token=ADMIN)
    assert status == 200, body
    yield running
    running.stop()


def act(cloud, sid, body, token='demo:demo'):
    return cloud.request('POST', '/servers/%s/action' % sid, body, version=V, token=token)[0]


def wait_console(cloud, sid, text, count=1, timeout=30):
    deadline = time.monotonic() + timeout
    output = ''
    while time.monotonic() < deadline:
        status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                         {'os-getConsoleOutput': {}}, version=V)
        output = body['output'] if status == 200 else ''
        if output.count(text) >= count:
            return output
        time.sleep(0.2)
    raise AssertionError('%r seen fewer than %d times in %r' % (text, count, output))


def boot(cloud, name):
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': name, 'imageRef': cloud.root_image, 'flavorRef': '1', 'networks': 'none'}},
        version=V)
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    return sid


def domain(sid):
    conn = libvirt.open(fx.QEMU_URI)
    try:
        dom = conn.lookupByUUIDString(sid)
        return dom.XMLDesc(0), dom.isActive()
    finally:
        conn.close()


def virtual_size(path):
    out = subprocess.run(['qemu-img', 'info', '-U', '--output=json', path],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)['virtual-size']


def test_resize_grows_disk_memory_and_cpus_then_confirm(cloud):
    sid = boot(cloud, 'grow')
    wait_console(cloud, sid, 'ROOT-DISK-OK')
    disk = os.path.join(cloud.conf.instances_path, sid, 'disk')
    assert virtual_size(disk) == 1024 ** 3
    assert act(cloud, sid, {'resize': {'flavorRef': 'grown'}}) == 202
    cloud.wait_for_status(sid, ['VERIFY_RESIZE'], timeout=60)
    xml, active = domain(sid)
    assert active
    assert "<memory unit='KiB'>786432</memory>" in xml
    assert '>2</vcpu>' in xml
    assert virtual_size(disk) == 2 * 1024 ** 3
    assert os.path.exists(disk + '.resize-backup')
    # The guest booted again, from its own (grown) root disk.
    wait_console(cloud, sid, 'ROOT-DISK-OK', count=2)
    assert act(cloud, sid, {'confirmResize': None}) == 204
    cloud.wait_for_status(sid, ['ACTIVE'])
    assert not os.path.exists(disk + '.resize-backup')
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
    cloud.wait_for_status(sid, ['DELETED'])


def test_shelve_offload_and_unshelve_boot_from_the_snapshot(cloud):
    sid = boot(cloud, 'shelf')
    wait_console(cloud, sid, 'ROOT-DISK-OK')
    assert act(cloud, sid, {'shelve': None}) == 202
    # [DEFAULT] shelved_offload_time is 0: offloaded at once.
    cloud.wait_for_status(sid, ['SHELVED_OFFLOADED'], timeout=60)
    with pytest.raises(libvirt.libvirtError):
        domain(sid)
    assert not os.path.exists(os.path.join(cloud.conf.instances_path, sid, 'disk'))
    status, _h, images = cloud.request('GET', '/v2/images?name=shelf-shelved',
                                       url=cloud.image_url)
    [image] = images['images']
    assert act(cloud, sid, {'unshelve': None}) == 202
    cloud.wait_for_status(sid, ['ACTIVE'], timeout=60)
    xml, active = domain(sid)
    assert active
    wait_console(cloud, sid, 'ROOT-DISK-OK')
    status, _h, _body = cloud.request('GET', '/v2/images/' + image['id'], url=cloud.image_url)
    assert status == 404
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
    cloud.wait_for_status(sid, ['DELETED'])
