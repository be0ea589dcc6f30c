"""Block device mapping v2 validation: what may be the boot device."""

import pytest

from nova import exception
from nova.compute import block_device

FLAVOR = {'root_gb': 1, 'ephemeral_gb': 0, 'swap': 0}
IMAGE = '6f0e4a8e-2d5c-4b1a-9d7e-1c2b3a4d5e6f'


def _blank(dest, **extra):
    return dict({'source_type': 'blank', 'destination_type': dest, 'boot_index': '0'},
                **extra)


@pytest.mark.parametrize('image_ref', [IMAGE, ''])
def test_blank_volume_can_be_the_boot_device(image_ref):
    rows, root = block_device.normalize([_blank('volume', volume_size=1)], image_ref, FLAVOR)
    assert root['kind'] == 'volume' and root['image_id'] == (image_ref or None)
    assert [(r['source_type'], r['destination_type'], r['boot_index'], r['volume_size'])
            for r in rows] == [('blank', 'volume', 0, 1)]
    assert block_device.is_volume_backed(rows)


def test_blank_boot_volume_needs_a_size():
    with pytest.raises(exception.Invalid, match='volume_size is required'):
        block_device.normalize([_blank('volume')], IMAGE, FLAVOR)


def test_blank_local_disk_cannot_be_the_boot_device():
    with pytest.raises(exception.Invalid, match='blank local disk cannot be the boot'):
        block_device.normalize([_blank('local')], IMAGE, FLAVOR)


OTHER = '0c4d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f'
VOLUME = '0b5e2b0e-9c8e-4a51-a0a8-2b8d0b3c7e21'


@pytest.mark.parametrize('bdm,bdm_image', [
    ({'source_type': 'volume', 'uuid': VOLUME}, None),
    ({'source_type': 'snapshot', 'uuid': VOLUME}, None),
    ({'source_type': 'image', 'uuid': OTHER, 'volume_size': 1}, OTHER),
    ({'source_type': 'image', 'uuid': IMAGE, 'volume_size': 1}, None),
])
def test_volume_root_with_image_ref_is_made_from_the_mapping(bdm, bdm_image):
    # As upstream: the mapping's source makes the volume; imageRef is the image
    # the server records and takes its properties from.
    bdm = dict(bdm, destination_type='volume', boot_index=0)
    rows, root = block_device.normalize([bdm], IMAGE, FLAVOR)
    assert root['kind'] == 'volume' and root['image_ref'] == IMAGE
    assert root['image_id'] == IMAGE and root['bdm_image'] == bdm_image
    assert rows[0][bdm['source_type'] + '_id'] == bdm['uuid']
    assert block_device.is_volume_backed(rows)


def test_volume_root_without_image_ref_records_no_image():
    bdm = {'source_type': 'image', 'uuid': OTHER, 'volume_size': 1,
           'destination_type': 'volume', 'boot_index': 0}
    _rows, root = block_device.normalize([bdm], '', FLAVOR)
    assert root['image_ref'] == '' and root['image_id'] == OTHER and root['bdm_image'] is None


def test_local_root_is_built_from_image_ref():
    bdm = {'source_type': 'image', 'uuid': OTHER, 'destination_type': 'local',
           'boot_index': 0}
    _rows, root = block_device.normalize([bdm], IMAGE, FLAVOR)
    assert root == {'kind': 'image', 'image_id': IMAGE, 'bdm_image': OTHER}


def _row(dest, boot_index, **extra):
    return dict({'id': 1, 'source_type': 'volume', 'destination_type': dest,
                 'boot_index': boot_index, 'connection_info': None, 'device_name': '/dev/vda',
                 'disk_bus': None, 'device_type': 'disk', 'delete_on_termination': False,
                 'volume_id': None, 'attachment_id': None, 'guest_format': None,
                 'volume_size': 1}, **extra)


@pytest.mark.parametrize('rows,backed', [
    ([_row('volume', 0, connection_info='{"data": {}}')], True),
    # A boot volume not connected yet is still the boot device.
    ([_row('volume', 0, connection_info=None)], True),
    ([_row('volume', 1, connection_info='{"data": {}}')], False),
    ([_row('local', 0, source_type='image')], False),
    ([], False),
])
def test_driver_view_carries_the_one_volume_backed_decision(rows, backed):
    info = block_device.block_device_info(rows)
    assert info['volume_backed'] is backed
    assert info['volume_backed'] == block_device.is_volume_backed(rows)
