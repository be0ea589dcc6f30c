"""Image-defined block device mappings: what a snapshot writes, how a boot merges them."""

import json

import pytest

from nova import exception
from nova.compute import block_device, image_bdms

ROOT = {'source_type': 'volume', 'destination_type': 'volume', 'boot_index': 0,
        'device_name': '/dev/vda', 'delete_on_termination': True, 'volume_size': 1,
        'disk_bus': 'virtio', 'device_type': 'disk', 'guest_format': None, 'tag': 'root',
        'volume_type': None, 'volume_id': 'vol-1', 'uuid': 'bdm-1'}
SWAP = {'source_type': 'blank', 'destination_type': 'local', 'boot_index': None,
        'device_name': '/dev/vdb', 'delete_on_termination': True, 'volume_size': 1,
        'disk_bus': None, 'device_type': 'disk', 'guest_format': 'swap', 'tag': None,
        'volume_type': None, 'volume_id': None}


def _image(mappings, bdm_v2='True'):
    return {'id': 'img', 'block_device_mapping': json.dumps(mappings), 'bdm_v2': bdm_v2}


def test_a_volume_becomes_its_snapshot_and_other_mappings_stay():
    root = image_bdms.snapshot_mapping(ROOT, 'snap-1')
    assert root['source_type'] == 'snapshot' and root['snapshot_id'] == 'snap-1'
    assert root['volume_id'] is None and root['tag'] == 'root' and 'uuid' not in root
    swap = image_bdms.snapshot_mapping(SWAP)
    assert swap['source_type'] == 'blank' and swap['snapshot_id'] is None


def test_a_boot_from_the_image_is_volume_backed_from_the_snapshot():
    image = _image([image_bdms.snapshot_mapping(ROOT, 'snap-1'),
                    image_bdms.snapshot_mapping(SWAP)])
    rows, root = block_device.normalize(image_bdms.merge(image, []), 'img',
                                        {'root_gb': 0, 'ephemeral_gb': 0, 'swap': 1024})
    assert root['kind'] == 'volume' and root['image_ref'] == 'img'
    assert [(r['source_type'], r['snapshot_id'] if 'snapshot_id' in r else None)
            for r in rows] == [('snapshot', 'snap-1'), ('blank', None)]


def test_the_request_wins_by_device_name_and_boot_device():
    image = _image([image_bdms.snapshot_mapping(ROOT, 'snap-1'),
                    image_bdms.snapshot_mapping(SWAP)])
    mine = [{'source_type': 'volume', 'uuid': 'vol-9', 'boot_index': 0,
             'destination_type': 'volume'},
            {'source_type': 'blank', 'destination_type': 'local', 'device_name': 'vdb',
             'volume_size': 2}]
    assert image_bdms.merge(image, mine) == mine


def test_images_without_v2_mappings_add_nothing():
    assert image_bdms.merge({'id': 'img'}, [SWAP]) == [SWAP]
    assert image_bdms.merge(_image([ROOT], bdm_v2='False'), []) == []


@pytest.mark.parametrize('raw', ['{not json', '{"a": 1}', '[1, 2]'])
def test_a_broken_mapping_is_a_400_naming_the_image(raw):
    with pytest.raises(exception.Invalid, match='Image img has an invalid'):
        image_bdms.merge({'id': 'img', 'block_device_mapping': raw, 'bdm_v2': 'true'}, [])
