"""Re-imaging a volume in place (volume API 3.68 os-reimage), mixed into the volume manager."""

import contextlib

from nova.embedded.volume import errors
from nova.embedded.volume.store import VOLUMES


class ReimageMixin:
    """Mixed into VolumeManager (uses store, get_volume, _prepare_image, _build)."""

    def reimage_volume(self, caller, volume_id, image_id, reimage_reserved=False):
        """Write ``image_id`` over the volume's data; its size and id stay.

        As Cinder: the volume must be 'available' or 'error', or 'reserved'
        when ``reimage_reserved`` (a server rebuilding from it holds it). The
        image is checked before anything changes (400 for an image the caller
        may not use or that does not fit); the copy then runs under the
        transitional status 'downloading', and the volume ends as it was
        ('available' for one in 'error') or in 'error'.
        """
        allowed = ('available', 'error') + (('reserved',) if reimage_reserved else ())
        with contextlib.ExitStack() as cleanup:
            with self.store.lock:
                volume = self.get_volume(caller, volume_id)
                if volume['status'] not in allowed:
                    raise errors.BadRequest(
                        'Invalid volume: Volume status must be %s to reimage, but it is '
                        '%s.' % (' or '.join(allowed), volume['status']))
            record = dict(volume)
            build = self._prepare_image(caller, record, image_id, cleanup)
            with self.store.lock:
                current = self.get_volume(caller, volume_id)['status']
                if current != volume['status']:
                    raise errors.BadRequest('Invalid volume: its status changed to %s.'
                                            % current)
                self.store.update(VOLUMES, volume_id, status='downloading')
            self._build(record, build,
                        status='reserved' if volume['status'] == 'reserved' else 'available',
                        bootable=True, volume_image_metadata=record['volume_image_metadata'])
