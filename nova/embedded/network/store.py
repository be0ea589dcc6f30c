"""SQLite-backed records of the embedded network service: cached in memory, transactional."""

import contextlib
import copy
import datetime
import json
import logging
import os
import sqlite3
import threading
import time

LOG = logging.getLogger(__name__)

NETWORKS = 'networks'
SUBNETS = 'subnets'
PORTS = 'ports'
SECURITY_GROUPS = 'security_groups'
RULES = 'security_group_rules'
QUOTAS = 'quotas'
META = 'meta'
KINDS = (NETWORKS, SUBNETS, PORTS, SECURITY_GROUPS, RULES, QUOTAS, META)
# Bumped when the tables change shape; a newer file than this code refuses to load.
SCHEMA_VERSION = 1

_SCHEMA = (
    'CREATE TABLE IF NOT EXISTS records ('
    ' kind TEXT NOT NULL, id TEXT NOT NULL, project_id TEXT,'
    ' created_ns INTEGER NOT NULL, body TEXT NOT NULL,'
    ' PRIMARY KEY (kind, id))',
    'CREATE TABLE IF NOT EXISTS schema (version INTEGER NOT NULL)',
)


# The META record naming the all-in-one's default network and subnet.
DEFAULT_NETWORK = 'default-network'


def protected_ids(records):
    """The ids of the default network and subnet (the data plane's), if made."""
    record = records.get(META, DEFAULT_NETWORK)
    if record is None:
        return frozenset()
    return frozenset((record['network_id'], record['subnet_id']))


def now():
    """Neutron's timestamp format: seconds, UTC, with the Z suffix."""
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


class NetworkStoreError(Exception):
    """The database file cannot be used (newer schema, not a database)."""


class NetworkStore:
    """Every record as a JSON row; reads come from memory, writes go through SQLite.

    Records are copy-on-write: ``get``/``list`` hand out the stored dicts,
    which callers must not change; ``put`` stores a new one. Changes happen
    inside ``transaction()``, which holds the store's lock (so a check and
    the change it guards are atomic), commits every write of the block in
    one SQLite transaction, and only then makes them visible; an exception
    discards them all.
    """

    def __init__(self, path):
        self.path = path
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.lock = threading.RLock()
        self._records = {kind: {} for kind in KINDS}
        self._pending = None
        self._last_ns = 0
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute('PRAGMA journal_mode=WAL')
            self._db.execute('PRAGMA synchronous=NORMAL')
            for statement in _SCHEMA:
                self._db.execute(statement)
            self._check_schema()
            self._load()
        except sqlite3.DatabaseError as exc:
            raise NetworkStoreError('%s: %s' % (path, exc)) from None

    def _check_schema(self):
        row = self._db.execute('SELECT version FROM schema').fetchone()
        if row is None:
            self._db.execute('INSERT INTO schema (version) VALUES (?)', (SCHEMA_VERSION,))
        elif row[0] > SCHEMA_VERSION:
            raise NetworkStoreError('%s: schema version %d is newer than this code (%d)'
                             % (self.path, row[0], SCHEMA_VERSION))

    def _load(self):
        for kind, created_ns, body in self._db.execute(
                'SELECT kind, created_ns, body FROM records ORDER BY created_ns'):
            if kind not in self._records:
                continue
            record = json.loads(body)
            self._records[kind][record['id']] = record
            self._last_ns = max(self._last_ns, created_ns)

    def close(self):
        with self.lock:
            self._db.close()

    # -- reads ----------------------------------------------------------------

    def get(self, kind, record_id):
        """The record or None (inside a transaction: with its own writes)."""
        with self.lock:
            if self._pending is not None and (kind, record_id) in self._pending:
                return self._pending[(kind, record_id)]
            return self._records[kind].get(record_id)

    def list(self, kind):
        """Every record of a kind, oldest first."""
        with self.lock:
            found = dict(self._records[kind])
            if self._pending is not None:
                for (pkind, record_id), record in self._pending.items():
                    if pkind != kind:
                        continue
                    if record is None:
                        found.pop(record_id, None)
                    else:
                        found[record_id] = record
            return sorted(found.values(), key=lambda r: r['created_ns'])

    # -- writes ---------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self):
        """Group writes: all of them are stored and visible, or none."""
        with self.lock:
            if self._pending is not None:
                # Nested: the outer block commits.
                yield
                return
            self._pending = {}
            try:
                yield
                self._commit(self._pending)
            finally:
                self._pending = None

    def _commit(self, pending):
        if not pending:
            return
        self._db.execute('BEGIN IMMEDIATE')
        try:
            for (kind, record_id), record in pending.items():
                if record is None:
                    self._db.execute('DELETE FROM records WHERE kind = ? AND id = ?',
                                     (kind, record_id))
                else:
                    self._db.execute(
                        'INSERT OR REPLACE INTO records (kind, id, project_id, '
                        'created_ns, body) VALUES (?, ?, ?, ?, ?)',
                        (kind, record_id, record.get('project_id'),
                         record['created_ns'], json.dumps(record, sort_keys=True)))
            self._db.execute('COMMIT')
        except BaseException:
            self._db.execute('ROLLBACK')
            raise
        for (kind, record_id), record in pending.items():
            if record is None:
                self._records[kind].pop(record_id, None)
            else:
                self._records[kind][record_id] = record

    def _require_transaction(self):
        if self._pending is None:
            raise RuntimeError('store writes need a transaction()')

    def put(self, kind, record):
        """Store a new record (stamped for creation order) and return it."""
        with self.lock:
            self._require_transaction()
            # Two records made in the same clock tick still sort in order.
            self._last_ns = max(self._last_ns + 1, time.time_ns())
            stamp = now()
            record = dict(record, created_ns=self._last_ns)
            record.setdefault('created_at', stamp)
            record.setdefault('updated_at', stamp)
            record.setdefault('revision_number', 0)
            self._pending[(kind, record['id'])] = record
            return record

    def update(self, kind, record_id, **changes):
        """Store a changed copy (new revision and updated_at) and return it."""
        with self.lock:
            self._require_transaction()
            record = copy.deepcopy(self.get(kind, record_id))
            record.update(changes)
            record['updated_at'] = now()
            record['revision_number'] = record.get('revision_number', 0) + 1
            self._pending[(kind, record_id)] = record
            return record

    def remove(self, kind, record_id):
        with self.lock:
            self._require_transaction()
            self._pending[(kind, record_id)] = None
