"""Compute API: the image and volume proxies of microversions up to 2.35."""

from oslo_utils import timeutils

from nova import exception
from nova.image import glance

# The image metadata quota upstream applies to the image proxy.
MAX_IMAGE_METADATA = 128
# Compute-API status filter values -> Glance's.
_STATUS_FILTER = {'ACTIVE': 'active', 'SAVING': ('queued', 'saving'),
                  'DELETED': ('deleted', 'pending_delete'), 'ERROR': ('killed',)}


def _matches(image, filters):
    props = image['properties']
    checks = (
        ('name', lambda v: image.get('name') == v),
        ('status', lambda v: image.get('status') in _glance_statuses(v)),
        ('server', lambda v: props.get('instance_uuid') == v.rstrip('/').rsplit('/', 1)[-1]),
        ('type', lambda v: props.get('image_type') == v),
        ('minRam', lambda v: int(image.get('min_ram') or 0) >= int(v)),
        ('minDisk', lambda v: int(image.get('min_disk') or 0) >= int(v)),
        ('changes-since', lambda v: _updated(image) >= v),
    )
    return all(check(filters[key]) for key, check in checks if key in filters)


def _glance_statuses(value):
    wanted = _STATUS_FILTER.get(value.upper(), value.lower())
    return wanted if isinstance(wanted, tuple) else (wanted,)


def _updated(image):
    stamp = image.get('updated_at') or image.get('created_at')
    return timeutils.normalize_time(timeutils.parse_isotime(stamp)) if stamp else None


class ProxyAPI:
    """The image and volume service proxies (/images, /os-volumes, /os-snapshots)."""

    def __init__(self, image_api, volume_api):
        self._image_api = image_api
        self._volume_api = volume_api

    # -- images -------------------------------------------------------------
    def proxy_image_list(self, context, filters, limit=None, marker=None):
        """Internal-form images the caller sees, filtered and paged as upstream."""
        images = [glance.image_dict_to_internal(i) for i in self._image_api.list(context)]
        images.sort(key=lambda i: (i.get('created_at') or '', i['id']), reverse=True)
        images = [i for i in images if _matches(i, filters)]
        if marker is not None:
            ids = [i['id'] for i in images]
            if marker not in ids:
                raise exception.Invalid(reason='marker [%s] not found' % marker)
            images = images[ids.index(marker) + 1:]
        return images[:limit] if limit is not None else images

    def proxy_image_get(self, context, image_id):
        return glance.image_dict_to_internal(self._image_api.show(context, image_id))

    def proxy_image_delete(self, context, image_id):
        self._image_api.delete(context, image_id)

    def proxy_image_url(self, context, image_id):
        try:
            return '%s/images/%s' % (self._image_api.endpoint(context), image_id)
        except Exception:  # noqa: BLE001 - the alternate link is optional.
            return None

    def proxy_image_set_metadata(self, context, image_id, metadata, replace=False):
        """Merge (or with ``replace`` set) the image's custom properties."""
        image = self.proxy_image_get(context, image_id)
        current = image['properties']
        wanted = dict(metadata) if replace else dict(current, **metadata)
        if len(wanted) > MAX_IMAGE_METADATA:
            raise exception.Forbidden(message='Image metadata limit exceeded')
        remove = [k for k in current if k not in wanted]
        updated = self._image_api.update(context, image_id, {'properties': wanted},
                                         remove=remove)
        return glance.image_dict_to_internal(updated)['properties']

    def proxy_image_delete_metadata(self, context, image_id, key):
        image = self.proxy_image_get(context, image_id)
        if key not in image['properties']:
            raise exception.NotFound(message='Invalid metadata key')
        self._image_api.update(context, image_id, {}, remove=[key])

    # -- volumes ------------------------------------------------------------
    def proxy_volume_list(self, context):
        return self._volume_api.list(context)

    def proxy_volume_get(self, context, volume_id):
        return self._volume_api.get(context, volume_id)

    def proxy_volume_create(self, context, size, name=None, snapshot_id=None, volume_type=None,
                            description=None, metadata=None, availability_zone=None):
        if snapshot_id:
            self._volume_api.get_snapshot(context, snapshot_id)
        return self._volume_api.create(
            context, size, name, snapshot_id=snapshot_id, volume_type=volume_type,
            description=description, metadata=metadata, availability_zone=availability_zone)

    def proxy_volume_delete(self, context, volume_id):
        self._volume_api.delete(context, volume_id)

    def proxy_snapshot_list(self, context):
        return self._volume_api.list_snapshots(context)

    def proxy_snapshot_get(self, context, snapshot_id):
        return self._volume_api.get_snapshot(context, snapshot_id)

    def proxy_snapshot_create(self, context, volume_id, name=None, description=None,
                              force=False):
        return self._volume_api.create_snapshot(context, volume_id, name,
                                                description=description, force=force)

    def proxy_snapshot_delete(self, context, snapshot_id):
        self._volume_api.delete_snapshot(context, snapshot_id)
