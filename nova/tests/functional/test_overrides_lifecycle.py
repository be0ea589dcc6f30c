"""Hardware asked for at boot (2.105) stays in the domain through every lifecycle path."""

import libvirt
import pytest
from lxml import etree

from nova.tests.functional import fixtures

ADMIN = 'admin:admin'
V = '2.105'
OVERRIDES = {
    'hw_cpu_sockets': '1', 'hw_cpu_cores': '2', 'hw_cpu_threads': '1',
    'hw_rng_model': 'virtio', 'hw_watchdog_action': 'poweroff',
    'hw_pointer_model': 'usbtablet', 'hw_serial_port_count': '2', 'hw_pmu': 'false',
    'img_hide_hypervisor_id': 'true', 'hw_video_model': 'vga',
}


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('overrides-lifecycle')
    running = fixtures.RunningAio(tmp, extra={('aio', 'extra_compute_hosts'): ['testhost2']})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    for fid, vcpus in (('ol2', 2), ('ol4', 4)):
        status, _h, body = running.request('POST', '/flavors', {'flavor': {
            'name': fid, 'id': fid, 'ram': 64, 'vcpus': vcpus, 'disk': 1}}, token=ADMIN)
        assert status == 200, body
    running.conn = libvirt.open('test:///default')
    yield running
    running.conn.close()
    running.stop()


def facts(cloud, sid):
    """What the guest was asked to have, as its running domain shows it."""
    root = etree.fromstring(cloud.conn.lookupByUUIDString(sid).XMLDesc(0).encode())
    topology = root.find('cpu/topology')
    return {
        'topology': (topology.get('sockets'), topology.get('cores'), topology.get('threads'))
        if topology is not None else None,
        'rng': [r.get('model') for r in root.iterfind('devices/rng')],
        'watchdog': [w.get('action') for w in root.iterfind('devices/watchdog')],
        'tablet': [(i.get('type'), i.get('bus')) for i in root.iterfind('devices/input')
                   if i.get('type') == 'tablet'],
        'serials': len(root.findall('devices/serial')),
        'pmu': [p.get('state') for p in root.iterfind('features/pmu')],
        'kvm_hidden': [h.get('state') for h in root.iterfind('features/kvm/hidden')],
        'video': [v.get('type') for v in root.iterfind('devices/video/model')],
    }


EXPECTED = {
    'topology': ('1', '2', '1'), 'rng': ['virtio'], 'watchdog': ['poweroff'],
    'tablet': [('tablet', 'usb')], 'serials': 2, 'pmu': ['off'], 'kvm_hidden': ['on'],
    'video': ['vga'],
}


def act(cloud, sid, body, expect=202):
    status, _h, resp = cloud.request('POST', '/servers/%s/action' % sid, body,
                                     version='2.56', token=ADMIN)
    assert status == expect, resp
    return resp


def host_of(cloud, sid):
    status, _h, body = cloud.request('GET', '/servers/' + sid, version='2.56', token=ADMIN)
    assert status == 200, body
    return body['server']['OS-EXT-SRV-ATTR:host']


def test_overrides_survive_rescue_reboot_resize_migrate_and_shelve(cloud):
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'ol', 'imageRef': cloud.image_id, 'flavorRef': 'ol2', 'networks': 'none',
        'availability_zone': 'nova:testhost', 'image_props_override': OVERRIDES}},
        version=V, token=ADMIN)
    assert status == 202, body
    sid = body['server']['id']
    try:
        cloud.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        assert facts(cloud, sid) == EXPECTED

        act(cloud, sid, {'rescue': None}, expect=200)
        cloud.wait_for_status(sid, ['RESCUE'], token=ADMIN)
        assert facts(cloud, sid) == EXPECTED, 'rescue'
        act(cloud, sid, {'unrescue': None})
        cloud.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        assert facts(cloud, sid) == EXPECTED, 'unrescue'

        act(cloud, sid, {'reboot': {'type': 'HARD'}})
        cloud.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        assert facts(cloud, sid) == EXPECTED, 'hard reboot'

        # A bigger flavor: the image's topology asks for 2 cores, so 4 vCPUs
        # become 2 sockets of 2 cores, as upstream fits a preferred topology.
        act(cloud, sid, {'resize': {'flavorRef': 'ol4'}})
        cloud.wait_for_status(sid, ['VERIFY_RESIZE'], token=ADMIN)
        act(cloud, sid, {'confirmResize': None}, expect=204)
        cloud.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        after_resize = facts(cloud, sid)
        assert after_resize['topology'][1] == '2', after_resize
        assert dict(after_resize, topology=None) == dict(EXPECTED, topology=None), 'resize'
        expected = after_resize

        source = host_of(cloud, sid)
        act(cloud, sid, {'migrate': None})
        cloud.wait_for_status(sid, ['VERIFY_RESIZE'], token=ADMIN)
        act(cloud, sid, {'confirmResize': None}, expect=204)
        cloud.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        assert host_of(cloud, sid) != source
        assert facts(cloud, sid) == expected, 'cold migration'

        act(cloud, sid, {'shelve': None})
        cloud.wait_for_status(sid, ['SHELVED_OFFLOADED'], token=ADMIN)
        act(cloud, sid, {'unshelve': None})
        cloud.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        assert facts(cloud, sid) == expected, 'unshelve'
    finally:
        cloud.request('DELETE', '/servers/' + sid, token=ADMIN)
        cloud.wait_for_status(sid, ['DELETED'], token=ADMIN)
