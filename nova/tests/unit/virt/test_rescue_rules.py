"""Stable-device rescue rules the API applies from a node record."""

import pytest

from nova import exception
from nova.objects import image_meta as image_meta_obj
from nova.virt import rescue_rules

NODE = {'virt_type': 'kvm', 'machine_type': 'pc', 'rescue_disk_buses': 'ide,fdc,scsi,virtio,usb',
        'rescue_disk_devices': 'disk,cdrom,floppy,lun'}


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


CAPS_PC = {'bus': ('ide', 'fdc', 'scsi', 'virtio', 'usb', 'sata'),
           'diskDevice': ('disk', 'cdrom', 'floppy', 'lun')}
CAPS_Q35 = {'bus': ('fdc', 'scsi', 'virtio', 'usb', 'sata'),
            'diskDevice': ('disk', 'cdrom', 'floppy', 'lun')}


# ------------------------------------------------------------- validation

@pytest.mark.parametrize('inst,props,machine,fmt,expected', [
    ({}, {}, None, 'raw', None),
    ({}, {'hw_rescue_bus': 'usb'}, None, 'raw', ('usb', 'disk')),
    ({'hw_disk_bus': 'scsi'}, {'hw_rescue_device': 'disk'}, None, 'raw',
     ('scsi', 'disk')),
    ({}, {'hw_rescue_device': 'disk'}, None, 'raw', ('virtio', 'disk')),
    ({}, {'hw_rescue_device': 'cdrom'}, None, 'iso', ('ide', 'cdrom')),
    ({}, {'hw_rescue_device': 'cdrom'}, 'pc-q35-7.2', 'iso',
     ('sata', 'cdrom')),
    ({}, {'hw_rescue_device': 'floppy'}, None, 'raw', ('fdc', 'floppy')),
    ({}, {'hw_rescue_bus': 'fdc'}, None, 'raw', ('fdc', 'floppy')),
    ({}, {'hw_rescue_bus': 'scsi', 'hw_rescue_device': 'cdrom'}, 'q35',
     'iso', ('scsi', 'cdrom')),
    ({}, {'hw_rescue_bus': 'usb'}, None, 'iso', ('usb', 'disk')),
    # A plain disk image goes in the drive too, as upstream does.
    ({}, {'hw_rescue_device': 'cdrom'}, None, 'raw', ('ide', 'cdrom')),
    ({}, {'hw_rescue_device': 'cdrom'}, 'pc-q35-7.2', 'qcow2', ('sata', 'cdrom')),
])
def test_validate_rescue_accepts(inst, props, machine, fmt, expected):
    caps = CAPS_Q35 if machine else CAPS_PC
    assert rescue_rules.validate_rescue('kvm', inst, props, caps, machine,
                                  fmt) == expected


@pytest.mark.parametrize('virt,props,machine,fmt,caps,error,words', [
    ('qemu', {'hw_rescue_bus': 'xen'}, None, 'raw', None,
     exception.UnsupportedRescueBus, ["'xen'", 'virtio, ide']),
    ('qemu', {'hw_rescue_device': 'lun'}, None, 'raw', None,
     exception.UnsupportedRescueDevice, ["'lun'", 'disk, cdrom, floppy']),
    ('qemu', {'hw_rescue_bus': 'usb', 'hw_rescue_device': 'floppy'}, None,
     'raw', None, exception.UnsupportedRescueDevice, ['fdc', "'usb'"]),
    ('qemu', {'hw_rescue_bus': 'fdc', 'hw_rescue_device': 'disk'}, None,
     'raw', None, exception.UnsupportedRescueBus, ['floppy', "'disk'"]),
    ('qemu', {'hw_rescue_bus': 'ide'}, 'pc-q35-7.2', 'raw', None,
     exception.UnsupportedRescueBus, ['IDE', 'q35']),
    ('qemu', {'hw_rescue_bus': 'virtio', 'hw_rescue_device': 'cdrom'}, None,
     'iso', None, exception.UnsupportedRescueDevice, ["'virtio'", 'cdrom']),
    ('qemu', {'hw_rescue_bus': 'usb', 'hw_rescue_device': 'cdrom'}, None,
     'iso', None, exception.UnsupportedRescueDevice, ['usb', 'firmware']),
    ('qemu', {'hw_rescue_device': 'cdrom'}, None, None, None,
     exception.UnsupportedRescueImage, ['disk_format=None']),
    ('qemu', {'hw_rescue_bus': 'usb'}, None, 'raw',
     {'bus': ('virtio', 'ide'), 'diskDevice': ('disk',)},
     exception.UnsupportedRescueBus, ["host's QEMU", "'usb'", 'virtio, ide']),
    ('qemu', {'hw_rescue_device': 'floppy'}, None, 'raw',
     {'bus': ('fdc',), 'diskDevice': ('disk',)},
     exception.UnsupportedRescueDevice, ["host's QEMU", 'floppy']),
    ('lxc', {'hw_rescue_bus': 'usb'}, None, 'raw', None,
     exception.UnsupportedRescue, ["'lxc'", 'stable device rescue']),
    ('xen', {'hw_rescue_device': 'disk'}, None, 'raw', None,
     exception.UnsupportedRescue, ["'xen'"]),
])
def test_validate_rescue_refuses(virt, props, machine, fmt, caps, error,
                                 words):
    with pytest.raises(error) as err:
        rescue_rules.validate_rescue(virt, {}, props, caps, machine, fmt)
    assert isinstance(err.value, exception.Invalid)
    for word in words:
        assert word in err.value.format_message(), err.value


def test_legacy_rescue_of_volume_backed_instance_is_refused():
    with pytest.raises(exception.UnsupportedRescue) as err:
        rescue_rules.validate_rescue('qemu', {}, {}, None, None, 'raw',
                               volume_backed=True)
    assert 'hw_rescue_bus' in err.value.format_message()
    # Legacy rescue stays available on lxc when the props are absent.
    assert rescue_rules.validate_rescue('lxc', {}, {}, None, None, 'raw') is None


def test_validate_with_image_meta_props_object():
    props = image_meta_obj.ImageMeta.from_dict(
        {'properties': {'hw_rescue_bus': 'scsi'}}).properties
    assert rescue_rules.validate_rescue('kvm', {}, props) == ('scsi', 'disk')
