"""Shelve, shelve offload and unshelve in the compute API: upstream's states and checks."""

import logging

from nova import exception
from nova import vm_states as vs
from nova.compute import api_actions, block_device
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)
SHELVING = 'shelving'
SHELVING_OFFLOADING = 'shelving_offloading'
UNSHELVING = 'unshelving'

api_actions.SPECS.update({
    'shelve': api_actions.ActionSpec('shelve', (vs.ACTIVE, vs.STOPPED, vs.PAUSED,
                                                vs.SUSPENDED), (None,), SHELVING),
    'shelveOffload': api_actions.ActionSpec('shelveOffload', (vs.SHELVED,), (None,),
                                            SHELVING_OFFLOADING),
})
_UNSHELVE = api_actions.ActionSpec('unshelve', (vs.SHELVED, vs.SHELVED_OFFLOADED), (None,),
                                   UNSHELVING)


class ShelveMixin:
    """Mixed into compute.api.API."""

    def shelve(self, context, instance):
        """Snapshot to '<name>-shelved' and stop; volume-backed servers offload at once."""
        self.check_locked(context, instance)
        api_actions.check_state(instance, api_actions.SPECS['shelve'])
        volume_backed = self.is_volume_backed(context, instance)
        image_id = None
        if not volume_backed:
            image_id = self._shelve_image(context, instance)
        try:
            inst = self.begin_action(context, instance, 'shelve')
        except Exception:
            if image_id:
                self.image_api.delete(context, image_id)
            raise
        if volume_backed:
            self.compute_rpcapi.shelve_offload_instance(context, inst, inst.host)
        else:
            self.compute_rpcapi.shelve_instance(context, inst, inst.host, image_id)

    def _shelve_image(self, context, instance):
        from nova.image import sysmeta
        props = dict(sysmeta.sysmeta_to_image(instance['system_metadata'])
                     .get('properties', {}))
        name = '%s-shelved' % instance['display_name']
        props.update({'image_type': 'snapshot', 'instance_uuid': instance['uuid'],
                      'base_image_ref': instance['image_ref'] or ''})
        props = {k: str(v) for k, v in props.items()
                 if k not in ('min_ram', 'min_disk', 'disk_format', 'container_format')}
        image = self.image_api.create(context, dict(
            name=name, disk_format='qcow2', container_format='bare', visibility='private',
            owner=instance['project_id'], min_disk=instance['root_gb'] or 0, min_ram=0,
            **props))
        return image['id']

    def shelve_offload(self, context, instance):
        self.check_locked(context, instance)
        api_actions.check_state(instance, api_actions.SPECS['shelveOffload'])
        inst = self.begin_action(context, instance, 'shelveOffload')
        self.compute_rpcapi.shelve_offload_instance(context, inst, inst.host)

    def unshelve(self, context, instance, zone=None, host=None, zone_given=False):
        """SHELVED: power on where it is. SHELVED_OFFLOADED: schedule again, then spawn.

        ``zone`` (2.77) and ``host`` (2.91) only apply to offloaded servers, as
        upstream; ``zone_given`` tells an explicit null zone (2.91: any zone).
        """
        self.check_locked(context, instance)
        spec = _UNSHELVE
        if instance['vm_state'] not in spec.vm_states:
            raise exception.InstanceInvalidState(action=spec.name,
                                                 instance_uuid=instance['uuid'],
                                                 attr='vm_state', state=instance['vm_state'])
        if instance['task_state'] is not None:
            raise exception.InstanceInvalidState(action=spec.name,
                                                 instance_uuid=instance['uuid'],
                                                 attr='task_state',
                                                 state=instance['task_state'])
        offloaded = instance['vm_state'] == vs.SHELVED_OFFLOADED
        if (zone_given or host is not None) and not offloaded:
            raise exception.Conflict('The server %s is in vm_state shelved: an availability '
                                     'zone or host can only be requested for a '
                                     'shelved_offloaded server.' % instance['uuid'])
        if host is not None and self.db.compute_node_get(host) is None:
            raise exception.Invalid(reason='Compute host %s could not be found.' % host)
        if zone is not None:
            self.check_availability_zone(context, zone)
        request_spec = {}
        if offloaded:
            # Without a new zone, the server stays in the zone it was created in,
            # unless 2.91 asked for any zone with an explicit null.
            request_spec['availability_zone'] = zone if zone_given else (
                self._shelved_zone(instance))
            request_spec['force_host'] = host
        values = {'task_state': UNSHELVING}
        if offloaded and zone_given:
            # 2.77 pins the server to the zone asked for; 2.91's null unpins it.
            values['system_metadata'] = dict(instance['system_metadata'] or {},
                                             pinned_az=zone or '')
        try:
            row = self.db.instance_update(instance['uuid'], values,
                                          expected_task_state=[None],
                                          expected_vm_state=list(spec.vm_states))
        except exception.UnexpectedTaskStateError:
            raise exception.InstanceInvalidState(action=spec.name,
                                                 instance_uuid=instance['uuid'],
                                                 attr='task_state', state='changing')
        self.db.action_start(context, instance['uuid'], 'unshelve')
        inst = instance_obj.Instance.from_db(row)
        if offloaded:
            self.conductor_api.unshelve_instance(context, inst, request_spec)
        else:
            self.compute_rpcapi.unshelve_instance(context, inst, inst.host)

    def delete_shelved_image(self, context, instance):
        """A shelved server's image goes with the server, as upstream."""
        if instance['vm_state'] not in (vs.SHELVED, vs.SHELVED_OFFLOADED):
            return
        image_id = (instance['system_metadata'] or {}).get('shelved_image_id')
        if not image_id:
            return
        try:
            self.image_api.delete(context, image_id)
        except Exception:  # noqa: BLE001 - a leftover image must not block the delete.
            LOG.warning('Could not delete shelve image %s of %s', image_id, instance['uuid'])

    # -- volumes of an offloaded server (no host: the API does the work) -------
    def attach_volume_offloaded(self, context, instance, volume_id, tag=None,
                                delete_on_termination=False, supports_multiattach=False):
        """Reserve the volume and record the BDM; unshelve connects it, as upstream.

        Multiattach volumes are refused here, as upstream does.
        """
        try:
            volume = self.volume_api.get(context, volume_id)
        except exception.VolumeNotFound:
            raise exception.Invalid(reason='Volume %s could not be found.' % volume_id)
        if volume.get('multiattach'):
            # Before the 2.60 gate, as upstream: no version attaches it here.
            raise exception.MultiattachToShelvedNotSupported()
        block_device.check_attachable(volume, supports_multiattach)
        if any(b['volume_id'] == volume_id
               for b in self.db.bdm_get_by_instance(instance['uuid'])):
            raise exception.Invalid(reason='Volume %s is already attached to the '
                                           'server.' % volume_id)
        inst = instance_obj.Instance.from_db(instance)
        volume_context = self.volume_api.context_for(context, inst)
        attachment = self.volume_api.attachment_create(volume_context, volume_id,
                                                       instance['uuid'])
        try:
            bdm = self.db.bdm_create({
                'instance_uuid': instance['uuid'], 'source_type': 'volume',
                'destination_type': 'volume', 'volume_id': volume_id,
                'device_type': 'disk', 'attachment_id': attachment['id'],
                'delete_on_termination': bool(delete_on_termination), 'tag': tag,
                'boot_index': None})
            self.volume_api.attachment_complete(volume_context, attachment['id'])
        except Exception:
            self.volume_api.attachment_delete(volume_context, attachment['id'])
            raise
        self.db.action_start(context, instance['uuid'], 'attach_volume')
        return bdm

    def detach_volume_offloaded(self, context, instance, bdm):
        if bdm['boot_index'] == 0:
            raise exception.Invalid(reason="Can't detach root device volume")
        inst = instance_obj.Instance.from_db(instance)
        if bdm['attachment_id']:
            try:
                self.volume_api.attachment_delete(self.volume_api.context_for(context, inst),
                                                  bdm['attachment_id'])
            except exception.NotFound:
                pass
        self.db.bdm_destroy(bdm['uuid'])
        self.db.action_start(context, instance['uuid'], 'detach_volume')

    def _shelved_zone(self, instance):
        sysmeta = instance['system_metadata'] or {}
        return sysmeta.get('pinned_az', sysmeta.get('requested_availability_zone')) or None
