"""Rebuild in the compute API: the new image checked as at boot, the server's overrides on top."""

from oslo_utils import units

from nova import exception, trusted_certs
from nova.compute import (
    api_boot_image,
    api_core,
    image_props,
    personality,
    request_values,
    server_requests,
)
from nova.image import glance, sysmeta

# Request fields a rebuild may change, and the instance columns they set.
_COLUMNS = (('name', 'display_name'), ('description', 'display_description'),
            ('metadata', 'metadata'), ('hostname', 'hostname'), ('user_data', 'user_data'))


class RebuildAPI:
    """The rebuild action (a new image on the same host; 2.93 re-images a root volume)."""

    def __init__(self, conf, db, quota, compute_rpcapi, volume_api, core, boot_images, keypairs,
                 volumes):
        self._conf = conf
        self._db = db
        self._quota = quota
        self._compute_rpcapi = compute_rpcapi
        self._volume_api = volume_api
        self._core = core
        self._boot_images = boot_images
        self._keypairs = keypairs
        self._volumes = volumes

    def rebuild(self, context, instance, request):
        """Validate a RebuildRequest's new image fully, then rebuild on the same host."""
        api_core.check_locked(context, instance)
        api_core.check_state(instance, api_core.SPECS['rebuild'])
        image_id = request_values.image_id_from_ref(request.image_ref)
        cert_ids = trusted_certs.of(instance)
        if request.trusted_certs is not server_requests.UNSET:
            # 2.63: new ids replace the server's; null resets to the defaults (or none).
            cert_ids = trusted_certs.requested(self._conf, request.trusted_certs)
        volume_backed = self._core.is_volume_backed(context, instance)
        if request.trusted_certs is not server_requests.UNSET:
            trusted_certs.check_image_backed(cert_ids, volume_backed, rebuild=True)
        image = self._boot_images.get_active(context, image_id)
        internal = glance.image_dict_to_internal(image)
        self._boot_images.check_boot_files(context, internal)
        reimage = False
        # A volume-backed server keeps showing no image, as upstream's does.
        if volume_backed:
            reimage = self._check_volume_rebuild(context, instance, image, request)
        else:
            api_boot_image.check_image_fits(image, instance['flavor'])
        # The server's boot-time overrides apply to the new image too.
        boot = image_props.apply_accepted(internal, instance['image_props_override'])
        api_boot_image.check_flavor(instance['flavor'], boot.props)
        password = request.admin_password or (
            request_values.generate_password() if self._conf.api.enable_instance_password
            else None)
        values = self._new_values(instance, request, boot.image, cert_ids,
                                  instance['image_ref'] if volume_backed else image_id)
        files = personality.checked_files(self._quota, context, instance['project_id'],
                                          instance['user_id'], request.personality)
        if request.disk_config is not None:
            values['system_metadata'][personality.DISK_CONFIG_KEY] = personality.disk_config(
                request.disk_config, boot.image)
        # Not sent, the server keeps its image, name and metadata as they were.
        with self._core.action(context, instance, 'rebuild', extra_values=values) as inst:
            self._compute_rpcapi.rebuild_instance(context, inst, inst.host, boot.image,
                                                  admin_password=password,
                                                  injected_files=files,
                                                  reimage_boot_volume=reimage)
        return self._db.instance_get(instance['uuid']), password

    def _new_values(self, instance, request, image, cert_ids, image_ref):
        """Columns the rebuild sets: the new image's metadata and what the request names."""
        system_metadata = {k: v for k, v in instance['system_metadata'].items()
                           if not k.startswith(sysmeta.SYSMETA_PREFIX)}
        system_metadata.update(sysmeta.properties_to_sysmeta(image))
        trusted_certs.store(system_metadata, cert_ids)
        values = {'image_ref': image_ref,
                  'system_metadata': system_metadata,
                  'kernel_id': image['properties'].get('kernel_id'),
                  'ramdisk_id': image['properties'].get('ramdisk_id')}
        for field, column in _COLUMNS:
            if getattr(request, field) is not server_requests.UNSET:
                values[column] = getattr(request, field)
        for field, version in (('access_ip_v4', 4), ('access_ip_v6', 6)):
            if getattr(request, field) is not server_requests.UNSET:
                values[field] = request_values.normalize_ip(getattr(request, field), version)
        if request.key_name is not server_requests.UNSET:
            # 2.54: a new key pair for the server's owner, or null to drop it.
            values.update(self._keypairs.key_values(instance['user_id'], request.key_name))
        return values

    def _check_volume_rebuild(self, context, instance, image, request):
        """Upstream's rules for a volume-backed server; True when its root is re-imaged.

        Before 2.93 only the image the root volume holds is accepted (the
        server is rebuilt, its root volume untouched); from 2.93 the volume
        service writes the new image over the root volume, which must be big
        enough for it.
        """
        root = next(b for b in self._volumes.volume_attachments(context, instance)
                    if b['boot_index'] == 0)
        volume = self._volume_api.get(context, root['volume_id'])
        current = (volume.get('volume_image_metadata') or {}).get('image_id') or \
            instance['image_ref']
        if not request.reimage_boot_volume:
            if image['id'] != current:
                raise exception.Invalid(reason='Unable to rebuild with a different image '
                                               'for a volume-backed server.')
            return False
        size = volume['size'] * units.Gi
        data = image.get('virtual_size') or (
            image.get('size') if image.get('disk_format') == 'raw' else None) or 0
        needed = max((image.get('min_disk') or 0) * units.Gi, data)
        if needed > size:
            raise exception.Invalid(
                reason='Volume is smaller than the minimum size specified in image '
                       'metadata. Volume size is %i bytes, minimum size is %i bytes.'
                       % (size, needed))
        return True
