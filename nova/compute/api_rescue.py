"""Rescue in the compute API: every check happens before any state changes."""

from nova import exception
from nova.compute import api_actions, block_device, image_props
from nova.image import glance, sysmeta
from nova.objects import instance as instance_obj


class InstanceNotRescuable(exception.Invalid):
    msg_fmt = "Instance %(instance_id)s cannot be rescued: %(reason)s"


class RescueMixin:
    """Mixed into compute.api.API."""

    def _rescue_image(self, context, instance, rescue_image_ref):
        """Explicit image, else the base image, else the stored image metadata."""
        if rescue_image_ref:
            try:
                image = self.image_api.show(context, rescue_image_ref)
            except exception.ImageNotFound:
                raise exception.Invalid(reason='Rescue image %s could not be found.'
                                        % rescue_image_ref)
            if image.get('status') != 'active':
                raise exception.Invalid(reason='Rescue image %s is not active.'
                                        % rescue_image_ref)
            return glance.image_dict_to_internal(image)
        if instance['image_ref']:
            try:
                image = self.image_api.show(context, instance['image_ref'])
                if image.get('status') == 'active':
                    return glance.image_dict_to_internal(image)
            except exception.ImageNotFound:
                pass
            # The base image is gone: its recorded metadata still describes
            # it, and the compute host's image cache may still hold the data.
            stored = sysmeta.sysmeta_to_image(instance['system_metadata'])
            return dict(stored, id=instance['image_ref'], status='active')
        raise InstanceNotRescuable(instance_id=instance['uuid'],
                                   reason='a rescue image is required for a volume-backed '
                                          'server (rescue_image_ref).')

    def rescue(self, context, instance, rescue_image_ref=None, password=None,
               overrides=None, allow_volume_backed=False):
        self.check_locked(context, instance)
        api_actions.check_state(instance, api_actions.SPECS['rescue'])
        bdms = self.db.bdm_get_by_instance(instance['uuid'])
        volume_backed = block_device.is_volume_backed(bdms)
        if volume_backed and not allow_volume_backed:
            raise InstanceNotRescuable(instance_id=instance['uuid'],
                                       reason='Cannot rescue a volume-backed instance')
        image = self._rescue_image(context, instance, rescue_image_ref)
        if overrides:
            image = image_props.effective_image(
                image, image_props.validate_overrides(self.conf, overrides))
        props = image.get('properties') or {}
        stable = bool(props.get('hw_rescue_bus') or props.get('hw_rescue_device'))
        if volume_backed and not stable:
            raise InstanceNotRescuable(
                instance_id=instance['uuid'],
                reason='Cannot rescue a volume-backed instance unless the rescue image has '
                       'hw_rescue_bus and/or hw_rescue_device set (stable device rescue).')
        inst = instance_obj.Instance.from_db(instance)
        if stable:
            # Where the rescue disk goes depends on the guest's domain (its
            # machine type, the names free on the bus) and the host's QEMU:
            # ask the host now, so a combination that cannot work is a 400,
            # not a late ERROR. A legacy rescue of an image-backed server
            # (the only legacy rescue left here) has nothing for the host to
            # refuse: no round trip before the cast.
            self.compute_rpcapi.validate_rescue(context, inst, inst.host, image)
        if password is None and self.conf.api.enable_instance_password:
            from nova.compute import api as api_mod
            password = api_mod.generate_password()
        inst = self.begin_action(context, instance, 'rescue')
        self.compute_rpcapi.rescue_instance(context, inst, inst.host, image, password)
        return password if self.conf.api.enable_instance_password else None

    def unrescue(self, context, instance):
        inst = self.begin_action(context, instance, 'unrescue')
        self.compute_rpcapi.unrescue_instance(context, inst, inst.host)
