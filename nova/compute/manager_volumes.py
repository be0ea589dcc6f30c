"""Compute manager: volumes of an instance (create, connect, attach, detach, clean up)."""

import json
import logging
import platform

import oslo_messaging as messaging

from nova import exception, failpoint
from nova.compute import actions, manager_core
from nova.notifications import action as notify
from nova.objects import image_meta as image_meta_obj

LOG = logging.getLogger(__name__)


class VolumesManager:
    """An instance's volumes on this host: created, connected, attached, detached, named."""

    target = manager_core.RPC_TARGET

    def __init__(self, core, volume_api):
        self.core = core
        self.conf = core.conf
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        self.volume_api = volume_api

    def connector(self):
        return {'host': self.host, 'initiator': None, 'platform': platform.machine(),
                'os_type': 'linux', 'multipath': False, 'do_local_attach': False}

    def prepare_volumes(self, context, instance):
        """Create requested volumes, then connect every volume to this host."""
        context = self.volume_api.context_for(context, instance)
        timeout = self.conf.cinder.volume_wait_timeout
        for bdm in self.core.bdms(instance.uuid):
            if bdm['destination_type'] != 'volume':
                continue
            if not bdm['volume_id']:
                volume = self.volume_api.create(
                    context, bdm['volume_size'], '%s-%s' % (instance.display_name or
                                                            instance.uuid, bdm['uuid'][:8]),
                    image_id=bdm['image_id'] if bdm['source_type'] == 'image' else None,
                    snapshot_id=bdm['snapshot_id'], volume_type=bdm['volume_type'])
                self.conductor_db.bdm_update(bdm['uuid'], {'volume_id': volume['id']})
                self.volume_api.wait_for_status(context, volume['id'], ['available'],
                                                timeout=timeout)
                bdm['volume_id'] = volume['id']
            if bdm['attachment_id']:
                continue
            self.connect_volume(context, instance, bdm)

    def connect_volume(self, context, instance, bdm, mountpoint=None):
        context = self.volume_api.context_for(context, instance)
        if bdm.get('attachment_id') and not bdm.get('connection_info'):
            # Reserved by the API before it answered: connect that attachment.
            attachment = {'id': bdm['attachment_id']}
        else:
            attachment = self.volume_api.attachment_create(context, bdm['volume_id'],
                                                           instance.uuid)
        try:
            attachment = self.volume_api.attachment_update(
                context, attachment['id'], self.connector(),
                mountpoint=mountpoint or bdm['device_name'])
            connection_info = self.host_connection_info(context, bdm['volume_id'],
                                                        attachment)
        except Exception:
            self.volume_api.attachment_delete(context, attachment['id'])
            raise
        return self.conductor_db.bdm_update(bdm['uuid'], {
            'attachment_id': attachment['id'],
            'connection_info': json.dumps(connection_info)})

    def host_connection_info(self, context, volume_id, attachment):
        """The attachment's connection_info as this host records it (``context``: the
        volume identity): a multiattach volume is marked so the driver shares its disk."""
        connection_info = dict(attachment['connection_info'])
        if self.volume_api.get(context, volume_id).get('multiattach'):
            # As upstream: the driver shares the disk between guests.
            connection_info['multiattach'] = True
        return connection_info

    def reimage_root_volume(self, context, instance, image_id):
        """Have the volume service write ``image_id`` over the root volume (2.93).

        As upstream: a new attachment holds the volume ('reserved') while the
        old one goes, the volume service re-images it, then this host
        connects the new attachment. The guest is already gone.
        """
        vctx = self.volume_api.context_for(context, instance)
        root = next(b for b in self.core.bdms(instance.uuid)
                    if b['destination_type'] == 'volume' and b['boot_index'] == 0)
        held = self.volume_api.attachment_create(vctx, root['volume_id'], instance.uuid)
        if root['attachment_id']:
            try:
                self.volume_api.attachment_delete(vctx, root['attachment_id'])
            except exception.NotFound:
                pass
        root = self.conductor_db.bdm_update(root['uuid'], {
            'attachment_id': held['id'], 'connection_info': None})
        self.volume_api.reimage(vctx, root['volume_id'], image_id, reimage_reserved=True)
        # An 'error' status raises VolumeNotReady: the rebuild fails with it.
        self.volume_api.wait_for_status(vctx, root['volume_id'], ['reserved'],
                                        timeout=self.conf.cinder.volume_wait_timeout)
        self.connect_volume(vctx, instance, root)
        self.volume_api.attachment_complete(vctx, held['id'])

    def complete_volumes(self, context, instance):
        context = self.volume_api.context_for(context, instance)
        for bdm in self.core.bdms(instance.uuid):
            if bdm['attachment_id']:
                self.volume_api.attachment_complete(context, bdm['attachment_id'])

    def record_devices(self, instance, image_meta, bdi):
        """Keep the device names the driver chose, so they survive reboots."""
        names = self.driver.get_device_names(instance, image_meta, bdi)
        if names.get('root_device_name'):
            instance.root_device_name = names['root_device_name']
            self.conductor_db.instance_update(instance.uuid,
                                              {'root_device_name': names['root_device_name']})
        by_key = dict(names.get('volumes') or {})
        ephemerals = names.get('ephemerals') or {}
        index = 0
        for bdm in self.core.bdms(instance.uuid):
            if bdm['destination_type'] != 'local' or bdm['source_type'] != 'blank':
                continue
            if bdm['guest_format'] == 'swap':
                by_key[bdm['uuid']] = names.get('swap')
            else:
                by_key[bdm['uuid']] = ephemerals.get(index)
                index += 1
        self.record_device_names(instance, {k: v for k, v in by_key.items() if v})

    def record_device_names(self, instance, names):
        """Store the device names the driver gave each disk back into the BDMs."""
        for bdm in self.core.bdms(instance.uuid):
            key = bdm['volume_id'] or bdm['uuid']
            name = names.get(key)
            if name and name != bdm['device_name']:
                self.conductor_db.bdm_update(bdm['uuid'], {'device_name': name})

    def disconnect_volumes(self, context, instance, delete_volumes=False):
        """Detach every volume from this host; optionally delete those marked so."""
        context = self.volume_api.context_for(context, instance)
        for bdm in self.core.bdms(instance.uuid):
            if bdm['destination_type'] != 'volume':
                continue
            if bdm['attachment_id']:
                try:
                    self.volume_api.attachment_delete(context, bdm['attachment_id'])
                except exception.NotFound:
                    pass
                self.conductor_db.bdm_update(bdm['uuid'], {'attachment_id': None,
                                                           'connection_info': None})
            if delete_volumes and bdm['delete_on_termination'] and bdm['volume_id']:
                self._delete_volume(context, bdm['volume_id'])

    def _delete_volume(self, context, volume_id):
        try:
            self.volume_api.wait_for_status(context, volume_id, ['available', 'error'],
                                            timeout=self.conf.cinder.volume_wait_timeout)
            self.volume_api.delete(context, volume_id)
        except exception.NotFound:
            pass
        except Exception:  # noqa: BLE001 - a stuck volume must not block the delete.
            LOG.exception('Could not delete volume %s', volume_id)

    # -- hot attach / detach ------------------------------------------------
    @notify.instance_action('volume_attach', 'InstanceActionVolumePayload',
                            notify.volume_extras)
    def attach_volume(self, context, instance, bdm_uuid):
        with self.core.lock(instance.uuid):
            bdm = next((b for b in self.core.bdms(instance.uuid) if b['uuid'] == bdm_uuid), None)
            if bdm is None:
                return
            vctx = self.volume_api.context_for(context, instance)
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_attach_volume', host=self.host):
                    bdm = self.connect_volume(vctx, instance, bdm)
                    failpoint.hit('attach.after_connect')
                    try:
                        self.driver.attach_volume(
                            context, json.loads(bdm['connection_info']), instance,
                            bdm['device_name'], disk_bus=bdm['disk_bus'],
                            device_type=bdm['device_type'])
                    except Exception:
                        self.volume_api.attachment_delete(vctx, bdm['attachment_id'])
                        raise
                    failpoint.hit('attach.after_driver')
                    self.volume_api.attachment_complete(vctx, bdm['attachment_id'])
                self.core.record_device_metadata(instance)
            except Exception as exc:  # noqa: BLE001 - volume back to available, guest unchanged.
                LOG.exception('Attaching volume %s to %s failed', bdm['volume_id'],
                              instance.uuid)
                # The BDM goes first: once the fault is visible, the state is final.
                self.conductor_db.bdm_destroy(bdm['uuid'])
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)

    @notify.instance_action('volume_detach', 'InstanceActionVolumePayload',
                            notify.volume_extras)
    def detach_volume(self, context, instance, volume_id):
        with self.core.lock(instance.uuid):
            bdm = next((b for b in self.core.bdms(instance.uuid) if b['volume_id'] == volume_id),
                       None)
            if bdm is None:
                return
            vctx = self.volume_api.context_for(context, instance)
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_detach_volume', host=self.host):
                    if bdm['connection_info']:
                        self.driver.detach_volume(context, json.loads(bdm['connection_info']),
                                                  instance, bdm['device_name'])
                        failpoint.hit('detach.after_driver')
                    if bdm['attachment_id']:
                        self.volume_api.attachment_delete(vctx, bdm['attachment_id'])
            except Exception as exc:  # noqa: BLE001 - the volume stays attached.
                LOG.exception('Detaching volume %s from %s failed', volume_id, instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                return
            self.conductor_db.bdm_destroy(bdm['uuid'])
            self.core.record_device_metadata(instance)

    # A requested name already in use is the caller's error, not this host's.
    @messaging.expected_exceptions(exception.Invalid)
    def reserve_device_name(self, context, instance, requested=None, bus=None, bdm=None):
        """The device name the next volume gets (the persistent domain is the truth).

        With ``bdm`` (the values of a new volume BDM), the name is chosen and
        the BDM recorded under the instance's lock, among the names of BDMs
        not attached yet too, and the new BDM's uuid is returned: two
        concurrent attaches to one server cannot get the same name.
        """
        image_meta = image_meta_obj.ImageMeta.from_instance(instance)
        if bdm is None:
            return self.driver.get_next_volume_device(instance, image_meta, bus=bus,
                                                      requested=requested)
        with self.core.lock(instance.uuid):
            pending = [b['device_name'] for b in self.core.bdms(instance.uuid) if b['device_name']]
            device = self.driver.get_next_volume_device(
                instance, image_meta, bus=bus, requested=requested, in_use=pending)
            return self.conductor_db.bdm_create(dict(bdm, device_name=device))['uuid']
