"""Disk mapping: pure functions over plain dicts, no config, no libvirt."""

import pytest

from nova import exception
from nova.virt.libvirt import blockinfo


def test_dev_names_are_linux_style():
    assert [blockinfo.get_dev_name('vd', i) for i in (0, 1, 25, 26, 27)] == \
        ['vda', 'vdb', 'vdz', 'vdaa', 'vdab']


@pytest.mark.parametrize('virt_type', ['qemu', 'kvm'])
def test_root_defaults_to_virtio_vda_boot_index_1(virt_type):
    mapping = blockinfo.get_disk_mapping(virt_type, {}, 'qcow2')
    assert mapping == {
        'disk': {'bus': 'virtio', 'dev': 'vda', 'type': 'disk',
                 'boot_index': 1},
        'root': {'bus': 'virtio', 'dev': 'vda', 'type': 'disk',
                 'boot_index': 1},
    }
    assert mapping['root'] is mapping['disk']


@pytest.mark.parametrize('bus,dev', [('ide', 'hda'), ('sata', 'sda'),
                                     ('scsi', 'sda'), ('usb', 'sda'),
                                     ('virtio', 'vda')])
def test_hw_disk_bus_picks_bus_and_name(bus, dev):
    root = blockinfo.get_disk_mapping('qemu', {'hw_disk_bus': bus})['disk']
    assert (root['bus'], root['dev'], root['type']) == (bus, dev, 'disk')


@pytest.mark.parametrize('machine,bus,dev', [(None, 'ide', 'hda'),
                                             ('pc', 'ide', 'hda'),
                                             ('q35', 'sata', 'sda'),
                                             ('pc-q35-7.2', 'sata', 'sda')])
def test_iso_root_is_cdrom_on_machine_default_bus(machine, bus, dev):
    root = blockinfo.get_disk_mapping('qemu', {}, 'iso',
                                      machine_type=machine)['root']
    assert root == {'bus': bus, 'dev': dev, 'type': 'cdrom',
                    'boot_index': 1}


def test_iso_root_honours_hw_cdrom_bus_not_hw_disk_bus():
    props = {'hw_cdrom_bus': 'scsi', 'hw_disk_bus': 'ide'}
    root = blockinfo.get_disk_mapping('qemu', props, 'iso')['root']
    assert (root['bus'], root['dev']) == ('scsi', 'sda')


def test_cdrom_on_arm_defaults_to_scsi():
    assert blockinfo.default_disk_bus('qemu', 'cdrom',
                                      arch='aarch64') == 'scsi'


def test_floppy_and_lun_defaults():
    assert blockinfo.default_disk_bus('qemu', 'floppy') == 'fdc'
    assert blockinfo.default_disk_bus('kvm', 'lun') == 'scsi'
    assert blockinfo.default_disk_bus('lxc', 'disk') == 'lxc'


def test_invalid_bus_for_virt_type_is_clear():
    with pytest.raises(exception.Invalid) as err:
        blockinfo.get_disk_mapping('qemu', {'hw_disk_bus': 'xen'})
    msg = err.value.format_message()
    assert "'xen'" in msg and "'qemu'" in msg and 'virtio' in msg
    with pytest.raises(exception.Invalid):
        blockinfo.get_disk_mapping('lxc', {'hw_disk_bus': 'virtio'})


def test_cdrom_cannot_sit_on_virtio():
    with pytest.raises(exception.Invalid) as err:
        blockinfo.get_disk_mapping('qemu', {'hw_cdrom_bus': 'virtio'}, 'iso')
    assert 'cdrom' in err.value.format_message()


def test_ide_does_not_exist_on_q35():
    with pytest.raises(exception.Invalid) as err:
        blockinfo.get_disk_mapping('kvm', {'hw_disk_bus': 'ide'},
                                   machine_type='pc-q35-7.2')
    assert 'q35' in err.value.format_message()


def test_root_device_name_is_kept_and_checked():
    root = blockinfo.get_disk_mapping('qemu', {},
                                      root_device_name='/dev/vdc')['root']
    assert root['dev'] == 'vdc'
    with pytest.raises(exception.Invalid):
        blockinfo.get_disk_mapping('qemu', {}, root_device_name='/dev/sda')


def test_ephemeral_swap_and_config_drive_follow_root():
    mapping = blockinfo.get_disk_mapping('qemu', {}, 'qcow2', ephemeral_gb=1,
                                         swap_mb=512,
                                         config_drive_type='cdrom')
    assert list(mapping) == ['disk', 'root', 'disk.local', 'disk.swap',
                             'disk.config']
    assert mapping['disk.local'] == {'bus': 'virtio', 'dev': 'vdb',
                                     'type': 'disk', 'boot_index': None}
    assert mapping['disk.swap']['dev'] == 'vdc'
    # The config drive takes the LAST ide slot, leaving hda-hdc free.
    assert mapping['disk.config'] == {'bus': 'ide', 'dev': 'hdd',
                                      'type': 'cdrom', 'boot_index': None}


def test_names_are_unique_across_buses_sharing_a_prefix():
    mapping = blockinfo.get_disk_mapping(
        'qemu', {'hw_disk_bus': 'scsi', 'hw_cdrom_bus': 'sata'},
        ephemeral_gb=1, config_drive_type='cdrom')
    assert mapping['disk']['dev'] == 'sda'
    assert mapping['disk.local']['dev'] == 'sdb'
    assert mapping['disk.config']['dev'] == 'sdz'


def test_bus_runs_out_of_names():
    mapping = {'d%d' % i: blockinfo.disk_info('ide', 'hd' + c)
               for i, c in enumerate('abcd')}
    with pytest.raises(exception.Invalid):
        blockinfo.find_free_dev(mapping, 'ide')


def test_mapping_is_fast():
    import timeit
    per_call = min(timeit.repeat(
        lambda: blockinfo.get_disk_mapping(
            'kvm', {}, 'qcow2', ephemeral_gb=1, swap_mb=1,
            config_drive_type='cdrom'), number=200, repeat=3)) / 200
    # Design target is 0.1 ms; leave headroom for slow CI machines.
    assert per_call < 0.001
