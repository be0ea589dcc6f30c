"""Server actions in the compute API: state checks exactly as upstream, then a cast."""

import collections

from oslo_utils import units

from nova import exception, failpoint
from nova import vm_states as vs
from nova.compute import block_device, request_values, server_requests
from nova.objects import instance as instance_obj

ActionSpec = collections.namedtuple('ActionSpec', 'name vm_states task_states new_task')

_ANY_TASK = None  # sentinel: do not check task_state

# The states upstream allows each action from, and the task_state it sets.
SPECS = {
    'stop': ActionSpec('stop', (vs.ACTIVE, vs.ERROR), (None,), vs.POWERING_OFF),
    'start': ActionSpec('start', (vs.STOPPED,), (None,), vs.POWERING_ON),
    'reboot_soft': ActionSpec('reboot', (vs.ACTIVE,), (None,), vs.REBOOTING),
    'reboot_hard': ActionSpec('reboot', (vs.ACTIVE, vs.STOPPED, vs.PAUSED, vs.SUSPENDED,
                                         vs.ERROR),
                              (None, vs.REBOOTING, 'reboot_pending', 'reboot_started',
                               vs.REBOOTING_HARD, 'reboot_pending_hard',
                               'reboot_started_hard'), vs.REBOOTING_HARD),
    'pause': ActionSpec('pause', (vs.ACTIVE,), (None,), 'pausing'),
    'unpause': ActionSpec('unpause', (vs.PAUSED,), (None,), 'unpausing'),
    'suspend': ActionSpec('suspend', (vs.ACTIVE,), (None,), 'suspending'),
    'resume': ActionSpec('resume', (vs.SUSPENDED,), (None,), 'resuming'),
    'createImage': ActionSpec('createImage', (vs.ACTIVE, vs.STOPPED, vs.PAUSED,
                                              vs.SUSPENDED), (None,), 'image_snapshot'),
    'createBackup': ActionSpec('createBackup', (vs.ACTIVE, vs.STOPPED, vs.PAUSED,
                                                vs.SUSPENDED), (None,), vs.IMAGE_BACKUP),
    'restore': ActionSpec('restore', (vs.SOFT_DELETED,), (None,), vs.RESTORING),
    'rebuild': ActionSpec('rebuild', (vs.ACTIVE, vs.STOPPED, vs.ERROR), (None,),
                          'rebuilding'),
    'rescue': ActionSpec('rescue', (vs.ACTIVE, vs.STOPPED, vs.ERROR), (None,), vs.RESCUING),
    'unrescue': ActionSpec('unrescue', (vs.RESCUED,), (None,), vs.UNRESCUING),
}

# Actions after which the guest's console is on another port or host, or gone:
# the server's console tokens are destroyed as the action starts (a freed port
# goes to the next guest). The proxies also ask the host before relaying.
CONSOLE_ENDING = frozenset(('stop', 'reboot_hard', 'suspend', 'rebuild', 'rescue', 'unrescue',
                            'shelve', 'shelveOffload', 'migrate', 'resize', 'revertResize',
                            'os-migrateLive'))


def check_state(instance, spec):
    """409 with upstream's message when the instance is in the wrong state."""
    if spec.vm_states is not None and instance['vm_state'] not in spec.vm_states:
        raise exception.InstanceInvalidState(action=spec.name, instance_uuid=instance['uuid'],
                                             attr='vm_state', state=instance['vm_state'])
    if spec.task_states is not _ANY_TASK and instance['task_state'] not in spec.task_states:
        raise exception.InstanceInvalidState(action=spec.name, instance_uuid=instance['uuid'],
                                             attr='task_state', state=instance['task_state'])
    if not instance['host']:
        raise exception.InstanceInvalidState(action=spec.name, instance_uuid=instance['uuid'],
                                             attr='host', state='None')


class ServerActionsMixin:
    """Mixed into compute.api.API; needs self.db and self.compute_rpcapi."""

    def begin_action(self, context, instance, spec_key, extra_values=None):
        """Check lock and state, record the action, and claim the task_state.

        Returns the updated instance as an object ready to cast.
        """
        spec = SPECS[spec_key]
        self.check_locked(context, instance)
        check_state(instance, spec)
        values = {'task_state': spec.new_task}
        values.update(extra_values or {})
        try:
            row = self.db.instance_update(
                instance['uuid'], values,
                expected_task_state=list(spec.task_states) if spec.task_states else (),
                expected_vm_state=list(spec.vm_states) if spec.vm_states else ())
        except exception.UnexpectedTaskStateError:
            # Someone else won the race: report it like a wrong state.
            current = self.db.instance_get(instance['uuid'])
            check_state(current, spec)
            raise
        self.db.action_start(context, instance['uuid'], spec.name)
        if spec_key in CONSOLE_ENDING:
            self.db.console_token_destroy_for_instance(instance['uuid'])
        return instance_obj.Instance.from_db(row)

    def power_action(self, context, instance, spec_key, **kwargs):
        inst = self.begin_action(context, instance, spec_key)
        self.compute_rpcapi.power_action(context, inst, inst.host, spec_key, **kwargs)

    def lock(self, context, instance, reason=None):
        if instance['locked']:
            # Locking a locked server changes nothing, as upstream: otherwise
            # an owner could turn an admin's lock into their own and unlock it.
            return instance
        self.db.action_start(context, instance['uuid'], 'lock')
        values = {'locked': True, 'locked_by': 'admin' if context.is_admin and
                  context.project_id != instance['project_id'] else 'owner'}
        if reason is not None:
            values['locked_reason'] = reason
        return self.db.instance_update(instance['uuid'], values)

    def unlock(self, context, instance):
        self.db.action_start(context, instance['uuid'], 'unlock')
        return self.db.instance_update(instance['uuid'], {
            'locked': False, 'locked_by': None, 'locked_reason': None})

    def get_console_output(self, context, instance, length=None):
        if not instance['host'] or instance['vm_state'] == vs.BUILDING:
            raise exception.InstanceNotReady(instance_id=instance['uuid'])
        output = self.compute_rpcapi.get_console_output(
            context, instance_obj.Instance.from_db(instance), instance['host'])
        if length is not None:
            lines = output.splitlines()
            output = '\n'.join(lines[-length:] if length else [])
        return output

    def snapshot(self, context, instance, name, metadata, backup=None):
        """Create the image record now, then let the compute host fill it.

        ``backup`` is (backup_type, rotation) for createBackup: the image is a
        'backup' and the host deletes the oldest beyond ``rotation`` afterwards.
        """
        spec_key = 'createImage' if backup is None else 'createBackup'
        self.check_locked(context, instance)
        check_state(instance, SPECS[spec_key])
        from nova.image import sysmeta
        props = dict(sysmeta.sysmeta_to_image(instance['system_metadata']).get('properties',
                                                                                 {}))
        # The source image's signature does not sign the snapshot's data (as upstream).
        for key in ('img_signature', 'img_signature_hash_method', 'img_signature_key_type',
                    'img_signature_certificate_uuid'):
            props.pop(key, None)
        props.update({'image_type': 'snapshot',
                      'instance_uuid': instance['uuid'],
                      'base_image_ref': instance['image_ref'] or '',
                      'owner_specified.openstack.object': 'images/%s' % name})
        # The request's metadata after the defaults: a snapshot's may set image_type, as
        # upstream lets it; a backup's type stays, backup rotation looks for it.
        props.update(metadata)
        if backup is not None:
            props.update({'image_type': 'backup', 'backup_type': backup[0]})
        props = {k: str(v) for k, v in props.items()
                 if k not in ('min_ram', 'min_disk', 'disk_format', 'container_format')}
        # The snapshot belongs to the server's project even when an admin
        # takes it; the image service refuses that owner to anyone else.
        image = self.image_api.create(context, dict(
            name=name, disk_format='qcow2', container_format='bare', visibility='private',
            owner=instance['project_id'], min_disk=instance['root_gb'] or 0, min_ram=0,
            **props))
        try:
            inst = self.begin_action(context, instance, spec_key)
        except Exception:
            self.image_api.delete(context, image['id'])
            raise
        if backup is None:
            self.compute_rpcapi.snapshot_instance(context, inst, inst.host, image['id'])
        else:
            self.compute_rpcapi.backup_instance(context, inst, inst.host, image['id'],
                                                backup[0], backup[1])
        return image['id']

    def rebuild(self, context, instance, request):
        """Validate a RebuildRequest's new image fully, then rebuild on the same host."""
        from nova.image import glance, sysmeta
        self.check_locked(context, instance)
        check_state(instance, SPECS['rebuild'])
        image_id = request_values.image_id_from_ref(request.image_ref)
        from nova import trusted_certs
        cert_ids = trusted_certs.of(instance)
        if request.trusted_certs is not server_requests.UNSET:
            # 2.63: new ids replace the server's; null resets to the defaults (or none).
            cert_ids = trusted_certs.requested(self.conf, request.trusted_certs)
        volume_backed = self.is_volume_backed(context, instance)
        if request.trusted_certs is not server_requests.UNSET:
            trusted_certs.check_image_backed(cert_ids, volume_backed, rebuild=True)
        image = self._get_image(context, image_id)
        self.check_boot_files(context, glance.image_dict_to_internal(image))
        reimage = False
        # A volume-backed server keeps showing no image, as upstream's does.
        if volume_backed:
            reimage = self._check_volume_rebuild(context, instance, image, request)
        else:
            self._check_image_fits(image, instance['flavor'])
        from nova.compute import image_props
        # The server's boot-time overrides apply to the new image too.
        internal = image_props.effective_image(glance.image_dict_to_internal(image),
                                               instance['image_props_override'] or {})
        self.validate_image_for_flavor(instance['flavor'], internal)
        password = request.admin_password or (
            request_values.generate_password() if self.conf.api.enable_instance_password else None)
        system_metadata = {k: v for k, v in instance['system_metadata'].items()
                           if not k.startswith(sysmeta.SYSMETA_PREFIX)}
        system_metadata.update(sysmeta.properties_to_sysmeta(internal))
        trusted_certs.store(system_metadata, cert_ids)
        values = {'image_ref': instance['image_ref'] if volume_backed else image_id,
                  'system_metadata': system_metadata,
                  'kernel_id': internal['properties'].get('kernel_id'),
                  'ramdisk_id': internal['properties'].get('ramdisk_id')}
        for field, column in (('name', 'display_name'), ('description', 'display_description'),
                              ('metadata', 'metadata'), ('hostname', 'hostname'),
                              ('user_data', 'user_data')):
            if getattr(request, field) is not server_requests.UNSET:
                values[column] = getattr(request, field)
        for field, version in (('access_ip_v4', 4), ('access_ip_v6', 6)):
            if getattr(request, field) is not server_requests.UNSET:
                values[field] = request_values.normalize_ip(getattr(request, field), version)
        if request.key_name is not server_requests.UNSET:
            # 2.54: a new key pair for the server's owner, or null to drop it.
            values.update(self.key_values(instance['user_id'], request.key_name))
        from nova.compute import personality
        files = personality.checked_files(self.quota, context, instance['project_id'],
                                          instance['user_id'], request.personality)
        if request.disk_config is not None:
            values['system_metadata'][personality.DISK_CONFIG_KEY] = personality.disk_config(
                request.disk_config, internal)
        inst = self.begin_action(context, instance, 'rebuild', extra_values=values)
        self.compute_rpcapi.rebuild_instance(context, inst, inst.host, internal,
                                             admin_password=password, injected_files=files,
                                             reimage_boot_volume=reimage)
        return self.db.instance_get(instance['uuid']), password

    def _check_volume_rebuild(self, context, instance, image, request):
        """Upstream's rules for a volume-backed server; True when its root is re-imaged.

        Before 2.93 only the image the root volume holds is accepted (the
        server is rebuilt, its root volume untouched); from 2.93 the volume
        service writes the new image over the root volume, which must be big
        enough for it.
        """
        root = next(b for b in self.volume_attachments(context, instance)
                    if b['boot_index'] == 0)
        volume = self.volume_api.get(context, root['volume_id'])
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

    # -- volumes -----------------------------------------------------------------
    def attach_volume(self, context, instance, volume_id, device=None, tag=None,
                      delete_on_termination=False, supports_multiattach=False):
        """Check everything, reserve a device name, record the BDM, then cast.

        ``supports_multiattach``: the request is at compute API 2.60 or later.
        """
        self.check_locked(context, instance)
        if instance['vm_state'] == vs.SHELVED_OFFLOADED and instance['task_state'] is None:
            return self.attach_volume_offloaded(context, instance, volume_id, tag=tag,
                                                delete_on_termination=delete_on_termination,
                                                supports_multiattach=supports_multiattach)
        check_state(instance, VOLUME_SPEC)
        try:
            volume = self.volume_api.get(context, volume_id)
        except exception.VolumeNotFound:
            raise exception.Invalid(reason='Volume %s could not be found.' % volume_id)
        block_device.check_attachable(volume, supports_multiattach)
        for bdm in self.db.bdm_get_by_instance(instance['uuid']):
            if bdm['volume_id'] == volume_id:
                raise exception.Invalid(reason='Volume %s is already attached to the '
                                               'server.' % volume_id)
        inst = instance_obj.Instance.from_db(instance)
        # Reserve the volume now, as upstream does: a second server asking for
        # it gets Cinder's 400 here, not a 200 and a lost attach later.
        volume_context = self.volume_api.context_for(context, inst)
        attachment = self.volume_api.attachment_create(volume_context, volume_id,
                                                       instance['uuid'])
        failpoint.hit('attach.api_reserved')
        try:
            # The host picks the name and records the BDM under the instance's
            # lock, so two concurrent attaches never get the same device.
            bdm_uuid = self.compute_rpcapi.reserve_device_name(
                context, inst, inst.host, requested=device, bdm={
                    'instance_uuid': instance['uuid'], 'source_type': 'volume',
                    'destination_type': 'volume', 'volume_id': volume_id,
                    'device_type': 'disk', 'attachment_id': attachment['id'],
                    'delete_on_termination': bool(delete_on_termination),
                    'tag': tag, 'boot_index': None})
        except Exception:
            self.volume_api.attachment_delete(volume_context, attachment['id'])
            raise
        bdm = next(b for b in self.db.bdm_get_by_instance(instance['uuid'])
                   if b['uuid'] == bdm_uuid)
        self.db.action_start(context, instance['uuid'], 'attach_volume')
        self.compute_rpcapi.attach_volume(context, inst, inst.host, bdm['uuid'])
        return bdm

    def detach_volume(self, context, instance, bdm):
        self.check_locked(context, instance)
        if instance['vm_state'] == vs.SHELVED_OFFLOADED and instance['task_state'] is None:
            return self.detach_volume_offloaded(context, instance, bdm)
        check_state(instance, VOLUME_SPEC)
        if bdm['boot_index'] == 0:
            raise exception.Invalid(reason="Can't detach root device volume")
        self.db.action_start(context, instance['uuid'], 'detach_volume')
        inst = instance_obj.Instance.from_db(instance)
        self.compute_rpcapi.detach_volume(context, inst, inst.host, bdm['volume_id'])


# Upstream allows volume attach/detach in these states (not while rescued).
VOLUME_SPEC = ActionSpec('attach_volume', (vs.ACTIVE, vs.PAUSED, vs.STOPPED, vs.SUSPENDED,
                                           vs.RESIZED), (None,), None)
