"""Conductor: servers whose build request was lost before a host was chosen."""

import logging

from oslo_utils import timeutils

from nova import exception
from nova import vm_states as vs
from nova.compute import reconcile_decide as decide

LOG = logging.getLogger(__name__)

MESSAGE = ('The build request was lost before a host was chosen (a conductor or '
           'all-in-one process stopped); the server was not built')


class LostBuildsConductor:
    """BUILD/scheduling rows nobody will schedule: in ERROR with a fault."""

    def __init__(self, conf, db):
        self.conf = conf
        self.db = db

    def fail_at_start(self):
        # The in-process transport keeps no message across a restart: every
        # unscheduled server left at start-up is lost. A broker may still
        # hold the requests, so there only stale ones are.
        in_process = (self.conf.transport_url or 'fake:/').startswith('fake:')
        self.fail_lost_builds(min_age=0 if in_process else None)

    def fail_lost_builds(self, min_age=None):
        """ERROR with a fault for each server waiting for a host longer than allowed."""
        if min_age is None:
            min_age = self.conf.stuck_task_timeout
        now = timeutils.utcnow().replace(tzinfo=None)
        failed = 0
        rows = self.db.instance_get_all({'vm_state': vs.BUILDING, 'task_state': vs.SCHEDULING,
                                         'host': None})
        for row in rows:
            if not decide.stale(row['updated_at'] or row['created_at'], now, min_age):
                continue
            try:
                # Compare-and-swap: a conductor that picks it up meanwhile wins.
                self.db.instance_update(row['uuid'], {'vm_state': vs.ERROR,
                                                      'task_state': None},
                                        expected_task_state=[vs.SCHEDULING])
            except (exception.UnexpectedTaskStateError, exception.InstanceNotFound):
                continue
            self.db.fault_create(row['uuid'], 500, MESSAGE, details=MESSAGE)
            recent = self.db.actions_get(row['uuid'], limit=1)
            if recent:
                for event in self.db.events_get(recent[0]['id']):
                    if event['finish_time'] is None:
                        self.db.event_finish(event['id'], 'Error', details='interrupted')
                event_id = self.db.event_start(row['uuid'], recent[0]['request_id'],
                                               'conductor_reconcile_lost_build')
                self.db.event_finish(event_id, 'Error', details=MESSAGE)
            LOG.warning('Server %s: %s', row['uuid'], MESSAGE)
            failed += 1
        return failed
