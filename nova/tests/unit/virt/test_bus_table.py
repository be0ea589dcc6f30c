"""The bus table: every view other modules use is derived from it and agrees."""

import pytest

from nova import exception
from nova.api.schemas import servers as server_schemas
from nova.objects import fields
from nova.virt import bus_table, disk_buses
from nova.virt.libvirt import blockinfo, driver_rescue, driver_volumes


def test_names_come_from_the_driver_neutral_vocabulary():
    names = tuple(rule.name for rule in bus_table.BUSES)
    assert set(names) <= set(fields.DiskBus.ALL)
    qemu = tuple(r.name for r in bus_table.BUSES
                 if 'qemu' in r.virt_types)
    assert qemu == fields.DiskBus.BLOCK_DEVICE
    assert disk_buses.VALID_BUSES['qemu'] == qemu
    assert disk_buses.VALID_BUSES['kvm'] == qemu
    assert disk_buses.VALID_BUSES['lxc'] == ('lxc',)


def test_block_device_schema_enum_is_the_table():
    bdm = server_schemas._bdm_v2['properties']['disk_bus']
    assert bdm['enum'] == list(fields.DiskBus.BLOCK_DEVICE)


def test_derived_views_agree_with_the_rows():
    for rule in bus_table.BUSES:
        assert blockinfo.DEV_PREFIX[rule.name] == rule.prefix
        assert blockinfo.max_devs_for_bus(rule.name) == rule.max_devs
        assert disk_buses.VALID_DEVICE_TYPES[rule.name] == rule.device_types
        assert (rule.name in driver_volumes.HOTPLUG_BUSES) == rule.hotplug
        assert (rule.name in driver_rescue.RESCUE_BUSES) == rule.rescue
    assert driver_volumes.HOTPLUG_BUSES == ('virtio', 'scsi', 'usb')
    assert driver_rescue.RESCUE_BUSES == ('virtio', 'ide', 'sata', 'scsi',
                                          'usb', 'fdc')
    assert blockinfo.PREFIX_BUS == {'vd': 'virtio', 'hd': 'ide',
                                    'sd': 'scsi', 'fd': 'fdc'}


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
        assert driver_rescue.validate_rescue(
            'qemu', {}, {'hw_rescue_bus': bus,
                         'hw_rescue_device': device}) == (bus, device)
    with pytest.raises(driver_rescue.UnsupportedRescueBus):
        driver_rescue.validate_rescue('qemu', {}, {'hw_rescue_bus': 'lxc'})
