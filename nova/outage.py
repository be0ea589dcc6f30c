"""Whether an error says the database is away, and reporting such an outage once."""

import sys
import threading

import oslo_messaging as messaging

# What a conductor's reply names when its database was away (RemoteError.exc_type).
_DB_ERROR_NAMES = frozenset({'DBConnectionError', 'OperationalError', 'InterfaceError'})


def _db_error_classes():
    """The database libraries' connection errors, once loaded (nova-compute loads none)."""
    found = []
    for module, names in (('oslo_db.exception', ('DBConnectionError',)),
                          ('sqlalchemy.exc', ('OperationalError', 'InterfaceError'))):
        if module in sys.modules:
            found.extend(getattr(sys.modules[module], name) for name in names)
    return tuple(found)


def database_unavailable(exc):
    """True when ``exc`` means the database server could not be reached or went away.

    oslo.db turns a connection lost during a statement into DBConnectionError;
    a connection refused while the pool opens one (the server restarting or
    stopped) comes through as SQLAlchemy's OperationalError or InterfaceError,
    as nova.cmd.common counts it at start. A conductor's reply carrying one is
    a RemoteError naming the class.
    """
    if isinstance(exc, messaging.RemoteError):
        return exc.exc_type in _DB_ERROR_NAMES
    classes = _db_error_classes()
    return bool(classes) and isinstance(exc, classes)


class OutageLog:
    """One warning when an outage begins, one info line when it ends; nothing in between.

    A periodic task or an RPC handler failing every second while the
    database restarts would otherwise log a traceback each time.
    """

    def __init__(self, logger, what):
        self.log = logger
        self.what = what
        self._down = False
        self._lock = threading.Lock()

    def failed(self, exc):
        with self._lock:
            first, self._down = not self._down, True
        if first:
            self.log.warning('%s: the database is unavailable (%s: %s); retrying quietly '
                             'until it answers', self.what, exc.__class__.__name__,
                             str(exc).splitlines()[0][:200] if str(exc) else '')
        else:
            self.log.debug('%s: the database is still unavailable', self.what)

    def succeeded(self):
        if self._down:
            with self._lock:
                was, self._down = self._down, False
            if was:
                self.log.info('%s: the database answers again', self.what)


def quiet_endpoint(endpoint, outage_log):
    """``endpoint`` for an RPC server: a database outage is an expected error, one line.

    oslo.messaging logs an endpoint's exception with its traceback unless the
    endpoint declares it expected; the caller still gets it in the reply
    (a RemoteError naming the class).
    """
    return _QuietEndpoint(endpoint, outage_log)


class _QuietEndpoint:
    def __init__(self, endpoint, outage_log):
        self._endpoint = endpoint
        self._outage_log = outage_log
        target = getattr(endpoint, 'target', None)
        if target is not None:
            self.target = target

    def __getattr__(self, name):
        attr = getattr(self._endpoint, name)
        if name.startswith('_') or not callable(attr):
            return attr

        def call(*args, **kwargs):
            try:
                result = attr(*args, **kwargs)
            except Exception as exc:
                if not database_unavailable(exc):
                    raise
                self._outage_log.failed(exc)
                raise messaging.ExpectedException() from exc
            self._outage_log.succeeded()
            return result
        return call
