"""Compute manager: shelve (snapshot, stop), offload (free the host) and unshelve."""

import datetime
import logging

from oslo_utils import timeutils

from nova import context as nova_context
from nova import exception, power_state
from nova import vm_states as vs
from nova.compute import actions, manager_core, manager_ports
from nova.notifications import action as notify
from nova.objects import image_meta as image_meta_obj
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)
SHELVE_KEYS = ('shelved_at', 'shelved_image_id', 'shelved_host')
# What the API sets and shelve_instance moves through, before SHELVED.
SHELVE_TASKS = ('shelving', 'shelving_image_pending_upload', 'shelving_image_uploading')


class ShelveManager:
    """Shelve (a snapshot, the guest stopped), offload (the host freed) and unshelve."""

    target = manager_core.RPC_TARGET

    def __init__(self, core, repair, images, volumes, image_api, volume_api,
                 network_api=None):
        self.core = core
        self.conf = core.conf
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        self._repair = repair
        # The shelve image is a snapshot; unshelve connects volumes as a build does.
        self._images = images
        self._volumes = volumes
        self.image_api = image_api
        self.volume_api = volume_api
        # The ports stay the server's while it is offloaded, bound to no host.
        self.ports = manager_ports.PortMoves(core, network_api)

    def shelve_instance(self, context, instance, image_id):
        with self.core.lock(instance.uuid):
            previous = instance.vm_state
            uploaded = False
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_shelve_instance',
                                   host=self.host):
                    self.conductor_db.instance_update(
                        instance.uuid, {'task_state': 'shelving_image_pending_upload'})
                    self.driver.power_off(instance, timeout=self.conf.shutdown_timeout,
                                          retry_interval=5)
                    self.conductor_db.instance_update(instance.uuid,
                                                      {'task_state': 'shelving_image_uploading'})
                    self._images.snapshot(context, instance, image_id)
                    uploaded = True
            except Exception as exc:  # noqa: BLE001 - rolled back, recorded.
                if not uploaded:
                    LOG.exception('Shelve of %s failed', instance.uuid)
                    self._shelve_failed(context, instance, previous, image_id, exc)
                    return
                # Only the event's record failed: the shelve itself is done.
                LOG.warning('Shelve of %s: its event was not recorded (%s)', instance.uuid, exc)
            self._conductor_retry().run(instance.uuid, 'Recording the shelve', [
                lambda: self._mark_shelved(instance, image_id,
                                           expected=['shelving_image_uploading']),
                lambda: self._offload_if_at_once(context, instance)])

    def _offload_if_at_once(self, context, instance):
        if self.conf.shelved_offload_time == 0:
            self._shelve_offload(context, instance)

    def _shelve_failed(self, context, instance, previous, image_id, exc):
        """Back to ``previous`` (the guest running again if it was), with a fault; the
        unfinished image deleted. The conductor may be what failed: its writes
        are made again until it takes them."""
        code, message, details = actions.fault_values(exc)
        notify.fault_recorded(exc)
        self._delete_image(context, image_id)
        vm_state = self._restore_guest(context, instance, previous)
        self._conductor_retry().run(instance.uuid, 'Rolling back the shelve', [
            lambda: self.conductor_db.fault_create(instance.uuid, code, message,
                                                   details=details, host=self.host),
            lambda: self.conductor_db.instance_update(
                instance.uuid, {'vm_state': vm_state, 'task_state': None,
                                'power_state': self.core.power_state(instance)},
                expected_task_state=list(SHELVE_TASKS))])

    def _restore_guest(self, context, instance, previous):
        """Undo the shelve's power off; returns the vm_state the guest now matches."""
        wanted = {vs.ACTIVE: power_state.RUNNING, vs.PAUSED: power_state.PAUSED}.get(previous)
        if wanted is None or self.core.power_state(instance) == wanted:
            return previous
        try:
            try:
                bdi = self.core.block_device_info(context, instance)
            except Exception:  # noqa: BLE001 - the conductor may be what failed;
                bdi = None     # the domain is still defined, it needs none.
            self.driver.power_on(context, instance, None, block_device_info=bdi)
            if previous == vs.PAUSED:
                self.driver.pause(instance)
        except Exception:  # noqa: BLE001 - it stays off, and says so.
            LOG.exception('Could not start %s again after its failed shelve', instance.uuid)
            return vs.STOPPED
        return previous

    def reconcile_shelve(self, context, row):
        """After a restart: undo a shelve, or finish an offload, the crash interrupted.

        Returns True when ``row`` was one of those (handled here).
        """
        task = row['task_state']
        if task in SHELVE_TASKS:
            self._roll_back_shelve(context, row)
            return True
        if task == 'shelving_offloading':
            self._shelve_offload(context, instance_obj.Instance.from_db(row))
            return True
        return False

    def _roll_back_shelve(self, context, row):
        """A shelve a restart interrupted before SHELVED: undone as a failed one is.

        The guest runs again if the server was running, the unfinished image
        is deleted, the task cleared; an event and a fault say so.
        """
        self._repair.drop_unfinished_images(row)
        vm_state = self._restore_guest(context, instance_obj.Instance.from_db(row),
                                       row['vm_state'])
        self._repair.note(row['uuid'], 'the shelve was rolled back; the server is back in %s'
                          % vm_state)
        self._repair.set_after_repair(row, {'vm_state': vm_state})

    def _mark_shelved(self, instance, image_id, expected=None):
        row = self.conductor_db.instance_get(instance.uuid)
        sysmeta = dict(row['system_metadata'],
                       shelved_at=timeutils.utcnow().replace(microsecond=0).isoformat(),
                       shelved_image_id=image_id, shelved_host=self.host)
        values = {'vm_state': vs.SHELVED, 'task_state': None, 'system_metadata': sysmeta,
                  'power_state': self.core.power_state(instance)}
        if expected is None:
            row = self.conductor_db.instance_update(instance.uuid, values)
        else:
            row = self.conductor_db.instance_update(instance.uuid, values,
                                                    expected_task_state=expected)
        instance.refresh_from(row)

    def _conductor_retry(self):
        """Conductor writes made again later: the host's (``ManagerCore.retry``)."""
        return self.core.retry

    def shelve_offload_instance(self, context, instance):
        with self.core.lock(instance.uuid):
            if instance.vm_state != vs.SHELVED:
                # Volume-backed shelve offloads at once, as upstream.
                self._mark_shelved(instance, None)
            self._shelve_offload(context, instance)

    def _shelve_offload(self, context, instance):
        try:
            with self.core.event(context, instance.uuid,
                               'compute_shelve_offload_instance', host=self.host):
                self.conductor_db.instance_update(instance.uuid,
                                                  {'task_state': 'shelving_offloading'})
                bdi = self.core.block_device_info(context, instance)
                self.driver.destroy(context, instance, block_device_info=bdi,
                                    destroy_disks=True)
                self._park_volumes(context, instance)
                self.ports.unbind(context, instance)
                row = self.conductor_db.instance_get(instance.uuid)
                # Released before the state says so: whoever sees SHELVED_OFFLOADED
                # finds the room free.
                self.core.release_claim(row['flavor'])
                self.conductor_db.instance_update(instance.uuid, {
                    'vm_state': vs.SHELVED_OFFLOADED, 'task_state': None, 'host': None,
                    'node': None, 'power_state': power_state.SHUTDOWN})
        except exception.InstanceNotFound:
            return
        except Exception as exc:  # noqa: BLE001 - still SHELVED, recorded.
            LOG.exception('Shelve offload of %s failed', instance.uuid)
            actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
            self.core.finish_task(instance, vs.SHELVED)

    def _park_volumes(self, context, instance):
        """Disconnect the volumes from this host but keep them reserved, as upstream:
        a new attachment without a connector replaces the connected one, so no
        other server can take a volume while this one is offloaded."""
        volume_context = self.volume_api.context_for(context, instance)
        for bdm in self.core.bdms(instance.uuid):
            if bdm['destination_type'] != 'volume' or not bdm['volume_id']:
                continue
            parked = self.volume_api.attachment_create(volume_context, bdm['volume_id'],
                                                       instance.uuid)
            if bdm['attachment_id']:
                try:
                    self.volume_api.attachment_delete(volume_context, bdm['attachment_id'])
                except exception.NotFound:
                    pass
            self.conductor_db.bdm_update(bdm['uuid'], {'attachment_id': parked['id'],
                                                       'connection_info': None})

    def unshelve_instance(self, context, instance):
        with self.core.lock(instance.uuid):
            image_id = (instance.system_metadata or {}).get('shelved_image_id')
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_unshelve_instance', host=self.host):
                    if instance.vm_state == vs.SHELVED:
                        self.driver.power_on(context, instance, None,
                                             block_device_info=self.core.block_device_info(
                                                 context, instance))
                    else:
                        self._spawn_unshelved(context, instance, image_id)
            except Exception as exc:  # noqa: BLE001 - back to where it was, recorded.
                LOG.exception('Unshelve of %s failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self._unshelve_failed(context, instance)
                return
            row = self.conductor_db.instance_get(instance.uuid)
            sysmeta = {k: v for k, v in row['system_metadata'].items()
                       if k not in SHELVE_KEYS}
            self.conductor_db.instance_update(instance.uuid, {
                'vm_state': vs.ACTIVE, 'task_state': None, 'system_metadata': sysmeta,
                'power_state': self.core.power_state(instance),
                'launched_at': timeutils.utcnow().replace(microsecond=0)})
            if image_id:
                self._delete_image(context, image_id)

    def _spawn_unshelved(self, context, instance, image_id):
        self.conductor_db.instance_update(instance.uuid, {'task_state': 'spawning'})
        image_meta = image_meta_obj.ImageMeta.from_instance(instance)
        if image_id:
            # The root disk comes from the shelve snapshot, not the original image.
            image_meta.id = image_id
            image_meta.disk_format = 'qcow2'
        self.ports.bind_here(context, instance)
        self._volumes.prepare_volumes(context, instance)
        for bdm in self.core.bdms(instance.uuid):
            # Attached while offloaded: reserved, connected only now.
            if bdm['destination_type'] == 'volume' and bdm['attachment_id'] and \
                    not bdm['connection_info']:
                self._volumes.connect_volume(context, instance, bdm)
        bdi = self.core.block_device_info(context, instance)
        self._volumes.record_devices(instance, image_meta, bdi)
        bdi = self.core.block_device_info(context, instance)
        self.driver.spawn(context, instance, image_meta, injected_files=[],
                          admin_password=None, allocations=None, block_device_info=bdi)
        self._volumes.complete_volumes(context, instance)
        self.core.record_guest(instance)

    def _unshelve_failed(self, context, instance):
        if instance.vm_state == vs.SHELVED:
            self.core.finish_task(instance, vs.SHELVED)
            return
        try:
            self.driver.destroy(context, instance, destroy_disks=True,
                                block_device_info=self.core.block_device_info(context, instance))
            self._park_volumes(context, instance)
            self.ports.unbind(context, instance)
        except Exception:  # noqa: BLE001
            LOG.exception('Cleanup after the failed unshelve of %s failed', instance.uuid)
        self.core.release_claim(instance.flavor.to_dict())
        self.conductor_db.instance_update(instance.uuid, {
            'vm_state': vs.SHELVED_OFFLOADED, 'task_state': None, 'host': None, 'node': None,
            'power_state': power_state.SHUTDOWN})

    def _delete_image(self, context, image_id):
        if not image_id:
            return
        try:
            self.image_api.delete(context, image_id)
        except Exception:  # noqa: BLE001 - a leftover image is not worth failing for.
            LOG.warning('Could not delete shelve image %s', image_id)

    def offload_shelved_instances(self):
        """Offload servers SHELVED longer than [DEFAULT] shelved_offload_time."""
        wait = self.conf.shelved_offload_time
        if wait <= 0:
            return
        ctx = nova_context.get_admin_context()
        cutoff = timeutils.utcnow().replace(tzinfo=None, microsecond=0) - \
            datetime.timedelta(seconds=wait)
        for row in self.conductor_db.instance_get_all({'host': self.host, 'vm_state': vs.SHELVED,
                                                       'task_state': None}):
            shelved_at = (row['system_metadata'] or {}).get('shelved_at')
            if not shelved_at or datetime.datetime.fromisoformat(shelved_at) > cutoff:
                continue
            try:
                row = self.conductor_db.instance_update(row['uuid'],
                                                        {'task_state': 'shelving_offloading'},
                                                        expected_task_state=[None],
                                                        expected_vm_state=[vs.SHELVED])
            except (exception.UnexpectedTaskStateError, exception.InstanceNotFound):
                continue
            self.conductor_db.action_start(ctx, row['uuid'], 'shelveOffload')
            inst = instance_obj.Instance.from_db(row)
            with self.core.lock(inst.uuid):
                self._shelve_offload(ctx, inst)

