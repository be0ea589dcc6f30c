"""Image-defined block device mappings: written by a volume-backed snapshot, read at boot."""

import json

from oslo_utils import strutils

from nova import exception

# What a mapping keeps in an image (upstream's get_image_mapping fields).
_IMAGE_FIELDS = ('source_type', 'destination_type', 'boot_index', 'device_name',
                 'delete_on_termination', 'volume_size', 'disk_bus', 'device_type',
                 'guest_format', 'tag', 'volume_type')


def snapshot_mapping(bdm, snapshot_id=None):
    """A BDM row as an image keeps it: a volume becomes its snapshot."""
    mapping = {key: bdm.get(key) for key in _IMAGE_FIELDS}
    mapping.update(snapshot_id=None, volume_id=None, image_id=None, no_device=None)
    if snapshot_id is not None:
        mapping.update(source_type='snapshot', snapshot_id=snapshot_id)
    return mapping


def _name(mapping):
    return (mapping.get('device_name') or '').rpartition('/')[2] or None


def from_image(image):
    """The image's own mappings (``block_device_mapping`` with ``bdm_v2``), or []."""
    raw = image.get('block_device_mapping')
    if not raw or not strutils.bool_from_string(image.get('bdm_v2'), default=False):
        return []
    try:
        mappings = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        raise exception.Invalid(reason='Image %s has an invalid block_device_mapping.'
                                % image.get('id'))
    if not isinstance(mappings, list) or not all(isinstance(m, dict) for m in mappings):
        raise exception.Invalid(reason='Image %s has an invalid block_device_mapping.'
                                % image.get('id'))
    return [{k: v for k, v in m.items() if v is not None}
            for m in mappings if not m.get('no_device')]


def merge(image, requested):
    """The request's mappings over the image's, as upstream: a requested device name
    replaces the image's mapping of that name, and a requested boot device the image's."""
    mappings = from_image(image)
    if not mappings:
        return list(requested)
    names = {_name(m) for m in requested} - {None}
    has_root = any(str(m.get('boot_index')) == '0' for m in requested)
    kept = [m for m in mappings if _name(m) not in names
            and not (has_root and str(m.get('boot_index')) == '0')]
    return kept + list(requested)
