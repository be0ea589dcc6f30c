"""Server actions in the compute API: power, lock, console output and snapshots."""

import json
import logging
import tempfile

from nova import exception
from nova import vm_states as vs
from nova.compute import api_core, block_device, image_bdms
from nova.image import sysmeta
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)


class ServerActionsAPI:
    """Power actions, lock and unlock, console output, createImage (and backups' images)."""

    def __init__(self, db, image_api, compute_rpcapi, core, volume_api=None):
        self._db = db
        self._image_api = image_api
        self._compute_rpcapi = compute_rpcapi
        self._core = core
        self._volume_api = volume_api

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
        if backup is None and self._volume_api is not None:
            bdms = self._db.bdm_get_by_instance(instance['uuid'])
            if block_device.is_volume_backed(bdms):
                return self._snapshot_volume_backed(context, instance, name, props, bdms)
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

    def _snapshot_volume_backed(self, context, instance, name, props, bdms):
        """Upstream's volume-backed snapshot: each volume snapshotted in the volume
        service, the image an empty record that maps them (an image-defined block
        device mapping, ``bdm_v2``); the server is untouched, no host is asked."""
        mappings, made = [], []
        try:
            for bdm in bdms:
                if bdm['destination_type'] == 'volume' and bdm['volume_id']:
                    snap = self._volume_api.create_snapshot(
                        context, bdm['volume_id'], 'snapshot for %s' % name, force=True)
                    made.append(snap['id'])
                    mappings.append(image_bdms.snapshot_mapping(bdm, snap['id']))
                else:
                    mappings.append(image_bdms.snapshot_mapping(bdm))
            props.update(block_device_mapping=json.dumps(mappings), bdm_v2='True')
            if instance['root_device_name']:
                props['root_device_name'] = instance['root_device_name']
            # As upstream: Glance needs formats to activate the empty image.
            image = self._image_api.create(context, dict(
                name=name, disk_format='qcow2', container_format='bare',
                visibility='private', owner=instance['project_id'], min_disk=0, min_ram=0,
                **props))
        except Exception:
            for snapshot_id in made:
                self._forget_snapshot(context, snapshot_id)
            raise
        try:
            with tempfile.NamedTemporaryFile() as empty:
                self._image_api.upload(context, image['id'], empty.name)
        except Exception:
            self._image_api.delete(context, image['id'])
            for snapshot_id in made:
                self._forget_snapshot(context, snapshot_id)
            raise
        return image['id']

    def _forget_snapshot(self, context, snapshot_id):
        try:
            self._volume_api.delete_snapshot(context, snapshot_id)
        except Exception:  # noqa: BLE001 - the snapshot failure is what the user sees.
            LOG.exception('Could not delete volume snapshot %s of a failed image', snapshot_id)
