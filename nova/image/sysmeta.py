"""Store an image's metadata in instance system metadata and read it back."""

SYSMETA_PREFIX = 'image_'

# The system_metadata value column holds at most this many bytes.
MAX_VALUE_BYTES = 255

# Image-level (not property) attributes that travel with the instance, so a
# rebuild, resize or rescue can apply the same minimums and formats later.
INHERITED_KEYS = ('min_ram', 'min_disk', 'disk_format', 'container_format')

# Properties holding large JSON documents: truncating them to 255 bytes
# would corrupt them, so they are never copied into system metadata.
SKIPPED_KEYS = ('mappings', 'block_device_mapping',
                'img_mappings', 'img_block_device_mapping')


def truncate_utf8(value, max_bytes=MAX_VALUE_BYTES):
    """Cut ``value`` to at most ``max_bytes`` UTF-8 bytes on a character boundary."""
    encoded = value.encode('utf-8')
    if len(encoded) <= max_bytes:
        return value
    # A byte prefix of valid UTF-8 can only be broken at its very end, so
    # dropping undecodable bytes removes just the split character.
    return encoded[:max_bytes].decode('utf-8', 'ignore')


def _to_sysmeta_value(value):
    return truncate_utf8(str(value))


def properties_to_sysmeta(image):
    """Return the ``image_*`` system metadata for an image.

    ``image`` is in our internal form: image-level attributes at the top
    and custom properties under ``'properties'``. Every value is
    stringified and truncated; ``None`` values are skipped.
    """
    sysmeta = {}
    for key, value in (image.get('properties') or {}).items():
        if value is None or key in SKIPPED_KEYS:
            continue
        sysmeta[SYSMETA_PREFIX + key] = _to_sysmeta_value(value)
    for key in INHERITED_KEYS:
        value = image.get(key)
        if value is not None:
            sysmeta[SYSMETA_PREFIX + key] = _to_sysmeta_value(value)
    return sysmeta


def sysmeta_to_image(sysmeta):
    """Rebuild the internal-form image dict from ``image_*`` system metadata.

    Keys without the prefix belong to other features and are ignored.
    """
    image = {}
    properties = {}
    for key, value in (sysmeta or {}).items():
        if value is None or not key.startswith(SYSMETA_PREFIX):
            continue
        name = key[len(SYSMETA_PREFIX):]
        if name in SKIPPED_KEYS:
            continue
        if name in INHERITED_KEYS:
            image[name] = value
        else:
            properties[name] = value
    image['properties'] = properties
    return image
