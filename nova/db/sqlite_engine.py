"""SQLite under oslo.db: a pooled engine, WAL pragmas, writers taking the lock at BEGIN."""

import sqlalchemy as sa


def pooled_engine(url, **engine_args):
    """oslo.db's engine factory, with a connection pool for file-backed SQLite.

    oslo.db gives file-backed SQLite a NullPool: every query would open the
    file and run the pragmas again (about a millisecond each). SQLite
    connections may be shared between threads one at a time, as a pool does.
    """
    if url.get_backend_name() == 'sqlite' and url.database not in (None, '', ':memory:'):
        # No upper bound (max_overflow -1): a thread that needs a second
        # connection while holding one never waits for a free slot, as with
        # oslo.db's NullPool; up to pool_size connections stay open for reuse.
        # No pre-ping either: a local file has no server to drop a pooled
        # connection, and the "SELECT 1" on every checkout was a tenth of a
        # rescue's database time.
        engine_args.update(poolclass=sa.pool.QueuePool, pool_size=8, max_overflow=-1,
                           pool_pre_ping=False)
        engine_args['connect_args'] = dict(engine_args.get('connect_args') or {},
                                           check_same_thread=False)
    engine = sa.create_engine(url, **engine_args)
    if url.get_backend_name() == 'sqlite':
        # Before oslo.db's first test connection, which the pool keeps.
        sa.event.listen(engine, 'connect', _sqlite_pragmas)
    return engine, engine


def _sqlite_pragmas(dbapi_conn, _record):
    cursor = dbapi_conn.cursor()
    cursor.execute('PRAGMA busy_timeout=30000')
    # WAL lets API readers proceed while a compute thread writes. It is a
    # property of the file, and switching needs the file to itself: when
    # another connection is busy, a later new connection switches instead.
    if cursor.execute('PRAGMA journal_mode').fetchone()[0].lower() != 'wal':
        try:
            cursor.execute('PRAGMA journal_mode=WAL')
        except dbapi_conn.OperationalError:
            pass
    cursor.execute('PRAGMA synchronous=NORMAL')
    cursor.close()


def _sqlite_begin(conn):
    """Writers take the write lock up front (BEGIN IMMEDIATE).

    A deferred transaction that reads and then writes cannot wait for a
    concurrent writer in WAL mode: SQLite fails it at once with "database is
    locked". Taking the lock at BEGIN makes writers queue on busy_timeout.
    """
    if 'in_transaction' not in conn.info:
        immediate = conn.get_execution_options().get('nova_write')
        conn.exec_driver_sql('BEGIN IMMEDIATE' if immediate else 'BEGIN')
        # oslo.db clears this marker at commit/rollback.
        conn.info['in_transaction'] = True


def replace_oslo_begin(engine):
    """Swap oslo.db's plain-BEGIN listener for ours (same marker protocol)."""
    for listener in list(engine.dispatch.begin):
        if getattr(listener, '__name__', '') == '_sqlite_emit_begin':
            sa.event.remove(engine, 'begin', listener)
    sa.event.listen(engine, 'begin', _sqlite_begin)
