"""Compute manager: build an instance on this host and delete it (guest, volumes, claim)."""

import logging

from oslo_utils import timeutils

from nova import exception, failpoint, power_state
from nova import vm_states as vs
from nova.compute import actions, block_device, manager_core, personality
from nova.notifications import action as notify
from nova.objects import image_meta as image_meta_obj
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)


class BuildManager:
    """Builds (volumes, device names, spawn) and deletes, each under the instance lock."""

    target = manager_core.RPC_TARGET

    def __init__(self, core, volumes, resize, network_api=None):
        self.core = core
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        self._volumes = volumes
        # Deleting a server in VERIFY_RESIZE confirms the resize first.
        self._resize = resize
        # The network service, once there is one: ports allocated before the
        # spawn and deallocated on delete. None: servers boot without networks.
        self.network_api = network_api

    @notify.instance_action('create', 'InstanceCreatePayload')
    def build_and_run_instance(self, context, instance, request_spec, admin_password=None,
                               image=None):
        """Build and start ``instance`` (claimed here by the conductor).

        ``image``: sent by senders before RPC 1.6 and not read; the image
        metadata comes from the instance's system metadata.
        """
        spec = request_spec or {}
        with self.core.lock(instance.uuid):
            self._build(context, instance, admin_password,
                        injected_files=spec.get('injected_files'),
                        requested_networks=spec.get('requested_networks'),
                        security_groups=spec.get('security_groups'))

    def _build(self, context, instance, admin_password, injected_files=None,
               requested_networks=None, security_groups=None):
        try:
            row = self.conductor_db.instance_update(instance.uuid, {'task_state': vs.SPAWNING},
                                                    expected_task_state=[vs.SCHEDULING])
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            # Deleted meanwhile: the delete path releases the claim.
            LOG.info('Instance %s went away before the build started', instance.uuid)
            return
        instance.refresh_from(row)
        LOG.info('Building instance %s', instance.uuid)
        try:
            with self.core.event(context, instance.uuid,
                               'compute_build_and_run_instance', host=self.host):
                network_info = self._allocate_network(context, instance, requested_networks,
                                                      security_groups)
                # Compare-and-swap: a delete arriving meanwhile wins.
                self.conductor_db.instance_update(instance.uuid,
                                                  {'task_state': vs.BLOCK_DEVICE_MAPPING},
                                                  expected_task_state=[vs.SPAWNING])
                self._volumes.prepare_volumes(context, instance)
                self.conductor_db.instance_update(instance.uuid, {'task_state': vs.SPAWNING},
                                                  expected_task_state=[vs.BLOCK_DEVICE_MAPPING])
                image_meta = image_meta_obj.ImageMeta.from_instance(instance)
                bdm_rows = self.core.bdms(instance.uuid)
                bdi = block_device.block_device_info(bdm_rows, instance.root_device_name)
                # Names first (a conflict fails before any disk exists); spawn
                # computes the same mapping.
                self._volumes.record_devices(instance, image_meta, bdi)
                if bdi['tagged_mappings']:
                    # With the names just chosen: a config drive lists tagged disks.
                    bdi['tagged_mappings'] = block_device.tagged_mappings(
                        self.core.bdms(instance.uuid))
                self.driver.spawn(context, instance, image_meta,
                                  injected_files=personality.decoded(injected_files),
                                  admin_password=admin_password, allocations=None,
                                  network_info=network_info, block_device_info=bdi)
                failpoint.hit('build.after_spawn')
                self._volumes.complete_volumes(context, instance)
        except Exception as exc:  # noqa: BLE001 - any failure is recorded, not raised.
            if not self._deleted_meanwhile(instance):
                LOG.exception('Build of %s failed', instance.uuid)
            self._build_failed(context, instance, exc, requested_networks)
            return
        now = timeutils.utcnow().replace(microsecond=0)
        try:
            self.conductor_db.instance_update(instance.uuid, {
                'vm_state': vs.ACTIVE, 'task_state': None, 'launched_at': now,
                'power_state': self.driver.get_info(instance).state},
                expected_task_state=[vs.SPAWNING])
            LOG.info('Instance %s built and running', instance.uuid)
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            # Deleted while spawning; the delete path cleans up the guest.
            LOG.info('Instance %s was deleted during spawn', instance.uuid)
            return
        # A new guest starts with no record: only a NUMA guest needs the write.
        self.core.record_guest(instance, only_if_new=True, bdms=bdm_rows)

    # -- ports ---------------------------------------------------------------
    def _allocate_network(self, context, instance, requested_networks, security_groups):
        """The server's ports, created and bound to this host, saved as its
        network info before anything else is built; [] without a network
        service. A failure leaves no port behind (the allocator's promise)."""
        if self.network_api is None:
            return []
        self.conductor_db.instance_update(instance.uuid, {'task_state': vs.NETWORKING},
                                          expected_task_state=[vs.SPAWNING])
        # Neutron's network-changed for these ports waits until this cache (which
        # marks the user's own ports) is saved, and then starts from it.
        with self.core.cache_lock(instance.uuid):
            network_info = self.network_api.ports.allocate_for_instance(
                context, instance, requested_networks, security_groups,
                bind_host_id=self.host)
            instance.network_info = network_info
            self.conductor_db.instance_update(instance.uuid, {'network_info': network_info,
                                                              'task_state': vs.SPAWNING},
                                              expected_task_state=[vs.NETWORKING])
        return network_info

    def deallocate_network(self, context, instance, requested_networks=None):
        """Delete the ports made for the server, unbind the user's (no-op
        without a network service); raises NetworkServiceError when Neutron
        could not do it."""
        if self.network_api is None:
            return
        self.network_api.ports.deallocate_for_instance(context, instance, requested_networks)
        instance.network_info = []

    def _deallocate_after_failure(self, context, instance, requested_networks):
        try:
            self.deallocate_network(context, instance, requested_networks)
        except Exception:  # noqa: BLE001 - the build failure is what the user sees.
            LOG.exception('Could not release the ports of %s after its failed build',
                          instance.uuid)

    def _deleted_meanwhile(self, instance):
        """True when this instance itself is gone or being deleted."""
        try:
            return self.conductor_db.instance_get(instance.uuid)['task_state'] == vs.DELETING
        except exception.InstanceNotFound:
            return True

    def _build_failed(self, context, instance, exc, requested_networks=None):
        if self._deleted_meanwhile(instance):
            # Deleted during the build: the delete path cleans up; not a failure.
            LOG.info('Instance %s was deleted during its build', instance.uuid)
            self.driver.destroy(context, instance, destroy_disks=True)
            self._deallocate_after_failure(context, instance, requested_networks)
            return
        actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
        try:
            self.driver.destroy(context, instance, destroy_disks=True,
                                block_device_info=self.core.block_device_info(context, instance))
        except Exception:  # noqa: BLE001
            LOG.exception('Cleanup after failed build of %s failed', instance.uuid)
        try:
            # Leave the volumes available for the user, not stuck attaching.
            self._volumes.disconnect_volumes(context, instance)
        except Exception:  # noqa: BLE001
            LOG.exception('Volume cleanup after failed build of %s failed', instance.uuid)
        # No port stays bound to a server that never ran.
        self._deallocate_after_failure(context, instance, requested_networks)
        # The claim stays with the instance until it is deleted, like upstream
        # keeps an ERROR instance on its host; delete releases it exactly once.
        try:
            self.conductor_db.instance_update(instance.uuid, {'vm_state': vs.ERROR,
                                                              'task_state': None,
                                                              'power_state': power_state.NOSTATE})
        except exception.InstanceNotFound:
            pass

    # -- delete --------------------------------------------------------------
    @notify.instance_action('delete')
    def terminate_instance(self, context, instance):
        with self.core.lock(instance.uuid):
            try:
                row = self.conductor_db.instance_get(instance.uuid)
            except exception.InstanceNotFound:
                return
            with self.core.event(context, instance.uuid,
                               'compute_terminate_instance',
                               host=self.host):
                self.terminate(context, row)

    def terminate(self, context, row):
        """Remove the guest, its volumes and the row of an instance being deleted."""
        instance = instance_obj.Instance.from_db(row)
        self._resize.drop_resize_on_delete(context, row)
        self.driver.destroy(context, instance, destroy_disks=True,
                            block_device_info=self.core.block_device_info(context, instance))
        failpoint.hit('delete.after_destroy')
        try:
            self.deallocate_network(context, instance)
        except Exception as exc:  # noqa: BLE001 - kept for a retried delete, with a fault.
            LOG.exception('Could not release the ports of %s; it stays, in ERROR',
                          instance.uuid)
            actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
            self.conductor_db.instance_update(instance.uuid, {
                'vm_state': vs.ERROR, 'task_state': None,
                'power_state': power_state.NOSTATE})
            return
        self._volumes.disconnect_volumes(context, instance, delete_volumes=True)
        self.conductor_db.instance_destroy(row['uuid'])
        self.core.release_claim(row['flavor'])
