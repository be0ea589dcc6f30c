"""The database as a compute host sees it: every read and write is a call to the conductor."""

import functools
import logging
import time

import oslo_messaging as messaging
from oslo_context import context as o_context

from nova import context as nova_context
from nova.version import SERVICE_VERSION

LOG = logging.getLogger(__name__)

# Exactly what the compute manager and its service runner use; the conductor
# serves these and nothing else (nova/conductor/compute_db.py), each checked
# against the calling host.
OPERATIONS = frozenset({
    'instance_get', 'instance_get_all', 'instance_update', 'instance_destroy',
    'migration_get', 'migration_update', 'migration_get_by_instance_and_status',
    'migrations_finished_before', 'migrations_in_progress', 'evacuations_from',
    'bdm_get_by_instance', 'bdm_create', 'bdm_update', 'bdm_destroy',
    'action_start', 'actions_get', 'event_start', 'event_finish', 'events_get',
    'fault_create',
    'compute_node_update', 'compute_node_claim', 'compute_node_release',
    'compute_node_set_usage',
    'service_heartbeat',
})
# Operations whose first argument is the request context: it travels as the
# RPC context, not as an argument.
_WITH_CONTEXT = frozenset({'action_start'})


def link_failure(exc):
    """True when ``exc`` says the conductor was not reached (not a conductor's answer)."""
    if isinstance(exc, messaging.RemoteError):
        return False
    return isinstance(exc, (messaging.MessagingException, messaging.MessageUndeliverable,
                            ConnectionError))


def _current_context():
    """The request being handled on this thread, else an admin context (periodic tasks)."""
    ctx = o_context.get_current()
    return ctx if isinstance(ctx, nova_context.RequestContext) \
        else nova_context.get_admin_context()


class ConductorDB:
    """Stands where the compute manager's database handle was, with the same method names.

    ``send(context, host, method, args, kwargs)`` delivers one operation to
    the conductor: an RPC call on the split service, a direct call into the
    same host-scoped code in the all-in-one.

    After calls that did not reach the conductor (``link_failure``), the
    first one that does calls the ``on_recovered`` callbacks: writes waiting
    to be made again need not wait out their back-off.
    """

    def __init__(self, host, send, ping=None):
        self.host = host
        self._send = send
        self._ping = ping
        self._link_down = False
        self._recovered = []

    def on_recovered(self, callback):
        self._recovered.append(callback)

    def __getattr__(self, name):
        if name not in OPERATIONS:
            raise AttributeError(name)
        return functools.partial(self._call, name)

    def _call(self, method, *args, **kwargs):
        if method in _WITH_CONTEXT:
            context, args = args[0], args[1:]
        else:
            context = _current_context()
        try:
            result = self._send(context, self.host, method, list(args), kwargs)
        except Exception as exc:
            # A refusal (InstanceNotFound, a CAS conflict) is an answer too.
            self._reached(not link_failure(exc))
            raise
        self._reached(True)
        return result

    def _reached(self, answered):
        if not answered:
            self._link_down = True
        elif self._link_down:
            self._link_down = False
            LOG.info('nova-conductor answers again')
            for callback in self._recovered:
                callback()

    def service_heartbeat(self, host, binary, topic=None):
        # This host's code version, not the conductor's: nova-status compares them.
        return self._call('service_heartbeat', host, binary, topic, version=SERVICE_VERSION)

    def wait_until_ready(self, timeout=None, interval=1):
        """Block until a conductor answers: messages sent before it listens may be lost."""
        if self._ping is None:
            return
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                self._ping(nova_context.get_admin_context(), self.host)
                return
            except (messaging.MessagingTimeout, messaging.MessageUndeliverable) as exc:
                if deadline is not None and time.monotonic() > deadline:
                    raise
                LOG.warning('Waiting for nova-conductor to answer (%s)',
                            exc.__class__.__name__)
                time.sleep(interval)
