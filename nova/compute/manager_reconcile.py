"""Compute manager: crash reconciliation of the database with the hypervisor."""

import json
import logging
import time

from oslo_utils import timeutils

from nova import context as nova_context
from nova import exception, power_state
from nova import vm_states as vs
from nova.compute import conductor_db as conductor_link
from nova.compute import reconcile_decide as decide
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

_WHAT = {
    decide.FINISH_DELETE: 'the delete was finished',
    decide.FAIL_BUILD: 'the build was abandoned; the server is in ERROR',
    decide.ROLLBACK_RESCUE: 'the rescue was rolled back; the server keeps its disks '
                            'and previous state',
    decide.FINISH_RESCUE: 'the rescue had finished but its report was lost: recorded '
                          'as rescued',
    decide.FINISH_UNRESCUE: 'the unrescue was finished',
    decide.END_SNAPSHOT: 'the snapshot was abandoned and its unfinished image deleted',
    decide.FAIL_REBUILD: 'the rebuild was interrupted; the server is in ERROR (rebuild '
                         'it again or delete it)',
    decide.CLEAR_TASK: 'the unfinished task was cleared',
    decide.COMPLETE_ATTACH: 'the guest had volume %s: its attach was completed',
    decide.ROLLBACK_ATTACH: 'the guest did not have volume %s: its attach was rolled back',
    decide.FINISH_DETACH: 'the detach of volume %s was finished',
    decide.REATTACH: 'volume %s was attached but missing from the guest: attached again',
    decide.DROP_BDM: 'the volume service no longer attaches volume %s: mapping removed',
    'unmapped': 'the guest had volume %s that no mapping names: removed from the guest',
    'orphan': 'volume %s was reserved for the server but never mapped: reservation '
              'released',
}


class ReconcileManager:
    """Repairs what a crash (or a lost message) left: at start-up and periodically.

    Resize, shelve and live migration keep their own records (migration
    rows, shelve images): their families finish or undo their own
    operations (True when the row was one of them).
    """

    def __init__(self, core, repair, volume_api, build, volumes, resize, shelve, live_migrate):
        self.core = core
        self.conf = core.conf
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        self.volume_api = volume_api
        self._repair = repair
        # A delete that a crash interrupted is finished the way a delete runs.
        self._build = build
        self._volumes = volumes
        self._resize = resize
        self._shelve = shelve
        self._live_migrate = live_migrate
        # Set when the volume service does not answer: the rest of a run
        # leaves volumes alone instead of waiting on it once per instance.
        self._volumes_unreachable = False
        # attachment id -> when it was first seen with no mapping naming it.
        self._orphans_seen = {}

    def reconcile_instances(self, startup=False):
        """Repair every instance of this host left in the middle of an operation.

        At start-up nothing can be running, so every task state is stale.
        Periodically, an instance is looked at only when no operation holds its
        lock here and its row has not changed for ``stuck_task_timeout``.
        """
        ctx = nova_context.get_admin_context()
        min_age = 0 if startup else self.conf.stuck_task_timeout
        now = timeutils.utcnow().replace(tzinfo=None)
        repaired = 0
        self._volumes_unreachable = False
        for row in self.conductor_db.instance_get_all({'host': self.host}):
            lock = self.core.lock(row['uuid'])
            if not lock.acquire(blocking=False):
                continue  # an operation is running on it right now
            try:
                repaired += self._reconcile_one(ctx, row, now, min_age)
            except Exception:  # noqa: BLE001 - one instance must not block the rest.
                LOG.exception('Could not reconcile instance %s', row['uuid'])
            finally:
                lock.release()
        return repaired

    def reconcile_periodic(self):
        self.reconcile_instances(startup=False)

    def reconcile_unreported(self):
        """Repair, from the guest, the servers whose outcome this host could not report.

        ``core.unreported`` holds those whose report ran out of tries
        (``conductor_retry``). This host knows their operation ended here, so
        they need not wait ``stuck_task_timeout``: each is repaired as at
        start-up as soon as the conductor answers. Runs every
        ``[DEFAULT] lost_report_interval`` seconds; nothing to do, no call.
        """
        unreported = self.core.unreported
        if not unreported:
            return 0
        ctx = nova_context.get_admin_context()
        repaired = 0
        for uuid in list(unreported):
            lock = self.core.lock(uuid)
            if not lock.acquire(blocking=False):
                continue
            try:
                repaired += self._repair_unreported(ctx, uuid)
                unreported.pop(uuid, None)
            except exception.InstanceNotFound:
                unreported.pop(uuid, None)
            except Exception as exc:  # noqa: BLE001 - tried again on the next pass.
                if not conductor_link.link_failure(exc):
                    LOG.exception('Could not repair the unreported outcome of %s', uuid)
            finally:
                lock.release()
        return repaired

    def _repair_unreported(self, ctx, uuid):
        row = self.conductor_db.instance_get(uuid)
        if row['host'] != self.host or row['task_state'] is None:
            return 0
        plan = decide.instance_plan(row['vm_state'], row['task_state'],
                                    rescued=row['task_state'] == vs.RESCUING and
                                    self.driver.is_rescued(_obj(row)))
        if plan is None:
            return 0
        LOG.warning('Reconciling %s (%s/%s), whose outcome was not reported: %s',
                    uuid, row['vm_state'], row['task_state'], plan)
        getattr(self, '_reconcile_' + plan)(ctx, row)
        return 1

    # -- one instance ----------------------------------------------------------
    def _reconcile_one(self, ctx, row, now, min_age):
        stale = decide.stale(row['updated_at'], now, min_age)
        if stale and (self._resize.reconcile_resize(ctx, row) or
                      self._shelve.reconcile_shelve(ctx, row) or
                      self._live_migrate.reconcile_live_migration(ctx, row)):
            return 1
        plan = decide.instance_plan(row['vm_state'], row['task_state'],
                                    rescued=row['task_state'] == vs.RESCUING and
                                    self.driver.is_rescued(_obj(row)))
        if plan is not None and stale:
            LOG.warning('Reconciling %s (%s/%s): %s', row['uuid'], row['vm_state'],
                        row['task_state'], plan)
            getattr(self, '_reconcile_' + plan)(ctx, row)
            if plan in (decide.FINISH_DELETE, decide.FAIL_BUILD):
                return 1
            row = self.conductor_db.instance_get(row['uuid'])
        elif plan is not None:
            return 0
        fixed = int(plan is not None)
        # Not RESCUED: the rescue domain is not the server's own definition.
        if row['vm_state'] in (vs.ACTIVE, vs.STOPPED, vs.PAUSED, vs.SUSPENDED) and \
                not self._volumes_unreachable:
            try:
                fixed += self._reconcile_volumes(ctx, row, now, min_age)
            except exception.VolumeServiceError:
                LOG.warning('The volume service does not answer: volumes are '
                            'reconciled on a later run')
                self._volumes_unreachable = True
        if stale and not fixed:
            fixed += self._close_interrupted(row['uuid'])
        return fixed

    def _close_interrupted(self, uuid):
        """An action whose compute event never ended (no state to repair): say so."""
        recent = self.conductor_db.actions_get(uuid, limit=1)
        if not recent:
            return 0
        events = self.conductor_db.events_get(recent[0]['id'])
        if not any(e['finish_time'] is None and e['event'].startswith('compute_')
                   for e in events):
            return 0
        self._repair.note(uuid, 'the %s was interrupted and did not take effect'
                          % recent[0]['action'])
        return 1

    def _reconcile_finish_delete(self, ctx, row):
        self._repair.note(row['uuid'], _WHAT[decide.FINISH_DELETE], fault=False)
        self._build.terminate(ctx, row)

    def _reconcile_fail_build(self, ctx, row):
        instance = _obj(row)
        self._repair.note(row['uuid'], _WHAT[decide.FAIL_BUILD])
        self.driver.destroy(ctx, instance, destroy_disks=True,
                            block_device_info=self.core.block_device_info(ctx, instance))
        # Volumes go back to available, not stuck attaching.
        self._volumes.disconnect_volumes(ctx, instance)
        # The claim stays with the ERROR instance until it is deleted.
        self.conductor_db.instance_update(row['uuid'], {'vm_state': vs.ERROR, 'task_state': None,
                                                        'power_state': power_state.NOSTATE})

    def _reconcile_rollback_rescue(self, ctx, row):
        instance = _obj(row)
        if self.driver.has_rescue_state(instance):
            self.driver.unrescue(ctx, instance)
            if row['vm_state'] == vs.STOPPED:
                self.driver.power_off(instance)
        self._repair.note(row['uuid'], _WHAT[decide.ROLLBACK_RESCUE])
        self._repair.set_after_repair(row, {'vm_state': row['vm_state']})

    def _reconcile_finish_rescue(self, ctx, row):
        # What the user asked for happened: an event says so, no fault.
        self._repair.note(row['uuid'], _WHAT[decide.FINISH_RESCUE], fault=False)
        self._repair.set_after_repair(row, {'vm_state': vs.RESCUED})

    def _reconcile_finish_unrescue(self, ctx, row):
        instance = _obj(row)
        if self.driver.has_rescue_state(instance):
            self.driver.unrescue(ctx, instance)
        self._repair.note(row['uuid'], _WHAT[decide.FINISH_UNRESCUE])
        self._repair.set_after_repair(row, {'vm_state': vs.ACTIVE})

    def _reconcile_end_snapshot(self, ctx, row):
        instance = _obj(row)
        self._repair.drop_unfinished_images(row)
        # A crash during the copy leaves the guest paused.
        if row['vm_state'] == vs.ACTIVE and \
                self.core.power_state(instance) == power_state.PAUSED:
            self.driver.unpause(instance)
        self._repair.note(row['uuid'], _WHAT[decide.END_SNAPSHOT])
        self._repair.set_after_repair(row, {})

    def _reconcile_fail_rebuild(self, ctx, row):
        self._repair.note(row['uuid'], _WHAT[decide.FAIL_REBUILD])
        self._repair.set_after_repair(row, {'vm_state': vs.ERROR})

    def _reconcile_clear_task(self, ctx, row):
        state = decide.reached_vm_state(row['task_state'], row['vm_state'],
                                        self.core.power_state(_obj(row)))
        if state != row['vm_state']:
            # The guest shows the task done: only its report was lost.
            self._repair.note(row['uuid'], '%s had finished but its report was lost: '
                              'recorded as %s' % (row['task_state'], state), fault=False)
        else:
            self._repair.note(row['uuid'],
                              _WHAT[decide.CLEAR_TASK] + ' (%s)' % row['task_state'])
        self._repair.set_after_repair(row, {'vm_state': state})

    # -- volumes ---------------------------------------------------------------
    def _reconcile_volumes(self, ctx, row, now, min_age):
        """Make the guest, the mappings and the volume service agree."""
        instance = _obj(row)
        try:
            in_guest = self.driver.guest_volume_disks(instance)
        except exception.NotFound:
            in_guest = None
        detaching = self._detach_pending(row['uuid'])
        vctx = self.volume_api.context_for(ctx, instance)
        fixed = 0
        for bdm in self.core.bdms(row['uuid']):
            if bdm['destination_type'] != 'volume' or not bdm['attachment_id'] or \
                    not decide.stale(bdm['updated_at'] or bdm['created_at'], now, min_age):
                continue
            try:
                status = self.volume_api.attachment_get(vctx, bdm['attachment_id'])['status']
            except exception.NotFound:
                status = None
            plan = decide.volume_plan(status, bool(in_guest and bdm['volume_id'] in in_guest),
                                      detaching, guest_known=in_guest is not None)
            if plan == decide.VOLUME_OK:
                continue
            LOG.warning('Reconciling volume %s of %s: %s', bdm['volume_id'], row['uuid'],
                        plan)
            getattr(self, '_volume_' + plan)(ctx, vctx, instance, bdm, in_guest or {})
            self._repair.note(row['uuid'], _WHAT[plan] % bdm['volume_id'])
            fixed += 1
        # The reverse: a disk the guest has that no mapping names (e.g. a
        # rollback that could not take it out of the definition).
        mapped = {b['volume_id'] for b in self.core.bdms(row['uuid']) if b['volume_id']}
        for volume_id, device in sorted((in_guest or {}).items()):
            if volume_id not in mapped:
                LOG.warning('Removing unmapped volume %s from %s', volume_id, row['uuid'])
                self.driver.detach_volume(ctx, None, instance, device)
                self._repair.note(row['uuid'], _WHAT['unmapped'] % volume_id)
                fixed += 1
        return fixed + self._release_orphans(vctx, row['uuid'], min_age)

    def _release_orphans(self, vctx, uuid, min_age):
        """Attachments the volume service keeps for the server that no mapping names.

        An API that died between reserving the volume and recording the
        mapping leaves one. The volume service gives no creation time, so the
        periodic run releases one only once it has seen it orphaned for
        ``min_age`` seconds (the API records the mapping within moments).
        """
        attachments = self.volume_api.attachment_list(vctx, uuid)
        known = {b['attachment_id'] for b in self.core.bdms(uuid) if b['attachment_id']}
        seen = self._orphans_seen
        now = time.monotonic()
        fixed = 0
        for attachment in attachments:
            if attachment['id'] in known:
                seen.pop(attachment['id'], None)
                continue
            first = seen.setdefault(attachment['id'], now)
            if now - first < min_age:
                continue
            try:
                self.volume_api.attachment_delete(vctx, attachment['id'])
            except exception.NotFound:
                pass
            seen.pop(attachment['id'], None)
            self._repair.note(uuid, _WHAT['orphan'] % attachment['volume_id'])
            fixed += 1
        return fixed

    def _detach_pending(self, uuid):
        recent = self.conductor_db.actions_get(uuid, limit=1)
        if not recent or recent[0]['action'] != 'detach_volume':
            return False
        return any(e['finish_time'] is None for e in self.conductor_db.events_get(recent[0]['id']))

    def _volume_complete_attach(self, ctx, vctx, instance, bdm, in_guest):
        self.volume_api.attachment_complete(vctx, bdm['attachment_id'])

    def _volume_rollback_attach(self, ctx, vctx, instance, bdm, in_guest):
        self._forget_attachment(vctx, bdm)

    def _volume_finish_detach(self, ctx, vctx, instance, bdm, in_guest):
        self._unplug(ctx, instance, bdm, in_guest)
        self._forget_attachment(vctx, bdm)

    def _volume_drop_bdm(self, ctx, vctx, instance, bdm, in_guest):
        self._unplug(ctx, instance, bdm, in_guest)
        self.conductor_db.bdm_destroy(bdm['uuid'])

    def _volume_reattach(self, ctx, vctx, instance, bdm, in_guest):
        self.driver.attach_volume(ctx, json.loads(bdm['connection_info']), instance,
                                  bdm['device_name'], disk_bus=bdm['disk_bus'],
                                  device_type=bdm['device_type'])

    def _unplug(self, ctx, instance, bdm, in_guest):
        if bdm['volume_id'] in in_guest:
            info = json.loads(bdm['connection_info']) if bdm['connection_info'] else None
            self.driver.detach_volume(ctx, info, instance, in_guest[bdm['volume_id']])

    def _forget_attachment(self, vctx, bdm):
        try:
            self.volume_api.attachment_delete(vctx, bdm['attachment_id'])
        except exception.NotFound:
            pass
        self.conductor_db.bdm_destroy(bdm['uuid'])


def _obj(row):
    return instance_obj.Instance.from_db(row)
