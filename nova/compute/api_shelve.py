"""Shelve, shelve offload and unshelve in the compute API: upstream's states and checks."""

import logging

from nova import exception
from nova import vm_states as vs
from nova.compute import api_core, api_handoff
from nova.image import sysmeta
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)
_UNSHELVE = api_core.ActionSpec('unshelve', (vs.SHELVED, vs.SHELVED_OFFLOADED), (None,),
                                api_core.UNSHELVING)


class ShelveAPI:
    """Shelving servers, and the image a shelved server keeps."""

    def __init__(self, db, image_api, compute_rpcapi, conductor_api, core, zones):
        self._db = db
        self._image_api = image_api
        self._compute_rpcapi = compute_rpcapi
        self._conductor_api = conductor_api
        self._core = core
        self._zones = zones

    def shelve(self, context, instance):
        """Snapshot to '<name>-shelved' and stop; volume-backed servers offload at once."""
        api_core.check_locked(context, instance)
        api_core.check_state(instance, api_core.SPECS['shelve'])
        volume_backed = self._core.is_volume_backed(context, instance)
        image_id = None
        if not volume_backed:
            image_id = self._shelve_image(context, instance)
        # Refused or not sent, the empty image goes.
        undo = [lambda: self._image_api.delete(context, image_id)] if image_id else []
        with self._core.action(context, instance, 'shelve', undo=undo) as inst:
            if volume_backed:
                self._compute_rpcapi.shelve_offload_instance(context, inst, inst.host)
            else:
                self._compute_rpcapi.shelve_instance(context, inst, inst.host, image_id)

    def _shelve_image(self, context, instance):
        props = dict(sysmeta.sysmeta_to_image(instance['system_metadata'])
                     .get('properties', {}))
        name = '%s-shelved' % instance['display_name']
        props.update({'image_type': 'snapshot', 'instance_uuid': instance['uuid'],
                      'base_image_ref': instance['image_ref'] or ''})
        props = {k: str(v) for k, v in props.items()
                 if k not in ('min_ram', 'min_disk', 'disk_format', 'container_format')}
        image = self._image_api.create(context, dict(
            name=name, disk_format='qcow2', container_format='bare', visibility='private',
            owner=instance['project_id'], min_disk=instance['root_gb'] or 0, min_ram=0,
            **props))
        return image['id']

    def shelve_offload(self, context, instance):
        api_core.check_locked(context, instance)
        api_core.check_state(instance, api_core.SPECS['shelveOffload'])
        with self._core.action(context, instance, 'shelveOffload') as inst:
            self._compute_rpcapi.shelve_offload_instance(context, inst, inst.host)

    def unshelve(self, context, instance, zone=None, host=None, zone_given=False):
        """SHELVED: power on where it is. SHELVED_OFFLOADED: schedule again, then spawn.

        ``zone`` (2.77) and ``host`` (2.91) only apply to offloaded servers, as
        upstream; ``zone_given`` tells an explicit null zone (2.91: any zone).
        """
        api_core.check_locked(context, instance)
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
        if host is not None and self._db.compute_node_get(host) is None:
            raise exception.Invalid(reason='Compute host %s could not be found.' % host)
        if zone is not None:
            self._zones.check_availability_zone(context, zone)
        request_spec = {}
        if offloaded:
            # Without a new zone, the server stays in the zone it was created in,
            # unless 2.91 asked for any zone with an explicit null.
            request_spec['availability_zone'] = zone if zone_given else (
                self._shelved_zone(instance))
            request_spec['force_host'] = host
        values = {'task_state': api_core.UNSHELVING}
        if offloaded and zone_given:
            # 2.77 pins the server to the zone asked for; 2.91's null unpins it.
            values['system_metadata'] = dict(instance['system_metadata'] or {},
                                             pinned_az=zone or '')
        try:
            row = self._db.instance_update(instance['uuid'], values,
                                           expected_task_state=[None],
                                           expected_vm_state=list(spec.vm_states))
        except exception.UnexpectedTaskStateError:
            raise exception.InstanceInvalidState(action=spec.name,
                                                 instance_uuid=instance['uuid'],
                                                 attr='task_state', state='changing')
        action_id = self._db.action_start(context, instance['uuid'], 'unshelve')
        inst = instance_obj.Instance.from_db(row)
        claim = api_handoff.Claim(instance['uuid'], 'unshelve', task_state=api_core.UNSHELVING,
                                  restore={k: instance[k] for k in values},
                                  action_id=action_id)
        with self._core.handoff.sending(
                context, claim, 'nova-conductor' if offloaded else 'nova-compute'):
            if offloaded:
                self._conductor_api.unshelve_instance(context, inst, request_spec)
            else:
                self._compute_rpcapi.unshelve_instance(context, inst, inst.host)

    def delete_shelved_image(self, context, instance):
        """A shelved server's image goes with the server, as upstream."""
        if instance['vm_state'] not in (vs.SHELVED, vs.SHELVED_OFFLOADED):
            return
        image_id = (instance['system_metadata'] or {}).get('shelved_image_id')
        if not image_id:
            return
        try:
            self._image_api.delete(context, image_id)
        except Exception:  # noqa: BLE001 - a leftover image must not block the delete.
            LOG.warning('Could not delete shelve image %s of %s', image_id, instance['uuid'])

    @staticmethod
    def _shelved_zone(instance):
        meta = instance['system_metadata'] or {}
        return meta.get('pinned_az', meta.get('requested_availability_zone')) or None
