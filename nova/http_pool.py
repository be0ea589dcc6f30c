"""Idle keep-alive http.client connections to this process's own endpoints, kept for reuse."""

import os
import select
import threading

# Each idle connection holds one thread of the embedded server (one thread
# per connection, [wsgi] default_pool_size of them), so few are kept.
MAX_IDLE = 8

_idle = {}      # (host, port) -> [HTTPConnection], most recently used last
_lock = threading.Lock()


def get(key):
    """An idle connection to ``key`` (host, port), or None.

    Connections the server closed meanwhile (its idle timeout, a stop) are
    readable, at their end: those are closed and dropped, for every endpoint.
    """
    with _lock:
        _sweep()
        conns = _idle.get(key)
        return conns.pop() if conns else None


def put(key, conn):
    """Keep ``conn``, its last response read to the end, for the next request."""
    with _lock:
        conns = _idle.setdefault(key, [])
        if len(conns) < MAX_IDLE:
            conns.append(conn)
            return
    conn.close()


def clear():
    """Close every idle connection."""
    global _idle
    with _lock:
        idle, _idle = _idle, {}
    for conns in idle.values():
        for conn in conns:
            conn.close()


def _sweep():
    poller = select.poll()
    for conns in _idle.values():
        for conn in conns:
            poller.register(conn.sock, select.POLLIN)
    dropped = {fd for fd, _event in poller.poll(0)}
    if not dropped:
        return
    for key, conns in list(_idle.items()):
        keep = []
        for conn in conns:
            if conn.sock.fileno() in dropped:
                conn.close()
            else:
                keep.append(conn)
        if keep:
            _idle[key] = keep
        else:
            del _idle[key]


def _after_fork_in_child():
    # The parent's sockets, and maybe its lock taken by another thread: a
    # child sending on a parent's connection would mix the two's requests.
    # close() only drops the child's descriptor; the parent's stay open.
    global _lock
    _lock = threading.Lock()
    clear()


os.register_at_fork(after_in_child=_after_fork_in_child)
