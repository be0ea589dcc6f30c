"""Compute manager: what every operation family shares (instance lock, state writes, disks)."""

import logging

import oslo_messaging as messaging
from oslo_concurrency import lockutils

from nova import exception
from nova.compute import block_device
from nova.compute import resources as usage

# The compute RPC version this host serves (history: nova/compute/rpcapi.py).
# Every endpoint carries this one target: oslo.messaging hands a message to
# the first endpoint whose target accepts its version and that has the method.
RPC_TARGET = messaging.Target(version='1.7')

LOG = logging.getLogger(__name__)


class ManagerCore:
    """The host's handles (conf, conductor database proxy, driver, host name) and the
    few helpers most families need. ``conductor_db`` is ``nova.compute.conductor_db``'s
    proxy: every read and write goes through the conductor."""

    def __init__(self, conf, conductor_db, driver, host):
        self.conf = conf
        self.conductor_db = conductor_db
        self.driver = driver
        self.host = host
        # oslo.concurrency keeps a semaphore only while someone holds it.
        self._semaphores = lockutils.Semaphores()

    def lock(self, uuid):
        """One operation at a time per instance on this host (a semaphore)."""
        return lockutils.internal_lock(uuid, semaphores=self._semaphores)

    def power_state(self, instance):
        try:
            return self.driver.get_info(instance).state
        except exception.NotFound:
            return 0

    def finish_task(self, instance, vm_state):
        """Clear the task and record the power state the hypervisor reports."""
        values = {'task_state': None, 'power_state': self.power_state(instance)}
        if vm_state is not None:
            values['vm_state'] = vm_state
        try:
            self.conductor_db.instance_update(instance.uuid, values)
        except exception.InstanceNotFound:
            pass

    def set_state(self, instance, vm_state, **extra):
        values = dict(extra, vm_state=vm_state, task_state=None,
                      power_state=self.power_state(instance))
        try:
            self.conductor_db.instance_update(instance.uuid, values)
        except exception.InstanceNotFound:
            pass

    def record_numa_topology(self, instance, only_if_placed=False):
        """Keep the NUMA cells the driver placed the guest on (GET /servers/{id}/topology).

        Called once a guest is (re)defined from its flavor and image: build,
        rebuild, resize and its revert, unshelve. None clears an old record.
        """
        try:
            topology = self.driver.get_numa_topology(instance)
            if topology is not None or not only_if_placed:
                self.conductor_db.instance_update(instance.uuid, {'numa_topology': topology})
        except Exception:  # noqa: BLE001 - a running guest is not failed for its record.
            LOG.warning('Could not record the NUMA topology of %s', instance.uuid,
                        exc_info=True)

    def bdms(self, instance_uuid):
        return self.conductor_db.bdm_get_by_instance(instance_uuid)

    def block_device_info(self, context, instance):
        return block_device.block_device_info(self.bdms(instance.uuid),
                                              instance.root_device_name)

    def release_claim(self, flavor):
        """Give this host's room for ``flavor`` back (a delete, an offload)."""
        self.conductor_db.compute_node_release(self.host, *usage.requested_resources(flavor))
