"""The image a server boots from: readable by the caller, fitting the flavor, kernel included."""

from nova import exception
from nova.virt import guest_request


def check_image_fits(image, flavor):
    """400 when the flavor's memory or root disk is smaller than the image needs."""
    gib = 1024 ** 3
    if flavor['memory_mb'] < int(image.get('min_ram') or 0):
        raise exception.Invalid(reason="Flavor's memory is too small for requested image.")
    if flavor['root_gb']:
        if int(image.get('size') or 0) > flavor['root_gb'] * gib:
            raise exception.Invalid(reason="Flavor's disk is too small for requested "
                                           "image. Flavor disk is %d bytes, image is %s "
                                           "bytes." % (flavor['root_gb'] * gib,
                                                       image.get('size')))
        if int(image.get('min_disk') or 0) > flavor['root_gb']:
            raise exception.Invalid(reason="Flavor's disk is too small for requested "
                                           "image.")


def check_flavor(flavor, props):
    """Effective image properties must agree with the flavor (400 naming the rule).

    ``props``: ImageMetaProps, or Glance-style properties (parsed here).
    Flavor/image rules (NUMA, pinning, page sizes...) are pure checks, run
    in the API so that a conflict is a 400 before anything exists.
    """
    guest_request.validate_image_request(flavor, props)


class BootImageAPI:
    """Reads of the image service on a booting server's behalf, as the caller."""

    def __init__(self, image_api):
        self._image_api = image_api

    def get_active(self, context, image_id):
        """The image (Glance form); 400 unless the caller sees it and it is active."""
        try:
            image = self._image_api.show(context, image_id)
        except exception.ImageNotFound:
            raise exception.Invalid(reason='Image %s could not be found.' % image_id)
        if image.get('status') != 'active':
            raise exception.Invalid(reason='Image %s is not active.' % image_id)
        return image

    def check_boot_files(self, context, image):
        """The kernel and ramdisk an image names must be images the caller may read.

        An image (or a volume's image metadata) may name any image id as its
        kernel or ramdisk; without this check another project's private image
        would boot, read from the compute host's cache. 400, as upstream.
        """
        props = image.get('properties') or {}
        for prop, what in (('kernel_id', 'Kernel'), ('ramdisk_id', 'Ramdisk')):
            image_id = props.get(prop)
            if not image_id:
                continue
            try:
                self._image_api.show(context, image_id)
            except exception.ImageNotFound:
                raise exception.Invalid(reason='%s image %s could not be found.'
                                        % (what, image_id))
