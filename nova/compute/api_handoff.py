"""The compute API's hand-off by RPC: a message the broker did not take undoes the claim."""

import contextlib
import dataclasses
import logging

import oslo_messaging as messaging

from nova import exception, rpc

LOG = logging.getLogger(__name__)

# The event that says, in the server's action list, why the action ended
# before any service saw it.
EVENT = 'api_send'


class RequestNotSent(exception.NovaException):
    msg_fmt = ("The %(action)s request of server %(uuid)s could not be sent to "
               "%(service)s (%(reason)s). Nothing was changed; try again.")
    code = 503


def undelivered(exc):
    """True when ``exc``, raised by an RPC send, means the message never left.

    A RemoteError is the remote service's answer, and a call's timeout may
    come after the other side started: neither is a message the broker did
    not take. Everything else oslo.messaging raises at send (delivery
    failure, connection lost while publishing, version cap, no such queue,
    the AMQP client's own error when the broker refuses a new connection)
    is.
    """
    if isinstance(exc, (messaging.RemoteError, messaging.MessagingTimeout)):
        return False
    return isinstance(exc, (messaging.MessagingException, messaging.MessageUndeliverable,
                            ConnectionError) + rpc.amqp_errors())


@dataclasses.dataclass
class Claim:
    """What the API wrote before the send, and how to put it back.

    ``task_state`` is the task the API set (the rollback is a compare and
    swap on it); ``restore`` the instance columns as they were; ``undo`` more
    steps (a migration record to close, an image to delete), run in order.
    ``action_id`` is the instance action the request started, if any.
    """

    uuid: str
    action: str
    task_state: object = None
    restore: dict = dataclasses.field(default_factory=dict)
    action_id: object = None
    undo: list = dataclasses.field(default_factory=list)


class HandoffAPI:
    """Runs a send; when the message was not sent, the claim is undone and a 503 raised."""

    def __init__(self, db):
        self._db = db

    @contextlib.contextmanager
    def sending(self, context, claim, service='nova-compute'):
        try:
            yield
        except Exception as exc:
            if not undelivered(exc):
                raise
            reason = '%s: %s' % (exc.__class__.__name__, exc)
            # One line: the broker's own log already has the details.
            LOG.warning('%s of %s not sent to %s (%s): rolled back', claim.action,
                        claim.uuid, service, reason)
            self.roll_back(context, claim, 'not sent to %s (%s)' % (service, reason))
            raise RequestNotSent(action=claim.action, uuid=claim.uuid, service=service,
                                 reason=exc.__class__.__name__) from None

    def roll_back(self, context, claim, why):
        """Undo ``claim``: the task back with a compare and swap, the action ended in error."""
        if claim.restore:
            try:
                self._db.instance_update(claim.uuid, claim.restore,
                                         expected_task_state=[claim.task_state])
            except (exception.UnexpectedTaskStateError, exception.InstanceNotFound) as exc:
                LOG.info('%s of %s: left as it is now (%s)', claim.action, claim.uuid, exc)
        for step in claim.undo:
            try:
                step()
            except Exception:  # noqa: BLE001 - the other steps and the answer go on.
                LOG.exception('%s of %s: an undo step failed', claim.action, claim.uuid)
        self._end_action(context, claim, why)

    def _end_action(self, context, claim, why):
        if claim.action_id is None:
            return
        try:
            event_id = self._db.event_start(claim.uuid, context.request_id, EVENT)
            self._db.event_finish(event_id, 'Error', details=why[:255])
            self._db.action_finish(claim.action_id, message='Error')
        except Exception:  # noqa: BLE001 - the record must not hide the 503.
            LOG.exception('Could not record the unsent %s of %s', claim.action, claim.uuid)
