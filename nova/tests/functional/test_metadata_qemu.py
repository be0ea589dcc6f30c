"""A real QEMU guest reads its config drive: the same documents the metadata API answers."""

import base64
import json
import time

import pytest

from nova.api.metadata import requester
from nova.tests.fixtures import driveguest, kernelguest
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures
from nova.tests.functional import test_metadata_api as md
from nova.tests.unit.metadata import test_network_data as nd

pytestmark = fx.requires_libvirtd()
# Under TCG a kernel reaches /init in ~8 s; leave room for a busy host.
TIMEOUT = 120


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    try:
        kernel, busybox = kernelguest.fetch()
        tmp = tmp_path_factory.mktemp('driveguest')
        initrd = driveguest.write_initrd(str(tmp / 'initrd.gz'), busybox)
    except kernelguest.KernelUnavailable as exc:
        pytest.skip('no test kernel: %s' % exc)
    c = fixtures.RunningAio(tmp / 'state', connection_uri=fx.QEMU_URI, extra={
        ('neutron', 'service_metadata_proxy'): True,
        ('neutron', 'metadata_proxy_shared_secret'): md.SECRET})
    kernel_id, ramdisk_id = c.upload_kernel_and_ramdisk(kernel, initrd)
    c.image = c.upload_image(fixtures.tiny_disk(tmp / 'root.img'), name='drive-guest',
                             kernel_id=kernel_id, ramdisk_id=ramdisk_id,
                             os_command_line='console=ttyS0 quiet')
    yield c
    c.stop()


def _console_files(cloud, sid, ready=lambda files: True):
    """The drive's files the guest printed, once ``ready(files)`` holds."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                         {'os-getConsoleOutput': {}})
        if status == 200 and driveguest.DONE_MARKER in body['output']:
            files = driveguest.drive_files(body['output'])
            if ready(files):
                return files
        time.sleep(0.5)
    raise AssertionError('guest %s did not report its drive: %r' % (sid, body))


def _without_nics(cloud, monkeypatch):
    """The ports of nd.NETWORK_INFO exist in no network service or bridge: the
    guest gets no NIC for them (the drive and the API still describe them)."""
    from nova.virt.libvirt import vif as libvirt_vif
    monkeypatch.setattr(libvirt_vif.LibvirtVifs, 'plug', lambda self, instance, info: None)
    monkeypatch.setattr(libvirt_vif.LibvirtVifs, 'unplug', lambda self, instance, info: None)
    monkeypatch.setattr(libvirt_vif.LibvirtVifs, 'interfaces',
                        lambda self, instance, props, info=None: [])
    monkeypatch.setattr(libvirt_vif.LibvirtVifs, 'plug_wait',
                        lambda self, info, power_on=True: libvirt_vif.vif_events.PlugWait(
                            events=(), timeout=0, fatal=False))


def test_guest_reads_what_the_api_answers(cloud, monkeypatch):
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'reader', 'imageRef': cloud.image, 'flavorRef': '1', 'networks': 'none',
        'config_drive': True, 'user_data': base64.b64encode(md.USER_DATA).decode()}},
        version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    assert _console_files(cloud, sid)['openstack/latest/user_data'] == md.USER_DATA
    # The ports, as the compute host records them; a rebuild writes the drive again.
    cloud.db.instance_update(sid, {'network_info': nd.NETWORK_INFO})
    _without_nics(cloud, monkeypatch)
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                     {'rebuild': {'imageRef': cloud.image}})
    assert status == 202, body
    cloud.wait_for_status(sid, ['ACTIVE'])
    # The rebuilt guest boots with a new console log.
    seen = _console_files(cloud, sid, lambda files: json.loads(
        files.get('openstack/latest/network_data.json', b'{}')).get('links'))
    assert set(seen) == set(driveguest.FILES)
    inst = cloud.db.instance_get(sid)
    headers = {'X-Instance-ID': sid, 'X-Tenant-ID': inst['project_id'],
               'X-Forwarded-For': '10.77.0.41',
               'X-Instance-ID-Signature': requester.sign(md.SECRET, sid)}
    url = cloud.aio.urls['metadata']
    for path in driveguest.FILES[1:5]:
        assert seen[path] == md.call(url, '/' + path, headers)[2], path
    assert json.loads(seen['openstack/latest/network_data.json']) == nd.NETWORK_DATA
    api = json.loads(md.call(url, '/openstack/latest/meta_data.json', headers)[2])
    guest = json.loads(seen['openstack/latest/meta_data.json'])
    for doc in (api, guest):
        doc.pop('random_seed')
    assert guest.pop('admin_pass')
    assert guest == api
    ec2 = json.loads(seen['ec2/latest/meta-data.json'])
    assert ec2['instance-id'] == md.call(url, '/latest/meta-data/instance-id',
                                         headers)[2].decode()
    assert ec2['local-ipv4'] == '10.77.0.41'
    cloud.request('DELETE', '/servers/' + sid)
