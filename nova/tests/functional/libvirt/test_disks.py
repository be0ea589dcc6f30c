"""Real QEMU (TCG): every disk kind at stable addresses, config drive, hot-plug, reboot."""

import json
import os
import subprocess

import pytest

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.virt import configdrive
from nova.virt.libvirt import driver as libvirt_driver

pytestmark = fx.requires_libvirtd()

MESSAGE = 'ROOT-OK'


@pytest.fixture
def drv(tmp_path):
    image = bootimg.write_boot_image(str(tmp_path / 'root.raw'),
                                     MESSAGE + '\r\n')
    conf = fx.make_conf(tmp_path / 'state', uri=fx.QEMU_URI,
                        virt_type='qemu', device_detach_timeout=5)
    drv = libvirt_driver.LibvirtDriver(conf,
                                       fx.file_fetcher({'image-1': image}),
                                       shutdown_poll_interval=0.05)
    drv.init_host('testhost')
    yield drv
    drv.cleanup_host('testhost')


def qemu_argv(tmp_path, xml):
    path = tmp_path / 'domain.xml'
    path.write_text(xml)
    return subprocess.run(['virsh', '-c', fx.QEMU_URI, 'domxml-to-native',
                           'qemu-argv', str(path)], capture_output=True,
                          text=True, check=True).stdout


def test_boot_with_every_disk_kind(drv, tmp_path):
    inst = fx.make_instance(config_drive='True', hostname='web-1',
                            flavor=fx.make_flavor(ephemeral_gb=1, swap=16),
                            user_data='aGk=')
    vols = [fx.make_volume(tmp_path / 'a.qcow2'),
            fx.make_volume(tmp_path / 'b.raw', 'raw')]
    bdi = fx.block_device_info([
        fx.volume_bdm('vol-a', vols[0]),
        fx.volume_bdm('vol-b', vols[1], 'raw', mount_device='/dev/sdb')])
    drv.spawn(None, inst, fx.make_image_meta(), [], None, {},
              block_device_info=bdi)
    try:
        fx.wait_for_console(drv, inst, MESSAGE)
        guest = drv.host.get_guest(inst.uuid)
        live = guest.get_xml_desc()
        # libvirt lists disks grouped by bus; the targets are ours.
        assert sorted(fx.disk_targets(live)) == sorted([
            ('vda', 'virtio', 'disk', '1'), ('vdb', 'virtio', 'disk', None),
            ('vdc', 'virtio', 'disk', None), ('vdd', 'virtio', 'disk', None),
            ('sdb', 'scsi', 'disk', None), ('hdd', 'ide', 'cdrom', None)])
        assert "<serial>vol-b</serial>" in live
        assert "model='virtio-scsi'" in live
        # One SCSI controller: the unit address kept libvirt from adding more.
        assert live.count("<controller type='scsi'") == 1

        argv = qemu_argv(tmp_path, guest.get_xml_desc(inactive=True))
        assert argv.count('"driver":"virtio-blk-pci"') == 4
        assert '"driver":"scsi-hd"' in argv and '"scsi-id":0' in argv
        assert '"lun":1' in argv
        assert '"driver":"ide-cd"' in argv
        assert '"driver":"virtio-scsi-pci"' in argv
        assert '"bootindex":1' in argv and argv.count('bootindex') == 1

        iso = os.path.join(drv.core.instance_dir(inst), 'disk.config')
        assert configdrive.read_iso_label(iso) == 'config-2'
        files = fx.read_iso_files(iso)
        meta = json.loads(files['openstack/latest/meta_data.json'])
        # The hostname carries [api] dhcp_domain, as the metadata API tells it.
        assert (meta['uuid'], meta['hostname']) == (inst.uuid, 'web-1.novalocal')
        assert files['openstack/2018-08-27/user_data'] == b'hi'
    finally:
        drv.destroy(None, inst, block_device_info=bdi)


def test_hotplug_persists_across_hard_reboot(drv, tmp_path):
    inst = fx.make_instance()
    drv.spawn(None, inst, fx.make_image_meta(), [], None, {})
    try:
        fx.wait_for_console(drv, inst, MESSAGE)
        guest = drv.host.get_guest(inst.uuid)
        conns = {name: fx.volume_bdm(name, fx.make_volume(
            tmp_path / name))['connection_info'] for name in ('v1', 'v2')}
        assert drv.get_next_volume_device(inst) == '/dev/vdb'
        assert drv.attach_volume(None, conns['v1'], inst, None) == '/dev/vdb'
        assert drv.attach_volume(None, conns['v2'], inst, None,
                                 disk_bus='scsi') == '/dev/sda'
        for xml in (guest.get_xml_desc(),
                    guest.get_xml_desc(inactive=True)):
            assert ('vdb', 'virtio', 'disk', None) in fx.disk_targets(xml)
            assert ('sda', 'scsi', 'disk', None) in fx.disk_targets(xml)
        assert drv.get_next_volume_device(inst) == '/dev/vdc'

        # SCSI unplug needs no guest cooperation.
        drv.detach_volume(None, conns['v2'], inst, '/dev/sda')
        for xml in (guest.get_xml_desc(),
                    guest.get_xml_desc(inactive=True)):
            assert 'sda' not in [t[0] for t in fx.disk_targets(xml)]

        drv.reboot(None, inst, None, 'HARD')
        fx.wait_for_console(drv, inst, MESSAGE, count=2)
        assert [t[0] for t in fx.disk_targets(guest.get_xml_desc())] == \
            ['vda', 'vdb']
        assert drv.get_next_volume_device(inst) == '/dev/vdc'

        # Stopped: the virtio volume leaves the definition at once.
        drv.power_off(inst)
        drv.detach_volume(None, conns['v1'], inst, '/dev/vdb')
        drv.power_on(None, inst, None)
        fx.wait_for_console(drv, inst, MESSAGE, count=3)
        assert [t[0] for t in fx.disk_targets(guest.get_xml_desc())] == \
            ['vda']
    finally:
        drv.destroy(None, inst)
