"""The base every table group stands on: the engine, the writer and the row helpers."""

import datetime
import json

import sqlalchemy as sa
from oslo_db.sqlalchemy import engines
from oslo_utils import timeutils

from nova.db import migration, sqlite_engine, statements

# Columns stored as JSON text, with what a NULL reads as.
_JSON_COLUMNS = {
    'instances': {'metadata': '{}', 'system_metadata': '{}', 'flavor': 'null',
                  'tags': '[]', 'image_props_override': 'null', 'network_info': '[]',
                  'numa_topology': 'null', 'device_metadata': '[]'},
    'flavors': {'extra_specs': '{}'},
    'compute_nodes': {'capabilities': 'null'},
}
# Written as their empty JSON value rather than NULL (the columns are NOT NULL).
_NOT_NULL_JSON = ('metadata', 'system_metadata', 'tags')

# The [database] options that the engine honours, besides connection,
# max_retries and retry_interval; nova.conf.database lists only these.
ENGINE_OPTIONS = ('sqlite_synchronous', 'mysql_sql_mode', 'mysql_wsrep_sync_wait',
                  'connection_recycle_time', 'max_pool_size', 'max_overflow',
                  'pool_timeout', 'connection_debug', 'connection_trace',
                  'connection_parameters')


def engine_options_from_conf(conf):
    """oslo.db create_engine arguments from the [database] options."""
    return {name: getattr(conf.database, name) for name in ENGINE_OPTIONS}


def now():
    """The time stamp rows carry: UTC, whole seconds."""
    return timeutils.utcnow().replace(microsecond=0)


def utcnow_minus(seconds):
    return now() - datetime.timedelta(seconds=seconds)


def decode_row(table, row):
    """A result row of ``table`` as a dict, its JSON columns parsed."""
    return decode_values(table, dict(row._mapping))


def decode_values(table, values):
    for col, default in _JSON_COLUMNS.get(table.name, {}).items():
        raw = values.get(col)
        values[col] = json.loads(raw if raw is not None else default)
    return values


def encode_values(table, values):
    """``values`` for ``table`` with its JSON columns serialised."""
    out = dict(values)
    for col in _JSON_COLUMNS.get(table.name, {}):
        if col in out and not isinstance(out[col], str | type(None)):
            out[col] = json.dumps(out[col])
        elif col in out and out[col] is None and col in _NOT_NULL_JSON:
            out[col] = _JSON_COLUMNS[table.name][col]
    return out


class DBStore:
    """One database: its engine, the writer engine and the helpers rows share.

    Every table group (nova/db/*.py) subclasses this and nothing else, so
    what a group may use through ``self`` is what is defined here or in the
    group itself; nova.db.api.Database combines the groups over one engine.
    """

    def __init__(self, connection_url, max_retries=10, retry_interval=10, **engine_options):
        self.url = connection_url
        # thread_checkin (a sleep(0) on every connection check-in) exists for
        # eventlet; with OS threads it only hands the GIL away mid-request.
        self.engine = engines.create_engine(connection_url, max_retries=max_retries,
                                            retry_interval=retry_interval,
                                            thread_checkin=False,
                                            _engine_target=sqlite_engine.pooled_engine,
                                            **engine_options)
        if self.engine.dialect.name == 'sqlite':
            sqlite_engine.replace_oslo_begin(self.engine)
        # Transactions that write begin on this one (BEGIN IMMEDIATE on SQLite).
        self.writer = self.engine.execution_options(nova_write=True)

    @classmethod
    def from_conf(cls, conf):
        # [database] max_retries / retry_interval bound how long a service waits
        # for an unreachable database at start before it says so and exits.
        return cls(conf.database.connection, max_retries=conf.database.max_retries,
                   retry_interval=conf.database.retry_interval,
                   **engine_options_from_conf(conf))

    def sync(self):
        migration.db_sync(self.engine)

    def sync_in_child(self):
        """Migrate in a short-lived child process when needed, so that a
        long-running service never loads alembic (about 12 MB it would keep)."""
        if not migration.at_heads(self.engine):
            migration.db_sync_in_child(self.url)
            if not migration.at_heads(self.engine):
                raise RuntimeError('database migration failed: the schema is not at the '
                                   'newest revision (%s) after it' % ', '.join(
                                       sorted(migration.script_heads())))

    def dispose(self):
        self.engine.dispose()

    def _insert(self, conn, table, values):
        """Insert one row (JSON encoded, created_at set if absent); its primary key."""
        values = encode_values(table, values)
        if 'created_at' in table.c and not values.get('created_at'):
            values['created_at'] = now()
        if any(isinstance(value, sa.sql.ClauseElement) for value in values.values()):
            result = conn.execute(table.insert().values(**values))
        else:
            result = conn.execute(statements.insert(table), values)
        return result.inserted_primary_key[0]

    def _one(self, conn, table, *where):
        """The decoded row of ``table`` matching ``where``, or None."""
        row = conn.execute(sa.select(table).where(*where)).first()
        return decode_row(table, row) if row is not None else None

    def _one_by(self, conn, table, **equal):
        """_one() with column = value conditions, from a statement built once."""
        if None in equal.values():
            # "= NULL" matches nothing: compare as _one() does (IS NULL).
            return self._one(conn, table, *[table.c[k] == v for k, v in equal.items()])
        row = conn.execute(statements.select_by(table, tuple(sorted(equal))),
                           statements.params(equal)).first()
        return decode_row(table, row) if row is not None else None
