"""Each boot-time override lands in the real domain XML (QEMU TCG), and only with it."""

import libvirt
import pytest
from lxml import etree

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures

pytestmark = fx.requires_libvirtd()
V = '2.105'
OVERRIDES = {
    'hw_machine_type': 'q35', 'hw_disk_bus': 'scsi', 'hw_scsi_model': 'virtio-scsi',
    'hw_cdrom_bus': 'sata', 'hw_firmware_type': 'uefi', 'hw_video_model': 'vga',
    'hw_boot_menu': 'true', 'hw_cpu_policy': 'dedicated', 'hw_cpu_thread_policy': 'prefer',
}


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('xml')
    c = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI)
    c.image = c.upload_image(bootimg.write_boot_image(str(tmp / 'root.img'), 'X\r\n'))
    yield c
    c.stop()


def boot(cloud, overrides=None):
    server = {'name': 'x', 'imageRef': cloud.image, 'flavorRef': '1', 'networks': 'none',
              'config_drive': True}
    if overrides:
        server['image_props_override'] = overrides
    status, _h, body = cloud.request('POST', '/servers', {'server': server}, version=V)
    assert status == 202, body
    return body['server']['id']


def xml(sid):
    conn = libvirt.open(fx.QEMU_URI)
    try:
        return etree.fromstring(conn.lookupByUUIDString(sid).XMLDesc(0).encode())
    finally:
        conn.close()


def facts(root):
    disks = {d.find('target').get('dev'): (d.find('target').get('bus'), d.get('device'))
             for d in root.iterfind('devices/disk')}
    video = root.find('devices/video/model')
    return {
        'machine': root.find('os/type').get('machine'),
        'loader': root.find('os/loader') is not None,
        'bootmenu': (root.find('os/bootmenu').get('enable')
                     if root.find('os/bootmenu') is not None else None),
        'video': video.get('type') if video is not None else None,
        'pinned': [p.get('cpuset') for p in root.iterfind('cputune/vcpupin')],
        'disks': disks,
        'scsi_model': [c.get('model') for c in root.iterfind("devices/controller[@type='scsi']")],
    }


def test_each_override_shows_in_the_domain_and_only_with_it(cloud):
    plain, custom = boot(cloud), boot(cloud, OVERRIDES)
    for sid in (plain, custom):
        cloud.wait_for_status(sid, ['ACTIVE'])
    base, over = facts(xml(plain)), facts(xml(custom))
    assert 'q35' in over['machine'] and 'q35' not in base['machine']
    assert over['loader'] and not base['loader']
    assert over['bootmenu'] == 'yes' and base['bootmenu'] in (None, 'no')
    assert over['video'] == 'vga' and base['video'] != 'vga'
    assert len(over['pinned']) == 1 and base['pinned'] == []
    assert over['disks']['sda'] == ('scsi', 'disk') and 'virtio-scsi' in over['scsi_model']
    assert base['disks']['vda'] == ('virtio', 'disk')
    assert ('sata', 'cdrom') in over['disks'].values()
    assert ('ide', 'cdrom') in base['disks'].values()
    for sid in (plain, custom):
        cloud.request('DELETE', '/servers/' + sid)


def test_huge_pages_the_host_lacks_fail_scheduling_cleanly(cloud):
    cloud.db.flavor_create(dict(flavorid='huge', name='huge', vcpus=1, memory_mb=128,
                                root_gb=1, extra_specs={'hw:mem_page_size': 'any'}))
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'x', 'imageRef': cloud.image, 'flavorRef': 'huge', 'networks': 'none',
        'image_props_override': {'hw_mem_page_size': 'large'}}}, version=V)
    assert status == 202, body
    sid = body['server']['id']
    with open('/proc/meminfo') as meminfo:
        free = [int(line.split()[1]) for line in meminfo if line.startswith('HugePages_Free')]
    if free and free[0] > 0:
        pytest.skip('this host has free huge pages')
    server = cloud.wait_for_status(sid, ['ERROR'])
    assert 'No valid host' in server['fault']['message']
    cloud.request('DELETE', '/servers/' + sid)


def test_flavor_rules_gate_overrides_before_create(cloud):
    # Counted by this test's own name: an earlier test's server may still be
    # on its way out of the module's cloud.
    name = 'flavor-gates-overrides'
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': name, 'imageRef': cloud.image, 'flavorRef': '1', 'networks': 'none',
        'image_props_override': {'hw_numa_nodes': '2'}}}, version=V)
    assert status == 400 and 'NUMA nodes' in body['badRequest']['message']
    # The image (or override) may ask for huge pages only if the flavor allows them.
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': name, 'imageRef': cloud.image, 'flavorRef': '1', 'networks': 'none',
        'image_props_override': {'hw_mem_page_size': 'large'}}}, version=V)
    assert status == 400 and 'hw_mem_page_size' in body['badRequest']['message']
    assert cloud.db.instance_count(display_name=name) == 0


def test_impossible_hardware_overrides_are_400s_naming_the_property(cloud):
    name = 'hardware-400s'
    for overrides, word in (({'hw_cpu_cores': '-1'}, 'hw_cpu_cores'),
                            ({'hw_serial_port_count': '-5'}, 'hw_serial_port_count'),
                            ({'hw_cpu_realtime_mask': 'garbage'}, 'hw_cpu_realtime_mask'),
                            ({'hw_tpm_secret_security': 'user'}, 'hw_tpm_secret_security'),
                            ({'hw_machine_type': 'pc-q35-99.9'}, 'pc-q35-99.9'),
                            ({'hw_emulation_architecture': 'aarch64'}, 'aarch64')):
        status, _h, body = cloud.request('POST', '/servers', {'server': {
            'name': name, 'imageRef': cloud.image, 'flavorRef': '1', 'networks': 'none',
            'image_props_override': overrides}}, version=V)
        assert status == 400 and word in body['badRequest']['message'], (overrides, body)
    assert cloud.db.instance_count(display_name=name) == 0


def test_hardware_overrides_in_the_domain(cloud):
    sid = boot(cloud, {'hw_rng_model': 'virtio', 'hw_watchdog_action': 'poweroff',
                       'hw_firmware_type': 'uefi', 'hw_machine_type': 'q35',
                       'os_secure_boot': 'disabled'})
    cloud.wait_for_status(sid, ['ACTIVE'])
    root = xml(sid)
    assert root.find('devices/rng').get('model') == 'virtio'
    assert root.find('devices/watchdog').get('action') == 'poweroff'
    assert root.find('os/loader').get('secure') == 'no'
    cloud.request('DELETE', '/servers/' + sid)
