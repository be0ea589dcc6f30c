"""Tests for storing image metadata in instance system metadata."""

from nova.image import sysmeta


def test_prefix():
    assert sysmeta.SYSMETA_PREFIX == 'image_'


def test_properties_and_image_level_keys_are_stored():
    image = {
        'id': 'ignored-not-inherited',
        'min_disk': 10,
        'min_ram': 512,
        'disk_format': 'qcow2',
        'container_format': 'bare',
        'properties': {'hw_disk_bus': 'virtio', 'hw_pmu': True,
                       'hw_numa_mem.0': 1024},
    }
    assert sysmeta.properties_to_sysmeta(image) == {
        'image_min_disk': '10',
        'image_min_ram': '512',
        'image_disk_format': 'qcow2',
        'image_container_format': 'bare',
        'image_hw_disk_bus': 'virtio',
        'image_hw_pmu': 'True',
        'image_hw_numa_mem.0': '1024',
    }


def test_none_values_are_skipped():
    image = {'min_disk': None, 'properties': {'os_distro': None, 'a': 'b'}}
    assert sysmeta.properties_to_sysmeta(image) == {'image_a': 'b'}


def test_large_json_properties_are_skipped():
    props = {key: '[{"a": "b"}]' for key in sysmeta.SKIPPED_KEYS}
    assert sysmeta.properties_to_sysmeta({'properties': props}) == {}


def test_truncates_ascii_to_255_bytes():
    stored = sysmeta.properties_to_sysmeta(
        {'properties': {'os_command_line': 'x' * 300}})
    assert stored['image_os_command_line'] == 'x' * 255


def test_truncation_never_splits_a_two_byte_character():
    # 200 x 'é' is 400 bytes; 127 of them (254 bytes) fit, half of the
    # 128th would be the 255th byte and must be dropped.
    stored = sysmeta.properties_to_sysmeta(
        {'properties': {'os_command_line': 'é' * 200}})
    value = stored['image_os_command_line']
    assert value == 'é' * 127
    assert len(value.encode('utf-8')) == 254


def test_truncation_never_splits_a_four_byte_character():
    value = sysmeta.truncate_utf8('a' + '\U0001F600' * 100)
    assert value == 'a' + '\U0001F600' * 63
    assert len(value.encode('utf-8')) == 253


def test_truncation_keeps_values_that_fit_exactly():
    assert sysmeta.truncate_utf8('é' * 127 + 'x') == 'é' * 127 + 'x'
    assert sysmeta.truncate_utf8('') == ''


def test_sysmeta_to_image_is_the_inverse():
    image = {
        'min_disk': '10', 'min_ram': '512', 'disk_format': 'raw',
        'container_format': 'bare',
        'properties': {'hw_disk_bus': 'scsi', 'os_command_line': 'quiet'},
    }
    assert sysmeta.sysmeta_to_image(
        sysmeta.properties_to_sysmeta(image)) == image


def test_sysmeta_to_image_ignores_other_keys_and_none():
    stored = {'image_hw_disk_bus': 'ide', 'image_os_distro': None,
              'vtpm_secret_uuid': 'abc', 'image_img_mappings': '[]',
              'image_min_disk': '1'}
    assert sysmeta.sysmeta_to_image(stored) == {
        'min_disk': '1', 'properties': {'hw_disk_bus': 'ide'}}


def test_sysmeta_to_image_of_nothing():
    assert sysmeta.sysmeta_to_image(None) == {'properties': {}}
    assert sysmeta.sysmeta_to_image({}) == {'properties': {}}
