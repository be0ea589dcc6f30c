"""Compute manager: power state sync (hypervisor events + periodic) and guests left running."""

import datetime
import logging
import threading
import types

from oslo_utils import timeutils

from nova import context as nova_context
from nova import exception
from nova import power_state as ps
from nova import vm_states as vs
from nova.compute import actions, retry_queue

LOG = logging.getLogger(__name__)

# vm_states whose power state is recorded but never acted upon (upstream).
_HANDS_OFF = (vs.BUILDING, vs.RESCUED, vs.RESIZED, vs.SUSPENDED, vs.ERROR)

STOP = 'stop'                 # through the stop path: vm_state becomes STOPPED
POWER_OFF = 'power_off'       # the guest is powered off; vm_state stays
BUSY = object()               # an operation holds the instance's lock

# An event for an instance busy with an operation is looked at again after it.
EVENT_RETRY_DELAY = 1.0
EVENT_RETRIES = 600


def sync_decision(vm_state, task_state, vm_power_state):
    """What upstream's _sync_instance_power_state does for a DB/hypervisor pair.

    Returns None (record the power state only), STOP or POWER_OFF.
    ``task_state`` not None means an operation is in progress: hands off.
    """
    if task_state is not None or vm_state in _HANDS_OFF:
        return None
    if vm_state == vs.ACTIVE:
        # Paused behind our back or not found (libvirtd restarting, say):
        # upstream only logs; a stopped, crashed or suspended guest is stopped.
        if vm_power_state in (ps.SHUTDOWN, ps.CRASHED, ps.SUSPENDED):
            return STOP
        return None
    if vm_state == vs.STOPPED:
        if vm_power_state not in (ps.NOSTATE, ps.SHUTDOWN, ps.CRASHED):
            return STOP       # started behind our back: upstream's force_stop
        return None
    if vm_state == vs.PAUSED:
        return STOP if vm_power_state in (ps.SHUTDOWN, ps.CRASHED) else None
    if vm_state in (vs.SOFT_DELETED, vs.DELETED):
        return POWER_OFF if vm_power_state not in (ps.NOSTATE, ps.SHUTDOWN) else None
    return None


def orphan_reason(row, files_ours, host, now, timeout):
    """Why a domain of ours counts as running-deleted, or None if it does not.

    ``row`` is the instance row for the domain's uuid (deleted rows included)
    or None when the database does not know it; ``files_ours`` says whether
    the domain keeps its files in this host's instance directory.
    """
    if row is None:
        return 'unknown to the database' if files_ours else None
    if not row['deleted']:
        return None
    if row['host'] not in (host, None) and not files_ours:
        return None
    deleted_at = row['deleted_at']
    if timeout and deleted_at is not None:
        if deleted_at.tzinfo is None:
            deleted_at = deleted_at.replace(tzinfo=datetime.timezone.utc)
        if now - deleted_at < datetime.timedelta(seconds=timeout):
            return None
    return 'instance deleted'


class LifecycleManager:
    """The instances' power state kept in step with their guests (hypervisor events and a
    periodic sync), and the guests left running with no live instance."""

    def __init__(self, core):
        self.core = core
        self.conf = core.conf
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        # Set by start_lifecycle_events (made again at each start, after a stop).
        self._events_stopped = None
        self._event_retries = None
        self._event_retry_lock = threading.Lock()
        self._event_retry_states = {}     # uuid -> latest power state of a pending look

    # ------------------------------------------------------------ events
    def start_lifecycle_events(self):
        start = getattr(self.driver, 'start_lifecycle_events', None)
        if start is None or not self.conf.handle_virt_lifecycle_events:
            return None
        self._events_stopped = threading.Event()
        # One thread for every pending retry (there may be dozens at once).
        self._event_retries = retry_queue.RetryQueue('lifecycle-event-retry')
        self._event_retry_lock = threading.Lock()
        self._event_retry_states = {}
        return start(self.handle_lifecycle_event, on_reconnect=self.sync_power_states)

    def stop_lifecycle_events(self):
        if self._events_stopped is not None:
            self._events_stopped.set()
        if self._event_retries is not None:
            self._event_retries.stop()
        stop = getattr(self.driver, 'stop_lifecycle_events', None)
        if stop is not None:
            stop()

    def handle_lifecycle_event(self, uuid, event_power_state, attempt=0):
        """A guest changed state: sync its instance as upstream's handler does."""
        stopped = self._events_stopped
        if stopped is not None and stopped.is_set():
            return
        if self._busy(uuid):
            # An operation of this host holds the instance (so it is ours):
            # nothing to read now, a look once it is done.
            self._retry_event(uuid, event_power_state, attempt)
            return
        try:
            row = self.conductor_db.instance_get(uuid)
        except exception.InstanceNotFound:
            return   # not an instance of ours (or deleted: see running-deleted)
        if row['host'] != self.host:
            return
        LOG.debug('Lifecycle event for %s: power state %s', uuid, event_power_state)
        if self._sync_one(row, event_power_state) is BUSY:
            # An operation holds the instance; the change may have come after
            # it read the state it will record, so look again once it is done.
            self._retry_event(uuid, event_power_state, attempt)

    def _busy(self, uuid):
        lock = self.core.lock(uuid)
        if lock.acquire(blocking=False):
            lock.release()
            return False
        return True

    def _retry_event(self, uuid, event_power_state, attempt):
        """Handle ``uuid`` again after EVENT_RETRY_DELAY. The events that come
        meanwhile (an operation's stop, define and start) share that one look:
        it reads the guest's state then; the latest event's power state only
        counts for a guest that is gone."""
        if attempt >= EVENT_RETRIES:
            return
        queue = self._retry_queue()
        with self._event_retry_lock:
            pending = uuid in self._event_retry_states
            self._event_retry_states[uuid] = event_power_state
        if not pending:
            queue.call_later(EVENT_RETRY_DELAY, self._event_retry, uuid, attempt + 1)

    def _event_retry(self, uuid, attempt):
        with self._event_retry_lock:
            event_power_state = self._event_retry_states.pop(uuid, None)
        self.handle_lifecycle_event(uuid, event_power_state, attempt)

    def _retry_queue(self):
        # Made at start_lifecycle_events; here for a handler called without it.
        if self._event_retries is None:
            self._event_retries = retry_queue.RetryQueue('lifecycle-event-retry')
        return self._event_retries

    # ------------------------------------------------------------ periodic
    def sync_power_states(self):
        """Record the hypervisor's view of each instance's power state and
        act on mismatches (the fallback when no event arrives)."""
        for row in self.conductor_db.instance_get_all({'host': self.host}):
            if row['task_state'] is not None:
                continue
            try:
                self._sync_one(row, None)
            except Exception:  # noqa: BLE001 - one instance must not stop the sync.
                LOG.exception('Power state sync of %s failed', row['uuid'])

    def _sync_one(self, row, event_power_state):
        lock = self.core.lock(row['uuid'])
        # An operation holding the lock records the state it leaves behind.
        if not lock.acquire(blocking=False):
            return BUSY
        try:
            try:
                row = self.conductor_db.instance_get(row['uuid'])
            except exception.InstanceNotFound:
                return
            if row['task_state'] is not None:
                return
            state = self._query_power_state(row, event_power_state)
            decision = sync_decision(row['vm_state'], row['task_state'], state)
            try:
                if state != row['power_state']:
                    row = self.conductor_db.instance_update(row['uuid'], {'power_state': state},
                                                            expected_task_state=[None])
                if decision == STOP:
                    row = self.conductor_db.instance_update(
                        row['uuid'], {'task_state': vs.POWERING_OFF},
                        expected_task_state=[None], expected_vm_state=[row['vm_state']])
            except (exception.UnexpectedTaskStateError, exception.InstanceNotFound):
                return   # an action or a delete started meanwhile: it wins
        finally:
            lock.release()
        if decision == STOP:
            LOG.warning('Instance %s is %s but its guest is %s: stopping it',
                        row['uuid'], row['vm_state'], ps.STATE_MAP.get(state, state))
            self._force_stop(_obj(row))
        elif decision == POWER_OFF:
            LOG.warning('Instance %s is %s but its guest runs: powering it off',
                        row['uuid'], row['vm_state'])
            self.driver.power_off(_obj(row))

    def _force_stop(self, instance):
        """Upstream's stop path without the clean shutdown: a stop action on
        record, the guest powered off at once, the server STOPPED."""
        ctx = nova_context.get_admin_context()
        self.conductor_db.action_start(ctx, instance.uuid, 'stop')
        with self.core.lock(instance.uuid):
            try:
                with self.core.event(ctx, instance.uuid, 'compute_stop_instance',
                                   host=self.host):
                    self.driver.power_off(instance)
            except Exception as exc:  # noqa: BLE001 - recorded, instance stays usable.
                LOG.exception('Stopping %s after a power state sync failed', instance.uuid)
                actions.record_fault(self.conductor_db, instance.uuid, exc, host=self.host)
                self.core.finish_task(instance, None)
                return
            self.core.finish_task(instance, vs.STOPPED)

    def _query_power_state(self, row, event_power_state):
        """The hypervisor's state now; an event can be older than that."""
        try:
            return self.driver.get_info(_obj(row)).state
        except exception.NotFound:
            # A transient guest is gone once stopped: the event told it.
            if event_power_state in (ps.SHUTDOWN, ps.CRASHED):
                return event_power_state
            return ps.NOSTATE

    # ------------------------------------------------------------ orphans
    def cleanup_running_deleted_instances(self):
        """Guests of ours still on the hypervisor with no live instance:
        [DEFAULT]running_deleted_instance_action says what happens to them."""
        action = self.conf.running_deleted_instance_action
        lister = getattr(self.driver, 'list_own_domains', None)
        if action == 'noop' or lister is None:
            return []
        now = timeutils.utcnow(with_timezone=True)
        handled = []
        for uuid, name, files_ours in lister(self.conf.instance_name_template):
            try:
                row = self.conductor_db.instance_get(uuid, read_deleted=True)
            except exception.InstanceNotFound:
                row = None
            reason = orphan_reason(row, files_ours, self.host, now,
                                   self.conf.running_deleted_instance_timeout)
            if reason is None:
                continue
            lock = self.core.lock(uuid)
            if not lock.acquire(blocking=False):
                continue
            try:
                self._handle_orphan(action, uuid, name, row, reason)
                handled.append(uuid)
            except Exception:  # noqa: BLE001 - the next guest still gets handled.
                LOG.exception('Handling running-deleted guest %s failed', uuid)
            finally:
                lock.release()
        return handled

    def _handle_orphan(self, action, uuid, name, row, reason):
        instance = _obj(row) if row is not None else types.SimpleNamespace(
            uuid=uuid, name=name)
        LOG.warning('Guest %s (%s) runs with no live instance (%s); action: %s',
                    name, uuid, reason, action)
        if action == 'shutdown':
            self.driver.power_off(instance)
        elif action == 'reap':
            self.driver.destroy(nova_context.get_admin_context(), instance,
                                destroy_disks=True)


def _obj(row):
    from nova.objects import instance as instance_obj
    return instance_obj.Instance.from_db(row)
