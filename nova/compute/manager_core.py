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

    def record_device_metadata(self, instance, bdms=None):
        """Keep the guest's tagged devices as it sees them (meta_data.json "devices").

        Called once a guest is (re)defined and after an interface or volume
        is attached or detached; read from the live domain, so each device
        carries the address the hypervisor gave it. Nothing is read or
        written when no port or mapping carries a tag (or a port a VLAN) and
        none was recorded before. ``bdms``: the instance's BDM rows when the
        caller has just read them (only their tags are looked at; the rows
        are read again when there is something to record).
        """
        try:
            recorded = instance.obj_attr_is_set('device_metadata') and instance.device_metadata
            rows = self.bdms(instance.uuid) if bdms is None else bdms
            if not recorded and not _has_tagged_devices(instance, rows):
                return
            if bdms is not None:
                rows = self.bdms(instance.uuid)
            devices = self.driver.get_device_metadata(instance, rows)
            instance.device_metadata = devices
            self.conductor_db.instance_update(instance.uuid, {'device_metadata': devices})
        except exception.InstanceNotFound:
            LOG.info('Instance %s went away before its devices were recorded', instance.uuid)
        except Exception:  # noqa: BLE001 - a running guest is not failed for its record.
            LOG.warning('Could not record the tagged devices of %s', instance.uuid,
                        exc_info=True)

    def record_guest(self, instance, only_if_new=False, bdms=None):
        """The NUMA record and the tagged devices of a guest just (re)defined."""
        self.record_numa_topology(instance, only_if_placed=only_if_new)
        self.record_device_metadata(instance, bdms)

    def bdms(self, instance_uuid):
        return self.conductor_db.bdm_get_by_instance(instance_uuid)

    def block_device_info(self, context, instance):
        return block_device.block_device_info(self.bdms(instance.uuid),
                                              instance.root_device_name)

    def release_claim(self, flavor):
        """Give this host's room for ``flavor`` back (a delete, an offload)."""
        self.conductor_db.compute_node_release(self.host, *usage.requested_resources(flavor))


def _has_tagged_devices(instance, bdms):
    """Whether any mapping has a device tag, or any port a tag or a VLAN."""
    if any(b.get('tag') for b in bdms):
        return True
    return any((vif.get('meta') or {}).get('tag') or (vif.get('details') or {}).get('vlan')
               for vif in getattr(instance, 'network_info', None) or ())
