"""Stable-device rescue rules the API applies from a node record."""

import pytest

from nova import exception
from nova.virt import rescue_rules
from nova.virt.libvirt import driver_rescue

NODE = {'virt_type': 'kvm', 'machine_type': 'pc', 'rescue_disk_buses': 'ide,fdc,scsi,virtio,usb',
        'rescue_disk_devices': 'disk,cdrom,floppy,lun'}


def test_the_driver_applies_the_same_rules():
    assert driver_rescue.validate_rescue is rescue_rules.validate_rescue
    assert driver_rescue.get_rescue_device is rescue_rules.get_rescue_device


def test_node_disk_caps_for_the_host_default_machine_type():
    caps = rescue_rules.node_disk_caps(NODE)
    assert caps == {'bus': ('ide', 'fdc', 'scsi', 'virtio', 'usb'),
                    'diskDevice': ('disk', 'cdrom', 'floppy', 'lun')}
    assert rescue_rules.node_disk_caps(NODE, 'pc') == caps


@pytest.mark.parametrize('node,machine', [
    ({'virt_type': 'kvm'}, None),                  # the host reports no caps
    (dict(NODE, rescue_disk_buses=''), None),
    (NODE, 'q35'),                                 # caps are for another machine type
])
def test_node_disk_caps_unknown(node, machine):
    assert rescue_rules.node_disk_caps(node, machine) is None


def test_a_bus_the_node_does_not_offer_is_refused_from_the_record():
    caps = rescue_rules.node_disk_caps(dict(NODE, rescue_disk_buses='ide,fdc,virtio'))
    with pytest.raises(exception.UnsupportedRescueBus, match="offers no 'usb' disk bus"):
        rescue_rules.validate_rescue('kvm', {}, {'hw_rescue_bus': 'usb'}, caps, 'pc',
                                     'qcow2')
    assert rescue_rules.validate_rescue('kvm', {}, {'hw_rescue_bus': 'virtio'}, caps, 'pc',
                                        'qcow2') == ('virtio', 'disk')


def test_disk_count_bound_counts_every_possible_disk():
    # Root and config drive, plus each mapping, ephemeral and swap.
    assert rescue_rules.disk_count_bound([], 0, 0) == 2
    assert rescue_rules.disk_count_bound([{}, {}], 1, 64) == 6


@pytest.mark.parametrize('bus,bound,may', [
    ('ide', 3, False), ('ide', 4, True),
    ('fdc', 1, False), ('fdc', 2, True),
    ('sata', 5, False), ('sata', 6, True),
    ('virtio', 25, False), ('virtio', 26, True),
])
def test_names_may_run_out_only_when_the_bus_could_be_full(bus, bound, may):
    assert rescue_rules.names_may_run_out(bus, bound) is may
