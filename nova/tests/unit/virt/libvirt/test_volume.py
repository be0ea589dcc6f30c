"""Volume drivers: connection_info to <disk>, and refusals."""

import pytest
from lxml import etree

from nova import exception
from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import blockinfo, driver_volumes, volume


def canon(xml):
    parser = etree.XMLParser(remove_blank_text=True)
    return etree.tostring(etree.fromstring(xml, parser), method='c14n')


def test_file_volume_disk_xml():
    conn = fx.volume_bdm('vol-1', '/v/1.qcow2')['connection_info']
    disk = volume.get_volume_driver(conn).get_config(
        conn, blockinfo.disk_info('virtio', 'vdb', boot_index=2), 'none')
    assert canon(disk.to_xml()) == canon("""
        <disk type="file" device="disk">
          <driver name="qemu" type="qcow2" cache="none"/>
          <source file="/v/1.qcow2"/>
          <target dev="vdb" bus="virtio"/>
          <boot order="2"/>
          <serial>vol-1</serial>
        </disk>""")


def test_multiattach_volume_is_a_shareable_disk():
    """Nova marks a multiattach volume's connection_info; the disk is then shared."""
    conn = {'driver_volume_type': 'file', 'multiattach': True,
            'data': {'device_path': '/v/3', 'format': 'raw', 'volume_id': 'vol-3'}}
    disk = volume.get_volume_driver(conn).get_config(
        conn, blockinfo.disk_info('virtio', 'vdc'), 'none')
    assert canon(disk.to_xml()) == canon("""
        <disk type="file" device="disk">
          <driver name="qemu" type="raw" cache="none"/>
          <source file="/v/3"/>
          <target dev="vdc" bus="virtio"/>
          <shareable/>
          <serial>vol-3</serial>
        </disk>""")
    del conn['multiattach']
    plain = volume.get_volume_driver(conn).get_config(
        conn, blockinfo.disk_info('virtio', 'vdc'), 'none')
    assert b'shareable' not in canon(plain.to_xml())


def test_read_only_volume_and_default_raw():
    conn = {'driver_volume_type': 'file',
            'data': {'device_path': '/v/2', 'access_mode': 'ro',
                     'volume_id': 'vol-2'}}
    disk = volume.get_volume_driver(conn).get_config(
        conn, blockinfo.disk_info('scsi', 'sdb'), 'writeback')
    assert disk.readonly and disk.driver_format == 'raw'
    assert disk.serial == 'vol-2'


@pytest.mark.parametrize('conn,word', [
    ({'driver_volume_type': 'iscsi', 'data': {}}, "'iscsi'"),
    ({'data': {}}, 'None'),
    ({'driver_volume_type': 'file', 'data': {'device_path': 'rel'}},
     'absolute'),
    ({'driver_volume_type': 'file',
      'data': {'device_path': '/v', 'format': 'vmdk'}}, "'vmdk'"),
])
def test_bad_connection_info_is_invalid(conn, word):
    with pytest.raises(exception.Invalid) as err:
        volume.get_volume_driver(conn).get_config(
            conn, blockinfo.disk_info('virtio', 'vdb'), 'none')
    assert word in err.value.format_message()


def test_connect_checks_the_file(tmp_path):
    conn = fx.volume_bdm('vol-9', tmp_path / 'missing')['connection_info']
    with pytest.raises(exception.VolumeNotFound):
        volume.get_volume_driver(conn).connect_volume(conn, None)


DOMAIN = """<domain type='qemu'><devices>
  <disk type='file' device='disk'><target dev='vda' bus='virtio'/></disk>
  <disk type='file' device='disk'><target dev='sdb' bus='scsi'/>
    <serial>vol-b</serial></disk>
  <controller type='scsi' index='0' model='virtio-scsi'/>
</devices></domain>"""


def test_domain_helpers():
    assert driver_volumes.domain_targets(DOMAIN, None) == {'vda', 'sdb'}
    assert driver_volumes.find_disk(DOMAIN, 'sdb').serial == 'vol-b'
    assert driver_volumes.find_disk(DOMAIN, None, 'vol-b') is not None
    assert driver_volumes.find_disk(DOMAIN, 'vdz') is None
    assert driver_volumes.controller_model(DOMAIN, 'scsi') == 'virtio-scsi'
    assert driver_volumes.controller_model(
        '<domain><devices/></domain>', 'scsi') is None
    assert driver_volumes.controller_model(
        DOMAIN.replace(" model='virtio-scsi'", ''), 'scsi') == 'lsilogic'


@pytest.mark.parametrize('props,dev,bus,expected', [
    ({}, None, None, 'virtio'),
    ({}, 'sdc', None, 'scsi'),
    ({'hw_disk_bus': 'usb'}, 'sdc', None, 'usb'),
    ({}, None, 'scsi', 'scsi'),
])
def test_volume_bus(props, dev, bus, expected):
    assert blockinfo.get_volume_bus('qemu', props, dev, bus, 'disk',
                                    None) == expected


def test_volume_bus_refusals():
    with pytest.raises(exception.Invalid):
        blockinfo.get_volume_bus('qemu', {}, 'vdb', 'scsi', 'disk', None)
    with pytest.raises(exception.Invalid):
        blockinfo.get_volume_bus('qemu', {}, 'hdb', None, 'disk', 'q35')


def test_volume_bus_follows_the_architecture():
    # One function chooses the bus for boot-time mappings and hot-plug: a
    # cdrom volume on an aarch64 guest goes on scsi (no IDE there).
    assert blockinfo.get_volume_bus('qemu', {}, None, None, 'cdrom', None,
                                    'aarch64') == 'scsi'
    assert blockinfo.get_volume_bus('qemu', {}, None, None, 'cdrom', None,
                                    'x86_64') == 'ide'
    bdi = {'block_device_mapping': [
        {'volume_id': 'v', 'device_type': 'cdrom', 'boot_index': None,
         'connection_info': {}}]}
    mapping = blockinfo.get_disk_mapping('qemu', {}, arch='aarch64',
                                         block_device_info=bdi)
    assert mapping['sda']['bus'] == 'scsi'


def test_next_volume_device_honours_requests(tmp_path):
    from nova.tests.fixtures import bootimg
    from nova.virt.libvirt import driver as libvirt_driver
    image = bootimg.write_boot_image(str(tmp_path / 'root.raw'), 'ROOT')
    drv = libvirt_driver.LibvirtDriver(fx.make_conf(tmp_path / 's'),
                                       fx.file_fetcher({'image-1': image}))
    drv.init_host('h')
    inst = fx.make_instance(config_drive='True',
                            flavor=fx.make_flavor(ephemeral_gb=1))
    drv.spawn(None, inst, fx.make_image_meta(), [], None, {})
    try:
        assert drv.get_next_volume_device(inst) == '/dev/vdc'
        assert drv.get_next_volume_device(inst, bus='scsi') == '/dev/sda'
        assert drv.get_next_volume_device(inst, requested='/dev/vdf') == \
            '/dev/vdf'
        assert drv.get_next_volume_device(inst, requested='sdc') == \
            '/dev/sdc'
        with pytest.raises(exception.Invalid) as err:
            drv.get_next_volume_device(inst, requested='/dev/vdb')
        assert 'already in use' in err.value.format_message()
        with pytest.raises(exception.Invalid):
            drv.get_next_volume_device(inst, requested='/dev/hdd', bus='ide')
    finally:
        drv.destroy(None, inst)
