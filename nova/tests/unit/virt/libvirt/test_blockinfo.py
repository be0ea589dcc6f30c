"""Disk mapping: pure functions over plain dicts, no config, no libvirt."""

import pytest

from nova import exception
from nova.virt import disk_buses
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
    assert disk_buses.default_disk_bus('qemu', 'cdrom',
                                       arch='aarch64') == 'scsi'


def test_floppy_and_lun_defaults():
    assert disk_buses.default_disk_bus('qemu', 'floppy') == 'fdc'
    assert disk_buses.default_disk_bus('kvm', 'lun') == 'scsi'
    assert disk_buses.default_disk_bus('lxc', 'disk') == 'lxc'


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
    # Last port of the first AHCI controller: libvirt adds no controller.
    assert mapping['disk.config']['dev'] == 'sdf'


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


# ------------------------------------------- block device mappings (tables)

def vol(volume_id, dev=None, boot_index=None, bus=None, device_type=None):
    return {'connection_info': {'driver_volume_type': 'file',
                                'data': {'device_path': '/v/' + volume_id},
                                'serial': volume_id},
            'mount_device': dev, 'boot_index': boot_index, 'disk_bus': bus,
            'device_type': device_type, 'volume_id': volume_id}


def layout(mapping):
    """[(name, bus, dev, type, boot_index)] in mapping (XML) order."""
    return [(name, i['bus'], i['dev'], i['type'], i['boot_index'])
            for name, i in mapping.items() if name != 'root']


def bdi(volumes=(), ephemerals=(), swap=None, root=None):
    return {'root_device_name': root, 'ephemerals': list(ephemerals),
            'swap': swap, 'block_device_mapping': list(volumes)}


FULL = [('disk', 'virtio', 'vda', 'disk', 1),
        ('disk.local', 'virtio', 'vdb', 'disk', None),
        ('disk.swap', 'virtio', 'vdc', 'disk', None),
        ('vdd', 'virtio', 'vdd', 'disk', None),
        ('vde', 'virtio', 'vde', 'disk', None),
        ('disk.config', 'ide', 'hdd', 'cdrom', None)]


@pytest.mark.parametrize('props,machine,kwargs,expected', [
    # root + flavor ephemeral + swap + two volumes + config drive
    ({}, None, dict(ephemeral_gb=1, swap_mb=64, config_drive_type='cdrom',
                    block_device_info=bdi([vol('a'), vol('b')])), FULL),
    # same on q35: the config drive moves to SATA, last AHCI port
    ({}, 'q35', dict(ephemeral_gb=1, swap_mb=64, config_drive_type='cdrom',
                     block_device_info=bdi([vol('a'), vol('b')])),
     FULL[:-1] + [('disk.config', 'sata', 'sdf', 'cdrom', None)]),
    # vfat config drive: a disk on the disk bus, last name
    ({}, None, dict(config_drive_type='disk'),
     [('disk', 'virtio', 'vda', 'disk', 1),
      ('disk.config', 'virtio', 'vdz', 'disk', None)]),
    # hw_disk_bus=scsi: everything on sd*, volumes after the local disks
    ({'hw_disk_bus': 'scsi'}, None,
     dict(ephemeral_gb=1, block_device_info=bdi([vol('a')])),
     [('disk', 'scsi', 'sda', 'disk', 1),
      ('disk.local', 'scsi', 'sdb', 'disk', None),
      ('sdc', 'scsi', 'sdc', 'disk', None)]),
    # requested names are kept; automatic names skip them
    ({}, None, dict(ephemeral_gb=1, block_device_info=bdi(
        [vol('a'), vol('b', '/dev/vdb')])),
     [('disk', 'virtio', 'vda', 'disk', 1),
      ('disk.local', 'virtio', 'vdc', 'disk', None),
      ('vdb', 'virtio', 'vdb', 'disk', None),
      ('vdd', 'virtio', 'vdd', 'disk', None)]),
    # a requested sd* name without a bus means scsi (the prefix decides)
    ({}, None, dict(block_device_info=bdi([vol('a', '/dev/sdb')])),
     [('disk', 'virtio', 'vda', 'disk', 1),
      ('sdb', 'scsi', 'sdb', 'disk', None)]),
    # ... but sata when the image's disk bus is sata (same prefix)
    ({'hw_disk_bus': 'sata'}, 'q35',
     dict(block_device_info=bdi([vol('a', '/dev/sdc')])),
     [('disk', 'sata', 'sda', 'disk', 1),
      ('sdc', 'sata', 'sdc', 'disk', None)]),
    # volume boot indexes order the volumes and become boot orders
    ({}, None, dict(block_device_info=bdi(
        [vol('a'), vol('b', boot_index=2), vol('c', boot_index=1)])),
     [('disk', 'virtio', 'vda', 'disk', 1),
      ('vdd', 'virtio', 'vdd', 'disk', 2),
      ('vdc', 'virtio', 'vdc', 'disk', 3),
      ('vdb', 'virtio', 'vdb', 'disk', None)]),
    # BDM ephemerals and swap replace the flavor's
    ({}, None, dict(ephemeral_gb=5, swap_mb=64, block_device_info=bdi(
        ephemerals=[{'num': 1, 'size': 1, 'device_name': '/dev/vdc'},
                    {'num': 0, 'size': 1}],
        swap={'swap_size': 32, 'device_name': None, 'disk_bus': 'usb'})),
     [('disk', 'virtio', 'vda', 'disk', 1),
      ('disk.eph0', 'virtio', 'vdb', 'disk', None),
      ('disk.eph1', 'virtio', 'vdc', 'disk', None),
      ('disk.swap', 'usb', 'sda', 'disk', None)]),
    # a swap BDM of size 0 means no swap, not the flavor's
    ({}, None, dict(swap_mb=64, block_device_info=bdi(
        swap={'swap_size': 0})),
     [('disk', 'virtio', 'vda', 'disk', 1),
      ('disk.swap', 'virtio', 'vdb', 'disk', None)]),
    # cdrom and floppy volumes take hw_cdrom_bus / hw_floppy_bus
    ({'hw_cdrom_bus': 'scsi'}, None, dict(block_device_info=bdi(
        [vol('a', device_type='cdrom'), vol('f', device_type='floppy')])),
     [('disk', 'virtio', 'vda', 'disk', 1),
      ('fda', 'fdc', 'fda', 'floppy', None),
      ('sda', 'scsi', 'sda', 'cdrom', None)]),
])
def test_mapping_table(props, machine, kwargs, expected):
    mapping = blockinfo.get_disk_mapping('kvm', props, 'qcow2',
                                         machine_type=machine, **kwargs)
    assert layout(mapping) == expected


def test_volume_backed_root_has_no_image_disk():
    mapping = blockinfo.get_disk_mapping(
        'qemu', {}, None, ephemeral_gb=1, config_drive_type='cdrom',
        block_device_info=bdi([vol('data'), vol('boot', boot_index=0)],
                              root='/dev/vda'))
    assert 'disk' not in mapping
    assert mapping['root'] is mapping['vda']
    assert mapping['vda'] == {'bus': 'virtio', 'dev': 'vda', 'type': 'disk',
                              'boot_index': 1, 'volume_id': 'boot'}
    assert layout(mapping) == [
        ('vda', 'virtio', 'vda', 'disk', 1),
        ('disk.local', 'virtio', 'vdb', 'disk', None),
        ('vdc', 'virtio', 'vdc', 'disk', None),
        ('disk.config', 'ide', 'hdd', 'cdrom', None)]
    assert blockinfo.get_device_names(mapping) == {
        'root_device_name': '/dev/vda', 'ephemerals': {0: '/dev/vdb'},
        'swap': None, 'volumes': {'boot': '/dev/vda', 'data': '/dev/vdc'}}


def test_volume_root_on_requested_scsi_name():
    mapping = blockinfo.get_disk_mapping(
        'qemu', {}, None,
        block_device_info=bdi([vol('boot', '/dev/sda', boot_index=0)]))
    assert mapping['root'] == {'bus': 'scsi', 'dev': 'sda', 'type': 'disk',
                               'boot_index': 1, 'volume_id': 'boot'}


def test_device_names_for_the_manager():
    mapping = blockinfo.get_disk_mapping(
        'qemu', {}, 'qcow2', block_device_info=bdi(
            [vol('a'), vol('b', '/dev/vdb')],
            ephemerals=[{'num': 0, 'size': 1}],
            swap={'swap_size': 16}))
    assert blockinfo.get_device_names(mapping) == {
        'root_device_name': '/dev/vda', 'ephemerals': {0: '/dev/vdc'},
        'swap': '/dev/vdd', 'volumes': {'a': '/dev/vde', 'b': '/dev/vdb'}}


@pytest.mark.parametrize('kwargs,words', [
    (dict(block_device_info=bdi([vol('a', '/dev/vdb'), vol('b', 'vdb')])),
     ['/dev/vdb', 'volume a', 'volume b']),
    (dict(block_device_info=bdi([vol('a', '/dev/vda')])),
     ['/dev/vda', 'root disk', 'volume a']),
    (dict(block_device_info=bdi(
        [vol('a', '/dev/vdc')],
        ephemerals=[{'num': 0, 'size': 1, 'device_name': '/dev/vdc'}])),
     ['/dev/vdc', 'ephemeral disk 0', 'volume a']),
    (dict(block_device_info=bdi([vol('a', '/dev/vdb', bus='scsi')])),
     ['/dev/vdb', "'scsi'", "'sd'"]),
    (dict(block_device_info=bdi([vol('a', '/dev/hde')])),
     ['/dev/hde', 'beyond', "'ide'"]),
    (dict(block_device_info=bdi([vol('a', '/dev/xvdb')])),
     ['xvdb']),
    (dict(block_device_info=bdi([vol('a', bus='virtio',
                                     device_type='cdrom')])),
     ['cdrom', "'virtio'"]),
])
def test_conflicts_and_bad_names_are_clear(kwargs, words):
    with pytest.raises(exception.Invalid) as err:
        blockinfo.get_disk_mapping('qemu', {}, 'qcow2', **kwargs)
    msg = err.value.format_message()
    for word in words:
        assert word in msg, msg


def test_ide_volume_refused_on_q35():
    with pytest.raises(exception.Invalid) as err:
        blockinfo.get_disk_mapping(
            'qemu', {}, machine_type='q35',
            block_device_info=bdi([vol('a', '/dev/hdb')]))
    assert 'q35' in err.value.format_message()


def test_mapping_is_deterministic_and_inputs_untouched():
    info = bdi([vol('a'), vol('b', '/dev/vdb')])
    before = repr(info)
    first = blockinfo.get_disk_mapping('qemu', {}, block_device_info=info)
    second = blockinfo.get_disk_mapping('qemu', {}, block_device_info=info)
    assert first == second and list(first) == list(second)
    assert repr(info) == before


def test_parse_dev_and_drive_units():
    assert blockinfo.parse_dev('vdaa') == ('vd', 26)
    assert blockinfo.parse_dev('sdz') == ('sd', 25)
    assert blockinfo.get_drive_unit('scsi', 'sdc') == 2
    assert blockinfo.get_drive_unit('virtio', 'vdc') is None
    with pytest.raises(exception.Invalid):
        blockinfo.parse_dev('nvme0n1')


def test_next_device_name_from_used_names():
    assert blockinfo.get_next_device_name({'vda', 'vdb', 'hdd'},
                                          'virtio') == 'vdc'
    assert blockinfo.get_next_device_name({'sda', 'sdf'}, 'scsi') == 'sdb'
    with pytest.raises(exception.Invalid):
        blockinfo.get_next_device_name({'hda', 'hdb', 'hdc', 'hdd'}, 'ide')


def test_legacy_rescue_mapping():
    root = blockinfo.disk_info('virtio', 'vda', 'disk', 1)
    config = blockinfo.disk_info('ide', 'hdd', 'cdrom')
    mapping = blockinfo.get_legacy_rescue_mapping(root, config)
    assert layout(mapping) == [
        ('disk.rescue', 'virtio', 'vda', 'disk', 1),
        ('disk', 'virtio', 'vdb', 'disk', None),
        ('disk.config', 'ide', 'hdd', 'cdrom', None)]
    assert mapping['root'] is mapping['disk.rescue']


def test_full_mapping_is_fast():
    import timeit
    info = bdi([vol('v%d' % i) for i in range(4)])
    per_call = min(timeit.repeat(
        lambda: blockinfo.get_disk_mapping(
            'kvm', {}, 'qcow2', ephemeral_gb=1, swap_mb=1,
            config_drive_type='cdrom', block_device_info=info),
        number=200, repeat=3)) / 200
    # Design target 0.1 ms (benchmarks/bench_libvirt_xml.py measures it);
    # headroom for slow CI machines.
    assert per_call < 0.001
