"""Whole-guest XML with every disk kind, against literal XML and libvirt's schema."""

import subprocess

from lxml import etree

from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import blockinfo, guest_config

SETTINGS = guest_config.GuestSettings(
    domain_type='qemu', arch='x86_64', instances_path='/i',
    disk_cachemode='none')
UUID = '11111111-2222-3333-4444-555555555555'


def canon(xml):
    parser = etree.XMLParser(remove_blank_text=True)
    return etree.tostring(etree.fromstring(xml, parser), method='c14n')


def full_instance():
    return fx.make_instance(
        uuid=UUID, name='instance-00000001', config_drive='True',
        flavor=fx.make_flavor(ephemeral_gb=1, swap=512))


def two_volumes():
    return fx.block_device_info([
        fx.volume_bdm('vol-a', '/v/a.qcow2'),
        fx.volume_bdm('vol-b', '/v/b.raw', 'raw', mount_device='/dev/sdb')])


def devices_xml(instance, meta, bdi, settings=SETTINGS):
    mapping = guest_config.get_disk_mapping('qemu', settings, instance,
                                              meta, bdi)
    guest = guest_config.get_guest_config(settings, instance, meta,
                                            mapping, None, bdi)
    root = etree.fromstring(guest.to_xml())
    devices = root.find('devices')
    for serial in devices.findall('serial'):
        devices.remove(serial)
    return etree.tostring(devices), guest.to_xml()


def validate(tmp_path, xml):
    path = tmp_path / 'domain.xml'
    path.write_text(xml)
    proc = subprocess.run(['virt-xml-validate', str(path), 'domain'],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout + xml


def test_every_disk_kind_literal_xml(tmp_path):
    devices, xml = devices_xml(full_instance(), fx.make_image_meta(),
                               two_volumes())
    assert canon(devices) == canon("""
      <devices>
        <disk type="file" device="disk">
          <driver name="qemu" type="qcow2" cache="none"/>
          <source file="/i/%(u)s/disk"/>
          <target dev="vda" bus="virtio"/>
          <boot order="1"/>
        </disk>
        <disk type="file" device="disk">
          <driver name="qemu" type="qcow2" cache="none"/>
          <source file="/i/%(u)s/disk.local"/>
          <target dev="vdb" bus="virtio"/>
        </disk>
        <disk type="file" device="disk">
          <driver name="qemu" type="qcow2" cache="none"/>
          <source file="/i/%(u)s/disk.swap"/>
          <target dev="vdc" bus="virtio"/>
        </disk>
        <disk type="file" device="disk">
          <driver name="qemu" type="raw" cache="none"/>
          <source file="/v/b.raw"/>
          <target dev="sdb" bus="scsi"/>
          <serial>vol-b</serial>
          <address type="drive" controller="0" bus="0" target="0" unit="1"/>
        </disk>
        <disk type="file" device="disk">
          <driver name="qemu" type="qcow2" cache="none"/>
          <source file="/v/a.qcow2"/>
          <target dev="vdd" bus="virtio"/>
          <serial>vol-a</serial>
        </disk>
        <disk type="file" device="cdrom">
          <driver name="qemu" type="raw" cache="none"/>
          <source file="/i/%(u)s/disk.config"/>
          <target dev="hdd" bus="ide"/>
          <readonly/>
        </disk>
        <controller type="scsi" index="0" model="virtio-scsi"/>
      </devices>""" % {'u': UUID})
    validate(tmp_path, xml)


def test_q35_volume_backed_with_scsi_model_and_bdm_ephemerals(tmp_path):
    instance = fx.make_instance(uuid=UUID, config_drive='True')
    bdi = fx.block_device_info(
        [fx.volume_bdm('boot', '/v/boot.qcow2', boot_index=0),
         fx.volume_bdm('data', '/v/data.raw', 'raw', disk_bus='scsi')],
        ephemerals=[{'num': 0, 'size': 1, 'device_name': None,
                     'guest_format': 'ext4', 'disk_bus': 'scsi',
                     'device_type': 'disk'}],
        swap={'swap_size': 64, 'device_name': '/dev/vdc'})
    meta = fx.make_image_meta(None, None, hw_machine_type='q35',
                              hw_scsi_model='virtio-scsi')
    devices, xml = devices_xml(instance, meta, bdi)
    assert canon(devices) == canon("""
      <devices>
        <disk type="file" device="disk">
          <driver name="qemu" type="qcow2" cache="none"/>
          <source file="/v/boot.qcow2"/>
          <target dev="vda" bus="virtio"/>
          <boot order="1"/>
          <serial>boot</serial>
        </disk>
        <disk type="file" device="disk">
          <driver name="qemu" type="qcow2" cache="none"/>
          <source file="/i/%(u)s/disk.eph0"/>
          <target dev="sda" bus="scsi"/>
          <address type="drive" controller="0" bus="0" target="0" unit="0"/>
        </disk>
        <disk type="file" device="disk">
          <driver name="qemu" type="qcow2" cache="none"/>
          <source file="/i/%(u)s/disk.swap"/>
          <target dev="vdc" bus="virtio"/>
        </disk>
        <disk type="file" device="disk">
          <driver name="qemu" type="raw" cache="none"/>
          <source file="/v/data.raw"/>
          <target dev="sdb" bus="scsi"/>
          <serial>data</serial>
          <address type="drive" controller="0" bus="0" target="0" unit="1"/>
        </disk>
        <disk type="file" device="cdrom">
          <driver name="qemu" type="raw" cache="none"/>
          <source file="/i/%(u)s/disk.config"/>
          <target dev="sdf" bus="sata"/>
          <readonly/>
        </disk>
        <controller type="scsi" index="0" model="virtio-scsi"/>
      </devices>""" % {'u': UUID})
    validate(tmp_path, xml)


def test_non_virtio_scsi_model_leaves_addresses_to_libvirt():
    instance = fx.make_instance(uuid=UUID)
    meta = fx.make_image_meta(hw_disk_bus='scsi', hw_scsi_model='lsilogic')
    devices, _xml = devices_xml(instance, meta, None)
    assert b'<address' not in devices
    assert b'<controller type="scsi" index="0" model="lsilogic"/>' in devices


def test_vfat_config_drive_is_a_disk_on_the_disk_bus():
    settings = guest_config.GuestSettings(
        domain_type='qemu', arch='x86_64', instances_path='/i',
        config_drive_format='vfat')
    instance = fx.make_instance(uuid=UUID, config_drive='True')
    mapping = guest_config.get_disk_mapping(
        'qemu', settings, instance, fx.make_image_meta())
    assert mapping['disk.config'] == blockinfo.disk_info('virtio', 'vdz')


def test_force_config_drive_and_no_config_drive():
    instance = fx.make_instance(config_drive='')
    meta = fx.make_image_meta()
    assert 'disk.config' not in guest_config.get_disk_mapping(
        'qemu', SETTINGS, instance, meta)
    forced = guest_config.GuestSettings(
        domain_type='qemu', arch='x86_64', instances_path='/i',
        force_config_drive=True)
    assert 'disk.config' in guest_config.get_disk_mapping(
        'qemu', forced, instance, meta)


def test_full_xml_is_fast():
    import timeit
    instance = full_instance()
    meta = fx.make_image_meta()
    bdi = fx.block_device_info([fx.volume_bdm('v%d' % i, '/v/%d' % i)
                                for i in range(4)])

    def build():
        mapping = guest_config.get_disk_mapping('qemu', SETTINGS, instance,
                                                  meta, bdi)
        return guest_config.get_guest_config(SETTINGS, instance, meta,
                                               mapping, None, bdi).to_xml()

    per_call = min(timeit.repeat(build, number=50, repeat=3)) / 50
    # Design target 2 ms (benchmarks/bench_libvirt_xml.py); CI headroom.
    assert per_call < 0.01
