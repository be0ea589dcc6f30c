"""Rescue layouts as pure functions of a guest's disks: stable-device and legacy."""

import copy

import pytest

from nova import exception
from nova.virt.libvirt import blockinfo


def vol(volume_id, dev=None, bus=None):
    return {'connection_info': {'serial': volume_id}, 'mount_device': dev,
            'boot_index': None, 'disk_bus': bus, 'device_type': None,
            'volume_id': volume_id}


def normal_disks(**kwargs):
    """Disk infos of a normally booted guest, in XML order."""
    mapping = blockinfo.get_disk_mapping('qemu', {}, 'qcow2', **kwargs)
    return [info for name, info in mapping.items() if name != 'root']


FULL = dict(
    ephemeral_gb=1, swap_mb=16, config_drive_type='cdrom',
    block_device_info={'ephemerals': [], 'swap': None,
                       'block_device_mapping': [vol('a'),
                                                vol('b', '/dev/sdb')]})


def layout(mapping):
    return [(name, i['bus'], i['dev'], i['type'], i['boot_index'])
            for name, i in mapping.items() if name != 'root']


@pytest.mark.parametrize('bus,device,rescue_dev', [
    ('usb', 'disk', 'sda'),
    ('scsi', 'disk', 'sda'),
    ('virtio', 'disk', 'vde'),
    ('ide', 'cdrom', 'hda'),
    ('sata', 'cdrom', 'sda'),
    ('fdc', 'floppy', 'fda'),
])
def test_stable_rescue_keeps_every_disk_and_adds_the_media_last(
        bus, device, rescue_dev):
    disks = normal_disks(**FULL)
    before = copy.deepcopy(disks)
    mapping = blockinfo.get_rescue_mapping(disks, (bus, device))
    assert layout(mapping) == [
        ('vda', 'virtio', 'vda', 'disk', 2),
        ('vdb', 'virtio', 'vdb', 'disk', None),
        ('vdc', 'virtio', 'vdc', 'disk', None),
        ('sdb', 'scsi', 'sdb', 'disk', None),
        ('vdd', 'virtio', 'vdd', 'disk', None),
        ('hdd', 'ide', 'hdd', 'cdrom', None),
        ('disk.rescue', bus, rescue_dev, device, 1)]
    assert mapping['root'] is mapping['disk.rescue']
    assert disks == before      # inputs untouched


def test_stable_rescue_with_ephemeral_and_swap_mappings():
    disks = normal_disks(block_device_info={
        'ephemerals': [{'num': 0, 'device_name': '/dev/vdb', 'size': 1},
                       {'num': 1, 'device_name': '/dev/vdc', 'size': 1}],
        'swap': {'device_name': '/dev/vdd', 'swap_size': 1},
        'block_device_mapping': [vol('v')]})
    mapping = blockinfo.get_stable_rescue_mapping(disks, 'virtio', 'disk')
    assert [(i['dev'], i['boot_index']) for i in mapping.values()] == [
        ('vda', 2), ('vdb', None), ('vdc', None), ('vdd', None),
        ('vde', None), ('vdf', 1), ('vdf', 1)]


def test_stable_rescue_shifts_every_boot_order_or_starts_one():
    disks = [blockinfo.disk_info('virtio', 'vda', 'disk', 1),
             blockinfo.disk_info('virtio', 'vdb', 'disk', 2),
             blockinfo.disk_info('scsi', 'sda', 'disk')]
    mapping = blockinfo.get_stable_rescue_mapping(disks, 'scsi', 'cdrom')
    assert [(n, i['boot_index']) for n, i in mapping.items()] == [
        ('vda', 2), ('vdb', 3), ('sda', None), ('disk.rescue', 1),
        ('root', 1)]
    assert mapping['disk.rescue']['dev'] == 'sdb'
    # Without any boot order the first disk gets 2 behind the media ...
    plain = [blockinfo.disk_info('virtio', 'vda'),
             blockinfo.disk_info('virtio', 'vdb')]
    mapping = blockinfo.get_stable_rescue_mapping(plain, 'usb', 'disk')
    assert [mapping['vda']['boot_index'], mapping['vdb']['boot_index']] == [
        2, None]
    # ... unless another device (a NIC) already boots by order.
    mapping = blockinfo.get_stable_rescue_mapping(plain, 'usb', 'disk',
                                                  other_boot_orders=True)
    assert mapping['vda']['boot_index'] is None


def test_stable_rescue_of_a_volume_backed_guest():
    disks = normal_disks(block_device_info={
        'root_device_name': '/dev/vda', 'ephemerals': [], 'swap': None,
        'block_device_mapping': [dict(vol('boot', '/dev/vda'),
                                      boot_index=0), vol('data')]})
    mapping = blockinfo.get_rescue_mapping(disks, ('virtio', 'disk'))
    assert layout(mapping) == [
        ('vda', 'virtio', 'vda', 'disk', 2),
        ('vdb', 'virtio', 'vdb', 'disk', None),
        ('disk.rescue', 'virtio', 'vdc', 'disk', 1)]
    assert mapping['vda']['volume_id'] == 'boot'


def test_stable_rescue_on_a_full_bus_is_refused():
    disks = [blockinfo.disk_info('ide', dev) for dev in
             ('hda', 'hdb', 'hdc', 'hdd')]
    with pytest.raises(exception.Invalid) as err:
        blockinfo.get_rescue_mapping(disks, ('ide', 'cdrom'))
    assert "'ide' bus" in err.value.format_message()


def test_legacy_rescue_keeps_root_and_config_drive_only():
    disks = normal_disks(**FULL)
    mapping = blockinfo.get_rescue_mapping(disks, None, config_dev='hdd')
    assert layout(mapping) == [
        ('disk.rescue', 'virtio', 'vda', 'disk', 1),
        ('disk', 'virtio', 'vdb', 'disk', None),
        ('disk.config', 'ide', 'hdd', 'cdrom', None)]
    assert mapping['root'] is mapping['disk.rescue']
    # Without a config drive only the two disks remain.
    mapping = blockinfo.get_rescue_mapping(disks, None)
    assert [n for n in mapping if n != 'root'] == ['disk.rescue', 'disk']


def test_legacy_rescue_root_is_the_boot_disk_not_the_first():
    disks = [blockinfo.disk_info('scsi', 'sda', 'disk'),
             blockinfo.disk_info('virtio', 'vda', 'disk', 1)]
    mapping = blockinfo.get_rescue_mapping(disks)
    assert layout(mapping) == [
        ('disk.rescue', 'virtio', 'vda', 'disk', 1),
        ('disk', 'virtio', 'vdb', 'disk', None)]


@pytest.mark.parametrize('info,model,unit', [
    (blockinfo.disk_info('scsi', 'sda'), 'virtio-scsi', 0),
    (blockinfo.disk_info('scsi', 'sdc'), 'virtio-scsi', 2),
    (blockinfo.disk_info('scsi', 'sdaa'), 'virtio-scsi', 26),
    (blockinfo.disk_info('scsi', 'sdc'), 'lsilogic', None),
    (blockinfo.disk_info('usb', 'sdc'), 'virtio-scsi', None),
    (blockinfo.disk_info('virtio', 'vdc'), 'virtio-scsi', None),
])
def test_virtio_scsi_drive_address(info, model, unit):
    address = blockinfo.drive_address(info, model)
    if unit is None:
        assert address is None
    else:
        assert (address.controller, address.bus, address.target,
                address.unit) == (0, 0, 0, unit)


def test_rescue_media_address_on_virtio_scsi_follows_its_name():
    disks = normal_disks(**FULL)
    rescue = blockinfo.get_rescue_mapping(disks, ('scsi', 'disk'))[
        'disk.rescue']
    volume = [i for i in disks if i['bus'] == 'scsi'][0]
    assert blockinfo.drive_address(rescue).unit == 0
    assert blockinfo.drive_address(volume).unit == 1
