"""Block device mapping v2: validation on create, and the driver's block_device_info."""

import json

from oslo_utils import strutils

from nova import exception

SOURCES = ('image', 'blank', 'volume', 'snapshot')


def _invalid(reason):
    return exception.Invalid(reason=reason)


def _boot_index(value):
    if value is None or value == '':
        return None
    try:
        index = int(value)
    except (TypeError, ValueError):
        raise _invalid('Invalid boot_index %r.' % (value,))
    return index if index >= 0 else None


def _size(bdm, required):
    value = bdm.get('volume_size')
    if value in (None, ''):
        if required:
            raise _invalid('volume_size is required for a %s/%s block device mapping.'
                           % (bdm.get('source_type'), bdm.get('destination_type')))
        return None
    return int(value)


def normalize(bdms, image_ref, flavor):
    """Validate BDM v2 requests; return (rows, root) with nothing created yet.

    ``rows`` are block_device_mapping values to store; ``root`` says what
    the instance boots from: {'kind': 'image'|'volume', 'image_id': ...}.
    Upstream's rules: one boot_index 0, local disks only from images or
    blanks, sizes within the flavor.
    """
    rows = [_row(raw) for raw in bdms or ()]
    roots = [r for r in rows if r['boot_index'] == 0]
    if len(roots) > 1:
        raise _invalid('Boot sequence for the instance and image/block device mapping '
                       'combination is not valid: more than one boot_index 0.')
    _check_local_sizes(rows, flavor)
    if roots:
        return rows, _root(roots[0], image_ref)
    if not image_ref:
        raise _invalid('Missing imageRef attribute')
    rows.insert(0, {'source_type': 'image', 'destination_type': 'local',
                    'image_id': image_ref, 'boot_index': 0, 'device_type': 'disk',
                    'delete_on_termination': True,
                    'volume_size': flavor['root_gb'] or None})
    return rows, {'kind': 'image', 'image_id': image_ref, 'bdm_image': None}


def _row(raw):
    """One requested mapping, checked, as the values to store."""
    source = raw.get('source_type')
    dest = raw.get('destination_type') or ('local' if source in ('image', 'blank')
                                            else 'volume')
    if source not in SOURCES:
        raise _invalid('Invalid source_type %r.' % (source,))
    row = {
        'source_type': source, 'destination_type': dest,
        'boot_index': _boot_index(raw.get('boot_index')),
        'device_name': raw.get('device_name'),
        'device_type': raw.get('device_type') or 'disk',
        'disk_bus': raw.get('disk_bus'),
        'guest_format': raw.get('guest_format'),
        'delete_on_termination': strutils.bool_from_string(
            raw.get('delete_on_termination', dest == 'local'), strict=True),
        'volume_type': raw.get('volume_type'),
        'tag': raw.get('tag'),
    }
    uuid = raw.get('uuid') or raw.get('image_id') or raw.get('volume_id') or \
        raw.get('snapshot_id')
    if source in ('image', 'volume', 'snapshot') and not uuid:
        raise _invalid('A %s block device mapping needs a uuid.' % source)
    if source != 'blank':
        row[source + '_id'] = uuid
    if dest == 'local':
        if source not in ('image', 'blank'):
            raise _invalid('Mapping a %s to a local disk is not supported.' % source)
        if source == 'image' and row['boot_index'] != 0:
            raise _invalid('An image can only be a local disk as the root (boot_index 0).')
        row['volume_size'] = _size(raw, required=False)
    else:
        row['volume_size'] = _size(raw, required=source in ('image', 'blank'))
    return row


def _root(root, image_ref):
    """What the instance boots from, given its boot_index 0 mapping.

    ``image_id`` is the image the instance records (``image_ref``) and takes
    its properties from; ``bdm_image`` an image the mapping names besides,
    which must exist too. As upstream, when the request names ``imageRef``
    as well: a local root disk is built from ``imageRef`` (the mapping's
    image is only checked); a volume root is made from the mapping's source
    (its image, snapshot or volume, or blank), and ``imageRef`` only lends
    the server its image properties and the image it shows.
    """
    if root['source_type'] == 'blank' and root['destination_type'] == 'local':
        raise _invalid('A blank local disk cannot be the boot device.')
    mapped = root.get('image_id')
    if root['destination_type'] == 'local':
        return {'kind': 'image', 'image_id': image_ref or mapped,
                'bdm_image': mapped if image_ref and mapped != image_ref else None}
    return {'kind': 'volume', 'bdm': root, 'image_id': image_ref or mapped,
            'bdm_image': mapped if image_ref and mapped and mapped != image_ref else None,
            'image_ref': image_ref}


def _check_local_sizes(rows, flavor):
    blanks = [r for r in rows if r['source_type'] == 'blank' and
              r['destination_type'] == 'local']
    swaps = [r for r in blanks if r['guest_format'] == 'swap']
    ephemerals = [r for r in blanks if r['guest_format'] != 'swap']
    if len(swaps) > 1:
        raise _invalid('Only one swap block device mapping is allowed.')
    for swap in swaps:
        # Swap BDMs are sized in MiB by the flavor but GiB in the request.
        if (swap['volume_size'] or 0) * 1024 > flavor['swap']:
            raise _invalid('Swap drive requested is larger than instance type allows.')
    total = sum(r['volume_size'] or 0 for r in ephemerals)
    if total > flavor['ephemeral_gb']:
        raise _invalid('Ephemeral disks requested are larger than the instance type '
                       'allows. If no size is given in one block device mapping, flavor '
                       'ephemeral size will be used.')


def block_device_info(bdm_rows, root_device_name=None):
    """The driver's view of an instance's BDMs (upstream's dict shape)."""
    ephemerals, swap, volumes = [], None, []
    for bdm in sorted(bdm_rows, key=lambda b: (b['boot_index'] is None,
                                               b['boot_index'] or 0, b['id'] or 0)):
        if bdm['destination_type'] == 'volume':
            if not bdm['connection_info']:
                continue
            volumes.append({
                'connection_info': json.loads(bdm['connection_info']),
                'mount_device': bdm['device_name'], 'boot_index': bdm['boot_index'],
                'disk_bus': bdm['disk_bus'], 'device_type': bdm['device_type'],
                'delete_on_termination': bool(bdm['delete_on_termination']),
                'volume_id': bdm['volume_id'], 'attachment_id': bdm['attachment_id']})
        elif bdm['source_type'] == 'blank':
            if bdm['guest_format'] == 'swap':
                swap = {'device_name': bdm['device_name'],
                        'swap_size': (bdm['volume_size'] or 0) * 1024,
                        'disk_bus': bdm['disk_bus']}
            else:
                ephemerals.append({'device_name': bdm['device_name'],
                                   'size': bdm['volume_size'] or 0,
                                   'guest_format': bdm['guest_format'],
                                   'disk_bus': bdm['disk_bus'],
                                   'device_type': bdm['device_type'],
                                   'num': len(ephemerals)})
    return {'root_device_name': root_device_name, 'ephemerals': ephemerals, 'swap': swap,
            'block_device_mapping': volumes,
            # Decided here, once, so a driver never re-derives it.
            'volume_backed': is_volume_backed(bdm_rows),
            # What device-role tagging needs of the mappings with a tag.
            'tagged_mappings': tagged_mappings(bdm_rows)}


def tagged_mappings(bdm_rows):
    """The mappings with a device tag, as device metadata matches them to disks."""
    return [{'device_name': b.get('device_name'), 'boot_index': b.get('boot_index'),
             'tag': b['tag'], 'volume_id': b.get('volume_id')}
            for b in bdm_rows if b.get('tag')]


def is_volume_backed(bdm_rows):
    """The one definition: the boot device (boot index 0) is a volume.

    ``bdm_rows``: an instance's block device mappings (rows or dicts).
    """
    return any(b['boot_index'] == 0 and b['destination_type'] == 'volume' for b in bdm_rows)


# Statuses a volume may be attached from: a multiattach volume already
# attached elsewhere (or joining another server) may take one more server.
ATTACHABLE = ('available',)
MULTIATTACH_ATTACHABLE = ('available', 'reserved', 'attaching', 'in-use')


def check_attachable(volume, supports_multiattach):
    """Upstream's gate on attaching or booting from ``volume`` (a Cinder dict).

    A multiattach volume needs compute API 2.60 (400 before); only it may
    be in use already. The volume service has the last word when the
    attachment is made.
    """
    multiattach = bool(volume.get('multiattach'))
    if multiattach and not supports_multiattach:
        raise exception.MultiattachNotSupportedOldMicroversion()
    statuses = MULTIATTACH_ATTACHABLE if multiattach else ATTACHABLE
    if volume['status'] not in statuses:
        raise _invalid('Volume %s status must be %s, but it is %s.'
                       % (volume['id'], ' or '.join(statuses), volume['status']))
