"""Recording instance action events and faults around a unit of work."""

import contextlib
import logging
import traceback

from nova import exception
from nova.notifications import action as notify

LOG = logging.getLogger(__name__)


@contextlib.contextmanager
def event(db, context, instance_uuid, name, host=None):
    """Record ``name`` as an event of the request's action: Success or Error."""
    event_id = db.event_start(instance_uuid, context.request_id, name, host=host)
    try:
        yield
    except Exception:
        db.event_finish(event_id, 'Error', traceback=traceback.format_exc())
        raise
    db.event_finish(event_id, 'Success')


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
