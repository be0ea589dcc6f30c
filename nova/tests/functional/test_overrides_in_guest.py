"""Boot-time overrides proven inside real kernel+initrd QEMU guests, through the API."""

import time

import pytest

from nova.tests.fixtures import kernelguest
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures

pytestmark = fx.requires_libvirtd()
V = '2.105'
CMDLINE_A = 'console=ttyS0 quiet nova.override=alpha'
CMDLINE_B = 'console=ttyS0 quiet panic=-1 nova.override=beta'
# Under TCG a kernel reaches /init in ~8 s; leave room for a busy host.
TIMEOUT = 120


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    try:
        kernel, busybox = kernelguest.fetch()
    except kernelguest.KernelUnavailable as exc:
        pytest.skip('no test kernel: %s' % exc)
    tmp = tmp_path_factory.mktemp('kernel')
    initrd = str(tmp / 'initrd.gz')
    kernelguest.write_initrd(initrd, busybox)
    running = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI)
    kernel_id, ramdisk_id = running.upload_kernel_and_ramdisk(kernel, initrd)
    root = fixtures.tiny_disk(tmp / 'root.img')
    # The image's own command line is replaced by each server's override.
    running.image_id = running.upload_image(root, name='kernel-guest', kernel_id=kernel_id,
                                            ramdisk_id=ramdisk_id,
                                            os_command_line='console=ttyS0 image=default')
    status, _h, body = running.request('POST', '/flavors', {'flavor': {
        'name': 'numa2', 'ram': 256, 'vcpus': 2, 'disk': 1, 'id': 'numa2'}},
        token='admin:admin')
    assert status == 200, body
    yield running
    running.stop()


def _boot(cloud, name, overrides, flavor='1'):
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': name, 'imageRef': cloud.image_id, 'flavorRef': flavor, 'networks': 'none',
        'image_props_override': overrides}}, version=V)
    assert status == 202, body
    return body['server']['id']


def _report(cloud, sid):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                         {'os-getConsoleOutput': {}}, version=V)
        if status == 200 and kernelguest.DONE_MARKER in body['output']:
            return kernelguest.parse_report(body['output'])
        time.sleep(0.5)
    raise AssertionError('guest %s did not report: %r' % (sid, body))


def test_command_line_and_numa_overrides_reach_the_guest(cloud):
    # All three boot at once: each kernel takes seconds under TCG.
    alpha = _boot(cloud, 'alpha', {'os_command_line': CMDLINE_A})
    beta = _boot(cloud, 'beta', {'hw_os_command_line': CMDLINE_B})
    numa = _boot(cloud, 'numa', {'hw_numa_nodes': '2'}, flavor='numa2')
    reports = {sid: _report(cloud, sid) for sid in (alpha, beta, numa)}
    assert reports[alpha]['CMDLINE'] == CMDLINE_A
    assert reports[beta]['CMDLINE'] == CMDLINE_B
    assert reports[numa]['NODES'] == ['node0', 'node1']
    # Without the override the image's command line and one node apply.
    assert reports[alpha]['NODES'] == ['node0']
    for sid in (alpha, beta, numa):
        cloud.request('DELETE', '/servers/' + sid)
