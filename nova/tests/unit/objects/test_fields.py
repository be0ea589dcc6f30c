"""Tests for the enum and field types in nova.objects.fields."""

import pytest

from nova.objects import fields

ENUMS = sorted(
    (cls for cls in vars(fields).values()
     if isinstance(cls, type) and issubclass(cls, fields.BaseNovaEnum)
     and cls.ALL),
    key=lambda cls: cls.__name__)


@pytest.mark.parametrize('enum_cls', ENUMS, ids=lambda c: c.__name__)
def test_enum_accepts_every_listed_value(enum_cls):
    enum = enum_cls()
    for value in enum_cls.ALL:
        assert enum.coerce(None, 'attr', value) == value


@pytest.mark.parametrize('enum_cls', ENUMS, ids=lambda c: c.__name__)
def test_enum_rejects_bad_value_listing_allowed_values(enum_cls):
    with pytest.raises(ValueError) as err:
        enum_cls().coerce(None, 'attr', 'no-such-value')
    message = str(err.value)
    assert message.startswith('must be one of ')
    for value in enum_cls.ALL:
        assert value in message


def test_disk_bus_values_and_order():
    assert fields.DiskBus.ALL == ('virtio', 'ide', 'scsi', 'usb', 'sata',
                                  'fdc', 'xen', 'lxc', 'uml')
    assert fields.BlockDeviceBus is fields.DiskBus


def test_small_enums_have_upstream_values():
    assert fields.BlockDeviceType.ALL == ('disk', 'cdrom', 'floppy', 'fs',
                                          'lun')
    assert fields.FirmwareType.ALL == ('bios', 'uefi')
    assert fields.SecureBoot.ALL == ('required', 'disabled', 'optional')
    assert fields.TPMVersion.ALL == ('1.2', '2.0')


@pytest.mark.parametrize('enum_cls, given, expected', [
    (fields.Architecture, 'AMD64', 'x86_64'),
    (fields.Architecture, 'i386', 'i686'),
    (fields.Architecture, 'x86_32', 'i686'),
    (fields.Architecture, 'AArch64', 'aarch64'),
    (fields.HVType, 'xapi', 'xen'),
    (fields.HVType, 'KVM', 'kvm'),
    (fields.VMMode, 'pv', 'xen'),
    (fields.VMMode, 'HV', 'hvm'),
    (fields.VMMode, 'baremetal', 'hvm'),
    (fields.OSType, 'Windows', 'windows'),
    (fields.SCSIModel, 'lsiLogicsas', 'lsisas1068'),
    (fields.SCSIModel, 'paravirtual', 'vmpvscsi'),
    (fields.VIFModel, 'VirtualE1000', 'e1000'),
    (fields.VIFModel, 'virtualvmxnet3', 'vmxnet3'),
])
def test_enum_legacy_spellings_are_canonicalized(enum_cls, given, expected):
    assert enum_cls().coerce(None, 'attr', given) == expected


def test_case_sensitive_enum_rejects_other_case():
    with pytest.raises(ValueError):
        fields.DiskBus().coerce(None, 'attr', 'VIRTIO')


def test_enum_accepts_number_for_numeric_value():
    assert fields.TPMVersion().coerce(None, 'attr', 2.0) == '2.0'


@pytest.mark.parametrize('value', [
    'true', 'True', 'TRUE', 'yes', 'Yes', 'on', 'ON', '1', 'y', 'Y', 't',
    ' true ', True, 1])
def test_flexible_boolean_true_spellings(value):
    assert fields.FlexibleBoolean().coerce(None, 'attr', value) is True


@pytest.mark.parametrize('value', [
    'false', 'False', 'FALSE', 'no', 'No', 'off', 'OFF', '0', 'n', 'N', 'f',
    False, 0])
def test_flexible_boolean_false_spellings(value):
    assert fields.FlexibleBoolean().coerce(None, 'attr', value) is False


@pytest.mark.parametrize('value', ['maybe', '', 'ture', '2', 2, 1.5, None,
                                   []])
def test_flexible_boolean_rejects_other_values(value):
    with pytest.raises(ValueError) as err:
        fields.FlexibleBoolean().coerce(None, 'attr', value)
    assert 'must be a boolean' in str(err.value)


def test_uuid_field_validates():
    uuid_type = fields.UUID()
    value = 'F5B4C2A0-2E3A-4C3D-8E63-3D4D2B5C1A10'
    assert uuid_type.coerce(None, 'attr', value) == value.lower()
    with pytest.raises(ValueError) as err:
        uuid_type.coerce(None, 'attr', 'not-a-uuid')
    assert str(err.value) == 'must be a UUID'
