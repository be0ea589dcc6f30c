"""Recording instance action events and faults around a unit of work."""

import contextlib
import logging
import time
import traceback

from nova import exception, outage
from nova.notifications import action as notify

LOG = logging.getLogger(__name__)
# Seconds between the tries to record an event's start while the database is
# unavailable (it restarts): about a minute in all, then the work fails.
START_RETRY = (0.5, 1, 2, 4, 8, 15, 30)


@contextlib.contextmanager
def event(db, context, instance_uuid, name, host=None, retry=None):
    """Record ``name`` as an event of the request's action: Success or Error.

    The work's outcome is the work's own: an end the conductor does not take
    does not turn finished work into a failure. With ``retry`` (a
    ``conductor_retry.ConductorRetry``) that end is written again later.
    """
    event_id = _start(db, instance_uuid, context.request_id, name, host)
    try:
        yield
    except Exception:
        _finish(db, retry, instance_uuid, name, event_id, 'Error',
                traceback=traceback.format_exc())
        raise
    _finish(db, retry, instance_uuid, name, event_id, 'Success')


def _start(db, instance_uuid, request_id, name, host):
    """The event's start; while the database is unavailable the work waits for it
    (one line when it starts waiting), so an operation meeting a database restart
    is carried out once it is back rather than lost."""
    for delay in START_RETRY + (None,):
        try:
            return db.event_start(instance_uuid, request_id, name, host=host)
        except Exception as exc:
            if delay is None or not outage.database_unavailable(exc):
                raise
            if delay == START_RETRY[0]:
                LOG.warning('%s of %s waits for the database (%s)', name, instance_uuid,
                            exc.__class__.__name__)
            time.sleep(delay)


def _finish(db, retry, instance_uuid, name, event_id, result, **kwargs):
    def step():
        db.event_finish(event_id, result, **kwargs)
    if retry is not None:
        retry.run(instance_uuid, 'Recording the end of %s' % name, [step])
        return
    try:
        step()
    except Exception as exc:  # noqa: BLE001 - the record, not the work, failed.
        LOG.warning('The end of %s of %s was not recorded (%s)', name, instance_uuid, exc)


def fault_values(exc):
    """(code, message, details) of the fault ``exc`` makes; call where it is handled."""
    # Only our own exceptions carry HTTP codes; others (e.g. SQLAlchemy's
    # string codes) are server-side failures.
    code = exc.code if isinstance(exc, exception.NovaException) and \
        isinstance(exc.code, int) else 500
    message = exc.format_message() if hasattr(exc, 'format_message') else str(exc)
    details = traceback.format_exc() if code == 500 else message
    return code, message or exc.__class__.__name__, details


def record_fault(db, instance_uuid, exc, host=None):
    """Store a fault; user-caused errors keep their code, the rest are 500."""
    code, message, details = fault_values(exc)
    notify.fault_recorded(exc)
    try:
        db.fault_create(instance_uuid, code, message, details=details, host=host)
    except Exception:  # noqa: BLE001 - the fault must not hide the real error.
        LOG.exception('Could not record fault for %s', instance_uuid)
