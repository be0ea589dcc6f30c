"""The bus table: the views other modules read agree with it, and a new bus is a row."""

import pytest

from nova import exception
from nova.api.schemas import servers as server_schemas
from nova.objects import fields
from nova.virt import bus_table, disk_buses, rescue_rules
from nova.virt.libvirt import blockinfo, driver_rescue, guest_config
from nova.virt.libvirt import config as vconfig


def test_names_come_from_the_driver_neutral_vocabulary():
    names = tuple(rule.name for rule in bus_table.BUSES)
    assert set(names) <= set(fields.DiskBus.ALL)
    assert {kind.name for kind in bus_table.KINDS} <= set(fields.BlockDeviceType.ALL)
    qemu = tuple(r.name for r in bus_table.BUSES
                 if 'qemu' in r.virt_types)
    assert qemu == fields.DiskBus.BLOCK_DEVICE
    assert bus_table.VALID_BUSES['qemu'] == qemu
    assert bus_table.VALID_BUSES['kvm'] == qemu
    assert bus_table.VALID_BUSES['lxc'] == ('lxc',)


def test_block_device_schema_enum_is_the_table():
    bdm = server_schemas._bdm_v2['properties']['disk_bus']
    assert bdm['enum'] == list(fields.DiskBus.BLOCK_DEVICE)


def test_derived_views_agree_with_the_rows():
    for rule in bus_table.BUSES:
        assert bus_table.DEV_PREFIX[rule.name] == rule.prefix
        assert blockinfo.max_devs_for_bus(rule.name) == rule.max_devs
        assert set(rule.boots) <= set(rule.device_types)
        assert (rule.name in bus_table.HOTPLUG_BUSES) == rule.hotplug
        assert (rule.name in bus_table.RESCUE_BUSES) == rule.rescue
    assert bus_table.HOTPLUG_BUSES == ('virtio', 'scsi', 'usb')
    assert bus_table.RESCUE_BUSES == ('virtio', 'ide', 'sata', 'scsi',
                                      'usb', 'fdc')
    assert bus_table.PREFIX_BUS == {'vd': 'virtio', 'hd': 'ide',
                                    'sd': 'scsi', 'fd': 'fdc'}
    assert bus_table.RESCUE_DEVICES == ('disk', 'cdrom', 'floppy')
    assert bus_table.STABLE_RESCUE_VIRT_TYPES == ('qemu', 'kvm')
    assert disk_buses.BUS_PROPERTY == {'disk': 'hw_disk_bus', 'cdrom': 'hw_cdrom_bus',
                                       'floppy': 'hw_floppy_bus'}
    assert bus_table.derive(bus_table.BUSES, bus_table.KINDS)['RULES'] == bus_table.RULES


@pytest.mark.parametrize('rule', [r for r in bus_table.BUSES
                                  if r.owns_prefix])
def test_names_of_each_bus_parse_and_stop_at_its_limit(rule):
    last = blockinfo.get_dev_name(rule.prefix, rule.max_devs - 1)
    assert blockinfo.parse_dev(last) == (rule.prefix, rule.max_devs - 1)
    blockinfo.check_dev_on_bus(last, rule.name)
    beyond = blockinfo.get_dev_name(rule.prefix, rule.max_devs)
    with pytest.raises(exception.Invalid):
        blockinfo.check_dev_on_bus(beyond, rule.name)
    used = {blockinfo.get_dev_name(rule.prefix, i)
            for i in range(rule.max_devs)}
    with pytest.raises(exception.Invalid):
        blockinfo.get_next_device_name(used, rule.name)


@pytest.mark.parametrize('rule', bus_table.BUSES)
def test_device_types_are_what_validation_accepts(rule):
    for virt_type in rule.virt_types:
        for device_type in ('disk', 'cdrom', 'floppy', 'lun'):
            if device_type in rule.device_types:
                disk_buses.validate_disk_bus(virt_type, rule.name,
                                             device_type)
            else:
                with pytest.raises(exception.Invalid):
                    disk_buses.validate_disk_bus(virt_type, rule.name,
                                                 device_type)


def test_rescue_validation_uses_the_table():
    for bus in bus_table.RESCUE_BUSES:
        device = 'floppy' if bus == 'fdc' else 'disk'
        assert rescue_rules.validate_rescue(
            'qemu', {}, {'hw_rescue_bus': bus,
                         'hw_rescue_device': device}) == (bus, device)
    with pytest.raises(exception.UnsupportedRescueBus):
        rescue_rules.validate_rescue('qemu', {}, {'hw_rescue_bus': 'lxc'})


@pytest.mark.parametrize('virt_type,device,machine,arch,bus', [
    ('kvm', 'disk', None, 'x86_64', 'virtio'),
    ('kvm', 'cdrom', 'pc', 'x86_64', 'ide'),
    ('kvm', 'cdrom', 'pc-q35-7.2', 'x86_64', 'sata'),
    ('kvm', 'cdrom', 'virt', 'aarch64', 'scsi'),
    ('kvm', 'cdrom', None, 's390x', 'scsi'),
    ('qemu', 'floppy', None, None, 'fdc'),
    ('qemu', 'lun', None, None, 'scsi'),
    ('lxc', 'disk', None, None, 'lxc'),
    ('lxc', 'cdrom', None, None, 'lxc'),
])
def test_defaults_are_the_first_bus_the_guest_has(virt_type, device, machine, arch, bus):
    assert disk_buses.default_disk_bus(virt_type, device, machine, arch) == bus


# ------------------------------------------------------ a new bus is a row

# A bus of the kind NVMe would be: its own names and controller, disks only,
# absent from the old i440fx machines.
NEW_BUS = bus_table.BusRule('nvme', 'nv', ('disk',), owns_prefix=True, hotplug=True,
                            machines_without=('i440fx',), controller='nvme',
                            address='pci')


@pytest.fixture
def table(monkeypatch):
    """Swap in a table with more rows: every rule reads the new table."""
    def use(buses=(), kinds=None):
        rows, kind_rows = bus_table.BUSES + tuple(buses), kinds or bus_table.KINDS
        for name, value in bus_table.derive(rows, kind_rows).items():
            monkeypatch.setattr(bus_table, name, value)
        monkeypatch.setattr(bus_table, 'BUSES', rows)
        monkeypatch.setattr(bus_table, 'KINDS', kind_rows)
    return use


def test_a_new_bus_is_one_row(table):
    table([NEW_BUS])
    disk_buses.validate_disk_bus('kvm', 'nvme', 'disk', 'pc-q35-7.2')
    with pytest.raises(exception.Invalid, match='cdrom'):
        disk_buses.validate_disk_bus('kvm', 'nvme', 'cdrom')
    with pytest.raises(exception.Invalid, match='NVME bus does not exist'):
        disk_buses.check_image_buses('kvm', {'hw_disk_bus': 'nvme'}, 'pc-i440fx-7.2')
    # Disk mapping: names on its prefix, a requested name implies the bus.
    volume = {'volume_id': 'v', 'mount_device': '/dev/nvb',
              'connection_info': {'serial': 'v'}}
    mapping = blockinfo.get_disk_mapping(
        'kvm', {'hw_disk_bus': 'nvme'}, 'qcow2', swap_mb=64,
        block_device_info={'block_device_mapping': [volume]})
    assert [(i['dev'], i['bus']) for n, i in mapping.items() if n != 'root'] == [
        ('nva', 'nvme'), ('nvc', 'nvme'), ('nvb', 'nvme')]
    # The guest gets the controller the bus needs.
    (ctrl,) = guest_config.disk_controllers(mapping)
    assert ctrl.to_xml(pretty_print=False) == '<controller type="nvme" index="0"/>'
    # Rescue: the bus may carry rescue media, where the machine has it.
    assert rescue_rules.validate_rescue('kvm', {}, {'hw_rescue_bus': 'nvme'}) == (
        'nvme', 'disk')
    with pytest.raises(exception.UnsupportedRescueBus, match='no NVME bus'):
        rescue_rules.validate_rescue('kvm', {}, {'hw_rescue_bus': 'nvme'}, None,
                                     'pc-i440fx-7.2')
    with pytest.raises(exception.UnsupportedRescueDevice, match="'nvme' bus cannot carry"):
        rescue_rules.validate_rescue('kvm', {}, {'hw_rescue_bus': 'nvme',
                                                 'hw_rescue_device': 'cdrom'}, None, None,
                                     'iso')
    guest = vconfig.GuestDomain(name='d', devices=[vconfig.GuestDisk(
        source_path='/d', target_dev='vda', target_bus='virtio', boot_order=1)])
    rescue = vconfig.GuestDisk(source_path='/r', target_dev='nva', target_bus='nvme',
                               boot_order=1)
    driver_rescue.apply_stable_rescue(guest, rescue)
    assert [type(d).__name__ for d in guest.devices] == [
        'GuestDisk', 'GuestDisk', 'GuestController']
    assert guest.get_controller('nvme').type == 'nvme'


def test_a_new_rescue_device_is_one_row(table):
    kinds = tuple(bus_table.DeviceKind('lun', None, ('scsi',), needs_disk_format=True)
                  if k.name == 'lun' else k for k in bus_table.KINDS)
    with pytest.raises(exception.UnsupportedRescueDevice, match='must be one of'):
        rescue_rules.validate_rescue('kvm', {}, {'hw_rescue_device': 'lun'}, None, None,
                                     'raw')
    table(kinds=kinds)
    assert rescue_rules.validate_rescue('kvm', {}, {'hw_rescue_device': 'lun'}, None,
                                        None, 'raw') == ('scsi', 'lun')
    with pytest.raises(exception.UnsupportedRescueImage, match='a lun rescue device'):
        rescue_rules.validate_rescue('kvm', {}, {'hw_rescue_device': 'lun'})
    with pytest.raises(exception.UnsupportedRescueDevice, match='a lun needs hw_rescue_bus=scsi'):
        rescue_rules.validate_rescue('kvm', {}, {'hw_rescue_bus': 'usb',
                                                 'hw_rescue_device': 'lun'}, None, None, 'raw')


def test_a_bus_that_carries_but_does_not_boot_a_kind(table):
    # The USB row: a cdrom is carried but never booted, with the row's hint.
    with pytest.raises(exception.UnsupportedRescueDevice) as err:
        rescue_rules.validate_rescue('kvm', {}, {'hw_rescue_bus': 'usb',
                                                 'hw_rescue_device': 'cdrom'}, None, None,
                                     'iso')
    message = err.value.format_message()
    assert 'hybrid ISO' in message and 'ide, sata or scsi' in message
