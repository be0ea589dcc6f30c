"""Compute manager: what every operation family shares (instance lock, state writes, disks)."""

import logging

import oslo_messaging as messaging
from oslo_concurrency import lockutils

from nova import exception
from nova import vm_states as vs
from nova.compute import actions, block_device, conductor_retry
from nova.compute import resources as usage

# The compute RPC version this host serves (history: nova/compute/rpcapi.py).
# Every endpoint carries this one target: oslo.messaging hands a message to
# the first endpoint whose target accepts its version and that has the method.
RPC_TARGET = messaging.Target(version='1.8')

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
        # Reports of finished work the conductor did not take are made again,
        # at once when it answers again; those that run out of tries wait in
        # ``unreported`` (uuid -> what) for the reconciliation's quick pass.
        self.unreported = {}
        self.retry = conductor_retry.ConductorRetry(self.lock, on_give_up=self.unreported
                                                    .__setitem__)
        on_recovered = getattr(conductor_db, 'on_recovered', None)
        if on_recovered is not None:
            on_recovered(self.retry.hurry)

    def lock(self, uuid):
        """One operation at a time per instance on this host (a semaphore)."""
        return lockutils.internal_lock(uuid, semaphores=self._semaphores)

    def cache_lock(self, uuid):
        """One writer of an instance's network info at a time (a build, a move,
        network-changed): each reads the saved cache, which marks the user's
        ports, and saves after the one before it."""
        return lockutils.internal_lock('refresh-cache-%s' % uuid,
                                       semaphores=self._semaphores)

    def power_state(self, instance):
        try:
            return self.driver.get_info(instance).state
        except exception.NotFound:
            return 0

    def event(self, context, instance_uuid, name, host=None):
        """``actions.event`` whose end, if the conductor does not take it, is made again."""
        return actions.event(self.conductor_db, context, instance_uuid, name, host=host,
                             retry=self.retry)

    def finish_task(self, instance, vm_state):
        """Clear the task and record the power state the hypervisor reports."""
        values = {'task_state': None, 'power_state': self.power_state(instance)}
        if vm_state is not None:
            values['vm_state'] = vm_state
        self.report(instance, values)

    def set_state(self, instance, vm_state, **extra):
        self.report(instance, dict(extra, vm_state=vm_state, task_state=None,
                                   power_state=self.power_state(instance)))

    def report(self, instance, values):
        """Write an operation's outcome; a conductor that does not take it gets it again.

        The first write is the operation's own. A later one applies only while
        the row still has an unfinished task that is not a delete (compare and
        swap on the task it read): a delete or a repair that came in the
        meantime wins, and a first write whose answer alone was lost is not
        made twice. No other operation can start while the task is set.
        """
        tries = []

        def write():
            expected = ()
            if tries:
                current = self.conductor_db.instance_get(instance.uuid)['task_state']
                if current is None or current in (vs.DELETING, vs.SOFT_DELETING):
                    LOG.info('%s of %s: the server moved on (task %s)', what, instance.uuid,
                             current)
                    return
                expected = [current]
            tries.append(1)
            self.conductor_db.instance_update(instance.uuid, values,
                                              expected_task_state=expected)
        what = 'Recording %s' % ', '.join('%s=%s' % (k, values[k]) for k in
                                          ('vm_state', 'task_state') if k in values)
        self.retry.run(instance.uuid, what, [write])

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
