"""Tests for ImageMeta and ImageMetaProps: parsing, validation and round trips."""

import datetime
import json
import types

import pytest

from nova import exception
from nova.image import sysmeta
from nova.objects import base, fields, image_meta
from nova.objects.image_meta import ImageMeta, ImageMetaProps

UUID1 = '6b0d6d8e-5a53-4b8a-9c2a-3c1f0e4f1a01'
UUID2 = '7c1e7e9f-6b64-4c9b-8d3b-4d2a1f5a2b02'

# One valid, already-canonical Glance-style value for every property, so
# from_dict followed by to_dict must give this dict back unchanged.
SAMPLE = {
    'hw_architecture': 'x86_64',
    'hw_emulation_architecture': 'aarch64',
    'hw_auto_disk_config': 'disabled',
    'hw_boot_menu': 'True',
    'hw_cdrom_bus': 'sata',
    'hw_cpu_cores': '2',
    'hw_cpu_sockets': '1',
    'hw_cpu_threads': '2',
    'hw_cpu_max_cores': '4',
    'hw_cpu_max_sockets': '2',
    'hw_cpu_max_threads': '2',
    'hw_cpu_policy': 'dedicated',
    'hw_cpu_thread_policy': 'isolate',
    'hw_cpu_realtime_mask': '^0-1',
    'hw_device_id': '2',
    'hw_disk_bus': 'virtio',
    'hw_disk_type': 'preallocated',
    'hw_ephemeral_encryption': 'True',
    'hw_ephemeral_encryption_format': 'luks',
    'hw_ephemeral_encryption_secret_uuid': UUID1,
    'hw_firmware_stateless': 'False',
    'hw_firmware_type': 'uefi',
    'hw_floppy_bus': 'fdc',
    'hw_input_bus': 'virtio',
    'hw_ipxe_boot': 'False',
    'hw_locked_memory': 'True',
    'hw_machine_type': 'q35',
    'hw_maxphysaddr_bits': '42',
    'hw_maxphysaddr_mode': 'emulate',
    'hw_mem_encryption': 'True',
    'hw_mem_encryption_model': 'amd-sev-es',
    'hw_mem_page_size': 'large',
    'hw_numa_nodes': '2',
    'hw_numa_cpus.0': '0-1,4',
    'hw_numa_cpus.1': '2-3',
    'hw_numa_mem.0': '1024',
    'hw_numa_mem.1': '2048',
    'hw_pci_numa_affinity_policy': 'socket',
    'hw_pmu': 'False',
    'hw_pointer_model': 'usbtablet',
    'hw_qemu_guest_agent': 'True',
    'hw_redirected_usb_ports': '3',
    'hw_rescue_bus': 'usb',
    'hw_rescue_device': 'cdrom',
    'hw_rng_model': 'virtio',
    'hw_scsi_model': 'virtio-scsi',
    'hw_serial_port_count': '2',
    'hw_sound_model': 'ich9',
    'hw_time_hpet': 'True',
    'hw_tpm_model': 'tpm-crb',
    'hw_tpm_secret_security': 'host',
    'hw_tpm_version': '2.0',
    'hw_usb_model': 'qemu-xhci',
    'hw_video_model': 'virtio',
    'hw_video_ram': '64',
    'hw_vif_model': 'igb',
    'hw_vif_multiqueue_enabled': 'True',
    'hw_viommu_model': 'auto',
    'hw_virtio_packed_ring': 'True',
    'hw_vm_mode': 'hvm',
    'hw_watchdog_action': 'reset',
    'img_bdm_v2': 'True',
    'img_bittorrent': 'False',
    'img_block_device_mapping':
        '[{"boot_index": "0", "source_type": "image"}]',
    'img_cache_in_nova': 'True',
    'img_compression_level': '6',
    'img_config_drive': 'mandatory',
    'img_hide_hypervisor_id': 'True',
    'img_hv_requested_version': '>=2.6',
    'img_hv_type': 'kvm',
    'img_linked_clone': 'False',
    'img_mappings': '[{"device": "/dev/vdb", "virtual": "ephemeral0"}]',
    'img_owner_id': 'project-a',
    'img_root_device_name': '/dev/vda',
    'img_signature': 'c2lnbmF0dXJl',
    'img_signature_certificate_uuid': UUID2,
    'img_signature_hash_method': 'SHA-256',
    'img_signature_key_type': 'RSA-PSS',
    'img_use_agent': 'False',
    'img_version': '1',
    'os_admin_user': 'root',
    'os_command_line': 'console=ttyS0 quiet',
    'os_distro': 'ubuntu',
    'os_require_quiesce': 'True',
    'os_secure_boot': 'required',
    'os_skip_agent_inject_files_at_boot': 'True',
    'os_skip_agent_inject_ssh': 'False',
    'os_type': 'linux',
    'trait:HW_CPU_X86_AVX2': 'required',
    'trait:STORAGE_DISK_SSD': 'required',
}


def _fields_of(field_type):
    return sorted(name for name, field in ImageMetaProps.fields.items()
                  if isinstance(field, field_type))


ENUM_FIELDS = _fields_of(fields.BaseEnumField)
INT_FIELDS = _fields_of(fields.IntegerField)
BOOL_FIELDS = _fields_of(fields.FlexibleBooleanField)


def _message(err):
    return err.value.format_message()


# Enums -------------------------------------------------------------------

@pytest.mark.parametrize('key', ENUM_FIELDS)
@pytest.mark.parametrize('strict', [False, True])
def test_every_enum_rejects_bad_value_listing_allowed(key, strict):
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMetaProps.from_dict({key: 'bogus-value'}, strict=strict)
    message = _message(err)
    assert message.startswith('Invalid image property %s=bogus-value: '
                              'must be one of ' % key)
    for allowed in ImageMetaProps.fields[key]._type.valid_values:
        assert allowed in message
    assert err.value.code == 400


def test_enum_error_message_exact():
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMetaProps.from_dict({'hw_disk_bus': 'foo'})
    assert _message(err) == (
        'Invalid image property hw_disk_bus=foo: must be one of virtio, ide, '
        'scsi, usb, sata, fdc, xen, lxc, uml')


def test_enum_canonicalizes_case_where_upstream_does():
    props = ImageMetaProps.from_dict({'hw_architecture': 'AMD64',
                                      'os_type': 'Linux'})
    assert props.hw_architecture == 'x86_64'
    assert props.os_type == 'linux'


# Booleans and integers ---------------------------------------------------

@pytest.mark.parametrize('key', BOOL_FIELDS)
def test_flexible_booleans(key):
    for spelling, expected in [('yes', True), ('NO', False), ('On', True),
                               ('off', False), ('1', True), ('0', False),
                               ('y', True), ('n', False), ('TRUE', True),
                               ('false', False), (True, True)]:
        props = ImageMetaProps.from_dict({key: spelling})
        assert getattr(props, key) is expected
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMetaProps.from_dict({key: 'maybe'})
    assert 'must be a boolean' in _message(err)


@pytest.mark.parametrize('key', INT_FIELDS)
def test_integers(key):
    assert getattr(ImageMetaProps.from_dict({key: '12'}), key) == 12
    assert getattr(ImageMetaProps.from_dict({key: 7}), key) == 7
    for bad in ('abc', '1.5', ''):
        with pytest.raises(exception.InvalidImageProperty) as err:
            ImageMetaProps.from_dict({key: bad})
        assert _message(err) == (
            'Invalid image property %s=%s: must be an integer' % (key, bad))


def test_uuid_fields_are_validated():
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMetaProps.from_dict({'img_signature_certificate_uuid': 'nope'})
    assert 'must be a UUID' in _message(err)


def test_version_predicate_is_validated():
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMetaProps.from_dict({'img_hv_requested_version': '2.6'})
    assert 'version predicate' in _message(err)


# NUMA ----------------------------------------------------------------------

def test_numa_indexed_keys_parse():
    props = ImageMetaProps.from_dict({
        'hw_numa_nodes': '2',
        'hw_numa_cpus.0': '0-1,3', 'hw_numa_cpus.1': '2,4-5,^5',
        'hw_numa_mem.0': '1024', 'hw_numa_mem.1': '512',
    })
    assert props.hw_numa_cpus == [{0, 1, 3}, {2, 4}]
    assert props.hw_numa_mem == [1024, 512]


def test_numa_indexed_keys_round_trip():
    given = {'hw_numa_cpus.0': '0-3', 'hw_numa_cpus.1': '4,6,8-9',
             'hw_numa_cpus.2': '5', 'hw_numa_mem.0': '1024',
             'hw_numa_mem.1': '2048', 'hw_numa_mem.2': '4096'}
    assert ImageMetaProps.from_dict(given).to_dict() == given


def test_numa_accepts_typed_values():
    props = ImageMetaProps.from_dict({'hw_numa_cpus.0': [0, 1],
                                      'hw_numa_mem.0': 256})
    assert props.hw_numa_cpus == [{0, 1}]
    assert props.hw_numa_mem == [256]


def test_numa_lenient_stops_at_first_gap_like_upstream():
    props = ImageMetaProps.from_dict({'hw_numa_cpus.0': '0',
                                      'hw_numa_cpus.2': '2',
                                      'hw_numa_mem.1': '512'})
    assert props.hw_numa_cpus == [{0}]
    assert not props.obj_attr_is_set('hw_numa_mem')


def test_numa_strict_rejects_gaps():
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMetaProps.from_dict({'hw_numa_mem.0': '1', 'hw_numa_mem.2': '2'},
                                 strict=True)
    assert _message(err).startswith('Invalid image property hw_numa_mem.2=2')


def test_numa_strict_rejects_too_many_nodes():
    assert not ImageMetaProps.is_valid_key('hw_numa_mem.128')
    props = {'hw_numa_mem.%d' % i: '1' for i in range(129)}
    with pytest.raises(exception.InvalidImageProperty):
        ImageMetaProps.from_dict(props, strict=True)


@pytest.mark.parametrize('key, value, reason', [
    ('hw_numa_cpus.0', 'x', 'must be a CPU list such as 0-1,3'),
    ('hw_numa_cpus.0', '3-1', 'must be a CPU list such as 0-1,3'),
    ('hw_numa_cpus.0', '1,^1', 'must name at least one CPU'),
    ('hw_numa_mem.0', 'lots', 'must be an integer (MiB)'),
])
def test_numa_bad_values(key, value, reason):
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMetaProps.from_dict({key: value})
    assert _message(err) == 'Invalid image property %s=%s: %s' % (
        key, value, reason)


def test_bare_list_field_names_need_their_key_pattern():
    for key, value in [('hw_numa_cpus', '0-1'), ('hw_numa_mem', '512'),
                       ('traits_required', 'CUSTOM_A')]:
        assert ImageMetaProps.from_dict({key: value}).to_dict() == {}
        with pytest.raises(exception.InvalidImageProperty) as err:
            ImageMetaProps.from_dict({key: value}, strict=True)
        assert 'use ' in _message(err)
    typed = ImageMetaProps.from_dict({'hw_numa_mem': [512],
                                      'traits_required': ['CUSTOM_A']})
    assert typed.to_dict() == {'hw_numa_mem.0': '512',
                               'trait:CUSTOM_A': 'required'}


def test_cpu_spec_helpers():
    assert image_meta.parse_cpu_spec('0-3,^2, 7') == {0, 1, 3, 7}
    assert image_meta.format_cpu_spec({0, 1, 3, 7, 8, 9}) == '0-1,3,7-9'
    assert image_meta.format_cpu_spec({5}) == '5'


# Aliases ---------------------------------------------------------------

def _sample_value(field_name):
    return SAMPLE[field_name]


@pytest.mark.parametrize('alias', sorted(image_meta.LEGACY_ALIASES))
def test_alias_maps_to_canonical_field(alias):
    target = image_meta.LEGACY_ALIASES[alias]
    value = _sample_value(target)
    via_alias = ImageMetaProps.from_dict({alias: value}, strict=True)
    assert via_alias.to_dict() == {target: value}
    assert via_alias.get(alias) == via_alias.get(target)


def test_hw_os_command_line_is_an_alias():
    props = ImageMetaProps.from_dict(
        {'hw_os_command_line': 'console=ttyS0'}, strict=True)
    assert props.os_command_line == 'console=ttyS0'
    assert props.to_dict() == {'os_command_line': 'console=ttyS0'}
    assert 'hw_os_command_line' in ImageMetaProps.valid_keys()


def test_canonical_name_wins_over_alias_whatever_the_order():
    for given in ({'architecture': 'i686', 'hw_architecture': 'x86_64'},
                  {'hw_architecture': 'x86_64', 'architecture': 'i686'}):
        assert ImageMetaProps.from_dict(given).hw_architecture == 'x86_64'


def test_alias_error_names_the_key_given():
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMetaProps.from_dict({'vm_mode': 'bogus'})
    assert _message(err).startswith('Invalid image property vm_mode=bogus')


@pytest.mark.parametrize('adapter, expected', [
    ('ide', {'hw_disk_bus': 'ide'}),
    ('lsiLogicsas', {'hw_disk_bus': 'scsi', 'hw_scsi_model': 'lsisas1068'}),
    ('', {}),
])
def test_vmware_adaptertype(adapter, expected):
    props = ImageMetaProps.from_dict({'vmware_adaptertype': adapter})
    assert props.to_dict() == expected


# Unknown keys, traits, JSON fields ----------------------------------------

def test_unknown_keys_ignored_unless_strict():
    props = ImageMetaProps.from_dict({'custom_thing': 'x', 'hw_pmu': 'y'})
    assert props.to_dict() == {'hw_pmu': 'True'}
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMetaProps.from_dict({'custom_thing': 'x'}, strict=True)
    assert _message(err) == (
        'Invalid image property custom_thing=x: unknown image property')


def test_strict_for_some_keys_only():
    # A user's overrides among an image's properties: only the given keys are held to it.
    props = ImageMetaProps.from_dict({'custom_thing': 'x', 'hw_disk_bus': 'virtio',
                                      'trait:lower': 'required'}, strict={'hw_disk_bus'})
    assert props.to_dict() == {'hw_disk_bus': 'virtio', 'trait:lower': 'required'}
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMetaProps.from_dict({'custom_thing': 'x', 'other': 'y'}, strict={'other'})
    assert _message(err) == 'Invalid image property other=y: unknown image property'
    with pytest.raises(exception.InvalidImageProperty):
        ImageMetaProps.from_dict({'hw_numa_cpus.1': '0'}, strict={'hw_numa_cpus.1'})
    assert ImageMetaProps.from_dict({'hw_numa_cpus.1': '0'}, strict={'x'}).to_dict() == {}


def test_none_values_mean_unset():
    props = ImageMetaProps.from_dict({'hw_disk_bus': None})
    assert props.to_dict() == {}


def test_traits():
    props = ImageMetaProps.from_dict({'trait:CUSTOM_B': 'required',
                                      'trait:CUSTOM_A': 'required',
                                      'trait:CUSTOM_C': 'forbidden'})
    assert props.traits_required == ['CUSTOM_A', 'CUSTOM_B']
    with pytest.raises(exception.InvalidImageProperty):
        ImageMetaProps.from_dict({'trait:CUSTOM_C': 'forbidden'}, strict=True)
    with pytest.raises(exception.InvalidImageProperty):
        ImageMetaProps.from_dict({'trait:lower': 'required'}, strict=True)


def test_json_fields_parse_text_and_reject_bad_json():
    props = ImageMetaProps.from_dict(
        {'block_device_mapping': '[{"device_name": "/dev/vda"}]'})
    assert props.img_block_device_mapping == [{'device_name': '/dev/vda'}]
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMetaProps.from_dict({'img_mappings': '[{'})
    assert 'must be a JSON list of objects' in _message(err)


# Keys ------------------------------------------------------------------

def test_valid_keys():
    keys = ImageMetaProps.valid_keys()
    assert isinstance(keys, frozenset)
    assert 'hw_disk_bus' in keys and 'architecture' in keys
    assert 'hw_numa_cpus' not in keys and 'traits_required' not in keys
    for key in SAMPLE:
        assert ImageMetaProps.is_valid_key(key), key
    assert not ImageMetaProps.is_valid_key('hw_numa_cpus')
    assert not ImageMetaProps.is_valid_key('hw_numa_cpus.01')
    assert not ImageMetaProps.is_valid_key('nonsense')


# Round trips -------------------------------------------------------------

def test_sample_sets_every_field():
    props = ImageMetaProps.from_dict(SAMPLE, strict=True)
    unset = [name for name in ImageMetaProps.fields
             if not props.obj_attr_is_set(name)]
    assert unset == []


def test_round_trip_large_property_set():
    props = ImageMetaProps.from_dict(SAMPLE, strict=True)
    assert props.to_dict() == SAMPLE
    again = ImageMetaProps.from_dict(props.to_dict(), strict=True)
    assert again.to_dict() == SAMPLE
    assert all(isinstance(v, str) for v in props.to_dict().values())


def test_to_dict_serialises_values_as_documented():
    props = ImageMetaProps.from_dict({'hw_pmu': 'yes', 'hw_video_ram': 8,
                                      'img_mappings': [{'a': 'b'}]})
    assert props.to_dict() == {'hw_pmu': 'True', 'hw_video_ram': '8',
                               'img_mappings': '[{"a": "b"}]'}


def test_get():
    props = ImageMetaProps.from_dict({'hw_disk_bus': 'scsi'})
    assert props.get('hw_disk_bus') == 'scsi'
    assert props.get('hw_cdrom_bus') is None
    assert props.get('hw_cdrom_bus', 'ide') == 'ide'
    assert props.get('not_a_field', 'x') == 'x'


# normalize_props ---------------------------------------------------------

def test_normalize_props_returns_canonical_strings():
    assert image_meta.normalize_props({
        'hw_os_command_line': 'console=ttyS0', 'hw_numa_nodes': '2',
        'hw_pmu': 'yes', 'architecture': 'AMD64',
    }) == {'os_command_line': 'console=ttyS0', 'hw_numa_nodes': '2',
           'hw_pmu': 'True', 'hw_architecture': 'x86_64'}


def test_normalize_props_requires_strings():
    with pytest.raises(exception.InvalidImageProperty) as err:
        image_meta.normalize_props({'hw_numa_nodes': 2})
    assert _message(err) == (
        'Invalid image property hw_numa_nodes=2: value must be a string')


@pytest.mark.parametrize('value', ['a\nb', 'x\x00', 'say "hi"', "it's", 'a\\b', '`id`',
                                   '\x7f'])
def test_normalize_props_refuses_control_characters_and_quotes(value):
    with pytest.raises(exception.InvalidImageProperty) as err:
        image_meta.normalize_props({'os_command_line': value})
    assert 'control characters and quotes' in _message(err)


def test_normalize_props_rejects_unknown_and_bad_values():
    with pytest.raises(exception.InvalidImageProperty):
        image_meta.normalize_props({'nope': 'x'})
    with pytest.raises(exception.InvalidImageProperty):
        image_meta.normalize_props({'hw_disk_bus': 'floppy'})
    assert image_meta.normalize_props({'nope': 'x'}, strict=False) == {}


# ImageMeta -----------------------------------------------------------------

GLANCE_V2_IMAGE = {
    'id': UUID1,
    'name': 'cirros',
    'status': 'active',
    'visibility': 'public',
    'protected': False,
    'checksum': 'ee1eca47dc88f4879d8a229cc70a07c6',
    'os_hash_algo': 'sha512',
    'os_hash_value': 'abc123',
    'owner': 'project-a',
    'size': 13287936,
    'virtual_size': None,
    'container_format': 'bare',
    'disk_format': 'qcow2',
    'created_at': '2024-01-02T03:04:05Z',
    'updated_at': '2024-01-02T03:04:06Z',
    'tags': ['tag1'],
    'min_ram': 0,
    'min_disk': 1,
    'self': '/v2/images/%s' % UUID1,
    'file': '/v2/images/%s/file' % UUID1,
    'schema': '/v2/schemas/image',
    'locations': [],
    'os_hidden': False,
    'stores': 'file',
    # custom properties sit beside the standard attributes in Glance v2
    'hw_disk_bus': 'scsi',
    'hw_scsi_model': 'virtio-scsi',
    'architecture': 'x86_64',
    'my_own_property': 'whatever',
}


def test_image_meta_from_glance_v2_image():
    meta = ImageMeta.from_dict(GLANCE_V2_IMAGE)
    assert meta.id == UUID1
    assert meta.name == 'cirros'
    assert meta.protected is False
    assert meta.size == 13287936
    assert meta.virtual_size is None
    assert meta.min_disk == 1
    assert meta.os_hash_algo == 'sha512'
    assert meta.tags == ['tag1']
    assert meta.created_at == datetime.datetime(
        2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    assert meta.properties.to_dict() == {
        'hw_disk_bus': 'scsi', 'hw_scsi_model': 'virtio-scsi',
        'hw_architecture': 'x86_64'}


def test_image_meta_from_internal_form_nested_wins():
    meta = ImageMeta.from_dict({'min_ram': '512', 'hw_disk_bus': 'ide',
                                'properties': {'hw_disk_bus': 'virtio'}})
    assert meta.min_ram == 512
    assert meta.properties.get('hw_disk_bus') == 'virtio'


def test_image_meta_from_empty():
    meta = ImageMeta.from_dict(None)
    assert meta.properties.to_dict() == {}
    assert not meta.obj_attr_is_set('id')


def test_image_meta_bad_known_value_raises():
    with pytest.raises(exception.InvalidImageProperty) as err:
        ImageMeta.from_dict({'min_disk': 'big'})
    assert _message(err) == (
        'Invalid image property min_disk=big: must be an integer')


def test_image_meta_from_instance():
    image = {'min_disk': 5, 'disk_format': 'raw',
             'properties': {'hw_disk_bus': 'scsi',
                            'os_command_line': 'é' * 200}}
    system_metadata = sysmeta.properties_to_sysmeta(image)
    system_metadata['unrelated'] = 'x'
    instance = types.SimpleNamespace(system_metadata=system_metadata,
                                     image_ref=UUID2)
    meta = ImageMeta.from_instance(instance)
    assert meta.id == UUID2
    assert meta.min_disk == 5
    assert meta.disk_format == 'raw'
    assert meta.properties.hw_disk_bus == 'scsi'
    assert meta.properties.os_command_line == 'é' * 127


def test_image_meta_from_instance_without_image():
    instance = types.SimpleNamespace(system_metadata={}, image_ref='')
    meta = ImageMeta.from_instance(instance)
    assert not meta.obj_attr_is_set('id')
    assert meta.properties.to_dict() == {}


# Serialization -------------------------------------------------------------

def test_props_serializer_round_trip():
    serializer = base.NovaObjectSerializer()
    props = ImageMetaProps.from_dict(SAMPLE)
    primitive = serializer.serialize_entity(None, props)
    # What crosses RPC must survive JSON.
    primitive = json.loads(json.dumps(primitive))
    assert primitive['nova_object.name'] == 'ImageMetaProps'
    assert primitive['nova_object.version'] == ImageMetaProps.VERSION
    back = serializer.deserialize_entity(None, primitive)
    assert isinstance(back, ImageMetaProps)
    assert back.to_dict() == SAMPLE


def _canonical(primitive):
    """Sort every 'nova_object.changes' list: it comes from a set."""
    if isinstance(primitive, dict):
        out = {k: _canonical(v) for k, v in primitive.items()}
        if 'nova_object.changes' in out:
            out['nova_object.changes'] = sorted(out['nova_object.changes'])
        return out
    if isinstance(primitive, list):
        return [_canonical(v) for v in primitive]
    return primitive


def test_image_meta_primitive_round_trip():
    meta = ImageMeta.from_dict(dict(GLANCE_V2_IMAGE, **SAMPLE))
    primitive = json.loads(json.dumps(meta.obj_to_primitive()))
    back = ImageMeta.obj_from_primitive(primitive)
    assert back.properties.to_dict() == SAMPLE
    assert back.created_at == meta.created_at
    assert back.virtual_size is None
    assert _canonical(back.obj_to_primitive()) == _canonical(
        meta.obj_to_primitive())
