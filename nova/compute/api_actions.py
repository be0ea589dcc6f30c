"""Server actions in the compute API: power, lock, console output and snapshots."""

from nova import exception
from nova import vm_states as vs
from nova.compute import api_core
from nova.image import sysmeta
from nova.objects import instance as instance_obj


class ServerActionsAPI:
    """Power actions, lock and unlock, console output, createImage (and backups' images)."""

    def __init__(self, db, image_api, compute_rpcapi, core):
        self._db = db
        self._image_api = image_api
        self._compute_rpcapi = compute_rpcapi
        self._core = core

    def power_action(self, context, instance, spec_key, **kwargs):
        with self._core.action(context, instance, spec_key) as inst:
            self._compute_rpcapi.power_action(context, inst, inst.host, spec_key, **kwargs)

    def lock(self, context, instance, reason=None):
        if instance['locked']:
            # Locking a locked server changes nothing, as upstream: otherwise
            # an owner could turn an admin's lock into their own and unlock it.
            return instance
        self._db.action_start(context, instance['uuid'], 'lock')
        values = {'locked': True, 'locked_by': 'admin' if context.is_admin and
                  context.project_id != instance['project_id'] else 'owner'}
        if reason is not None:
            values['locked_reason'] = reason
        return self._db.instance_update(instance['uuid'], values)

    def unlock(self, context, instance):
        self._db.action_start(context, instance['uuid'], 'unlock')
        return self._db.instance_update(instance['uuid'], {
            'locked': False, 'locked_by': None, 'locked_reason': None})

    def get_console_output(self, context, instance, length=None):
        if not instance['host'] or instance['vm_state'] == vs.BUILDING:
            raise exception.InstanceNotReady(instance_id=instance['uuid'])
        output = self._compute_rpcapi.get_console_output(
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
        api_core.check_locked(context, instance)
        api_core.check_state(instance, api_core.SPECS[spec_key])
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
        image = self._image_api.create(context, dict(
            name=name, disk_format='qcow2', container_format='bare', visibility='private',
            owner=instance['project_id'], min_disk=instance['root_gb'] or 0, min_ram=0,
            **props))
        # Refused or not sent, the empty image goes.
        with self._core.action(context, instance, spec_key, undo=[
                lambda: self._image_api.delete(context, image['id'])]) as inst:
            if backup is None:
                self._compute_rpcapi.snapshot_instance(context, inst, inst.host, image['id'])
            else:
                self._compute_rpcapi.backup_instance(context, inst, inst.host, image['id'],
                                                     backup[0], backup[1])
        return image['id']
