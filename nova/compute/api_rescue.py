"""Rescue in the compute API: every check happens before any state changes."""

from nova import exception
from nova.compute import api_core, block_device, image_props, request_values
from nova.image import glance, sysmeta
from nova.objects import instance as instance_obj
from nova.virt import rescue_rules

# The rescue image properties a rescue reads: the server keeps its own
# domain (hardware, firmware, devices), plus the rescue media on the bus,
# device and controller these name.  An override of anything else would
# be accepted and do nothing, so it is refused.
RESCUE_PROPERTIES = ('hw_rescue_bus', 'hw_rescue_device', 'hw_scsi_model')


class InstanceNotRescuable(exception.Invalid):
    msg_fmt = "Instance %(instance_id)s cannot be rescued: %(reason)s"


class RescueAPI:
    """Rescue and unrescue (stable-device rescue checked against the host's node record)."""

    def __init__(self, conf, db, image_api, compute_rpcapi, core, boot_images):
        self._conf = conf
        self._db = db
        self._image_api = image_api
        self._compute_rpcapi = compute_rpcapi
        self._core = core
        self._boot_images = boot_images

    def _rescue_image(self, context, instance, rescue_image_ref):
        """Explicit image, else the base image, else the stored image metadata."""
        if rescue_image_ref:
            try:
                image = self._image_api.show(context, rescue_image_ref)
            except exception.ImageNotFound:
                raise exception.Invalid(reason='Rescue image %s could not be found.'
                                        % rescue_image_ref)
            if image.get('status') != 'active':
                raise exception.Invalid(reason='Rescue image %s is not active.'
                                        % rescue_image_ref)
            return glance.image_dict_to_internal(image)
        if instance['image_ref']:
            try:
                image = self._image_api.show(context, instance['image_ref'])
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
        api_core.check_locked(context, instance)
        api_core.check_state(instance, api_core.SPECS['rescue'])
        bdms = self._db.bdm_get_by_instance(instance['uuid'])
        volume_backed = block_device.is_volume_backed(bdms)
        if volume_backed and not allow_volume_backed:
            raise InstanceNotRescuable(instance_id=instance['uuid'],
                                       reason='Cannot rescue a volume-backed instance')
        image = self._rescue_image(context, instance, rescue_image_ref)
        self._boot_images.check_boot_files(context, image)
        if overrides:
            # For this rescue only (2.106): checked and merged once, as at boot.
            image = image_props.apply_checked(self._conf, image, overrides).image
            _check_rescue_overrides(overrides)
        props = image.get('properties') or {}
        stable = bool(props.get('hw_rescue_bus') or props.get('hw_rescue_device'))
        if volume_backed and not stable:
            raise InstanceNotRescuable(
                instance_id=instance['uuid'],
                reason='Cannot rescue a volume-backed instance unless the rescue image has '
                       'hw_rescue_bus and/or hw_rescue_device set (stable device rescue).')
        if stable:
            self._check_stable_rescue(context, instance, image, bdms, volume_backed)
        if password is None and self._conf.api.enable_instance_password:
            password = request_values.generate_password()
        with self._core.action(context, instance, 'rescue') as inst:
            self._compute_rpcapi.rescue_instance(context, inst, inst.host, image, password)
        return password if self._conf.api.enable_instance_password else None

    def _check_stable_rescue(self, context, instance, image, bdms, volume_backed):
        """Refuse (400) a stable-device rescue the instance's host cannot do.

        The host's node record holds its virt type, arch, default machine
        type and the disk buses and devices its QEMU offers: the static rules
        apply here, with no round trip. Only a free device name on the rescue
        bus depends on the guest's live domain; the host is asked only when
        the guest could have used up that bus's names, and otherwise the
        rescue itself refuses (a fault, the server back as it was).
        """
        node = self._db.compute_node_get(instance['host']) or {}
        caps = node.get('capabilities') or {}
        if not caps.get('virt_type'):
            # A host that reports nothing is asked, as before.
            self._ask_host(context, instance, image)
            return
        own = sysmeta.sysmeta_to_image(instance['system_metadata'])['properties']
        machine = own.get('hw_machine_type') or caps.get('machine_type')
        bus, _device = rescue_rules.validate_rescue(
            caps['virt_type'], own, image.get('properties') or {},
            rescue_rules.node_disk_caps(caps, own.get('hw_machine_type')), machine,
            image.get('disk_format'), volume_backed, caps.get('arch'))
        flavor = instance.get('flavor') or {}
        if rescue_rules.names_may_run_out(bus, rescue_rules.disk_count_bound(
                bdms, flavor.get('ephemeral_gb'), flavor.get('swap'))):
            self._ask_host(context, instance, image)

    def _ask_host(self, context, instance, image):
        """The host's own check (a call): only built when it is asked."""
        self._compute_rpcapi.validate_rescue(
            context, instance_obj.Instance.from_db(instance), instance['host'], image)

    def unrescue(self, context, instance):
        with self._core.action(context, instance, 'unrescue') as inst:
            self._compute_rpcapi.unrescue_instance(context, inst, inst.host)


def _check_rescue_overrides(overrides):
    for key in sorted(overrides):
        if image_props.canonical(key) not in RESCUE_PROPERTIES:
            raise exception.Invalid(
                reason='image property %s does not apply to a rescue: the rescued server '
                       'keeps its own hardware; a rescue override may set %s'
                       % (key, ', '.join(RESCUE_PROPERTIES)))
