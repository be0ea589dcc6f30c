"""Compute manager: the steps every crash repair ends with (its record, state, stray images)."""

import logging

from nova import context as nova_context
from nova import exception
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)


class RepairSteps:
    """What the reconciliation and the shelve rollback share once they have repaired a row."""

    def __init__(self, core, image_api):
        self.core = core
        self.conductor_db = core.conductor_db
        self.host = core.host
        self.image_api = image_api

    def note(self, uuid, what, fault=True):
        """An instance action event (and a fault) saying what the repair did."""
        message = 'Compute service restarted or lost an operation: %s' % what
        recent = self.conductor_db.actions_get(uuid, limit=1)
        if recent:
            action = recent[0]
            for event in self.conductor_db.events_get(action['id']):
                if event['finish_time'] is None:
                    self.conductor_db.event_finish(event['id'], 'Error',
                                                   details='interrupted; ' + what)
            event_id = self.conductor_db.event_start(uuid, action['request_id'],
                                                     'compute_reconcile', host=self.host)
            self.conductor_db.event_finish(event_id, 'Success', details=what)
        if fault:
            self.conductor_db.fault_create(uuid, 500, message[:255], details=message,
                                           host=self.host)
        LOG.warning('%s: %s', uuid, message)

    def set_after_repair(self, row, values):
        instance = instance_obj.Instance.from_db(row)
        values.setdefault('task_state', None)
        values['power_state'] = self.core.power_state(instance)
        try:
            self.conductor_db.instance_update(row['uuid'], values,
                                              expected_task_state=[row['task_state']])
        except (exception.UnexpectedTaskStateError, exception.InstanceNotFound):
            LOG.info('Instance %s changed while it was reconciled', row['uuid'])

    def drop_unfinished_images(self, row):
        """Delete this instance's snapshot images that never became active."""
        ctx = nova_context.RequestContext(user_id=row['user_id'],
                                          project_id=row['project_id'], is_admin=True,
                                          roles=['admin'], overwrite=False)
        try:
            images = self.image_api.list(ctx, instance_uuid=row['uuid'])
        except Exception:  # noqa: BLE001 - the state repair must not wait for images.
            LOG.exception('Could not list the snapshot images of %s', row['uuid'])
            return
        for image in images:
            if image.get('instance_uuid') == row['uuid'] and \
                    image.get('status') in ('queued', 'saving', 'importing'):
                try:
                    self.image_api.delete(ctx, image['id'])
                except exception.NotFound:
                    pass
