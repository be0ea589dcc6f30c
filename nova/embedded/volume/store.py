"""File-backed records (volumes, snapshots, attachments, types) of the embedded volume service."""

import collections
import contextlib
import copy
import datetime
import json
import logging
import os
import re
import tempfile
import threading
import time

from nova.embedded import files

LOG = logging.getLogger(__name__)

VOLUMES = 'volumes'
SNAPSHOTS = 'snapshots'
ATTACHMENTS = 'attachments'
TYPES = 'types'
KINDS = (VOLUMES, SNAPSHOTS, ATTACHMENTS, TYPES)

_RECORD_FILE = re.compile(r'^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}\.json$')


def now():
    """Cinder's timestamp format: microseconds, UTC, no zone suffix."""
    return datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y-%m-%dT%H:%M:%S.%f')






class Store:
    """Records as one JSON file each, plus the directories for disk files.

    Records are copy-on-write: put() and update() store new dicts, so a
    record handed out is a snapshot the caller must not mutate. ``lock``
    (re-entrant) makes a check-then-change sequence atomic; long disk work
    happens outside it, bracketed by status changes.
    """

    def __init__(self, data_dir):
        self.data_dir = os.path.abspath(data_dir)
        self._meta = {kind: os.path.join(self.data_dir, 'metadata', kind)
                      for kind in KINDS}
        self.volumes_dir = os.path.join(self.data_dir, 'volumes')
        self.snapshots_dir = os.path.join(self.data_dir, 'snapshots')
        self.tmp_dir = os.path.join(self.data_dir, 'tmp')
        for path in (*self._meta.values(), self.volumes_dir,
                     self.snapshots_dir, self.tmp_dir):
            os.makedirs(path, exist_ok=True)
        self.lock = threading.RLock()
        self._records = {kind: {} for kind in KINDS}
        # (kind, id) -> number of copies reading from that disk file.
        self._holds = collections.Counter()
        self._last_ns = 0
        self._load()

    # -- files ------------------------------------------------------------

    def volume_path(self, volume_id):
        return os.path.join(self.volumes_dir, 'volume-' + volume_id)

    def snapshot_path(self, snapshot_id):
        return os.path.join(self.snapshots_dir, 'snapshot-' + snapshot_id)

    def temp_path(self, prefix):
        """A fresh file name under tmp/, which startup empties."""
        fd, path = tempfile.mkstemp(prefix=prefix + '.', dir=self.tmp_dir)
        os.close(fd)
        return path

    def _load(self):
        for name in os.listdir(self.tmp_dir):
            files.unlink(os.path.join(self.tmp_dir, name))
        for directory in (self.volumes_dir, self.snapshots_dir):
            for name in os.listdir(directory):
                if name.endswith('.part'):
                    files.unlink(os.path.join(directory, name))
        for kind, directory in self._meta.items():
            for name in sorted(os.listdir(directory)):
                path = os.path.join(directory, name)
                if not _RECORD_FILE.match(name):
                    if name.endswith('.tmp'):
                        files.unlink(path)
                    continue
                with open(path, encoding='utf-8') as fp:
                    record = json.load(fp)
                self._records[kind][record['id']] = record
                self._last_ns = max(self._last_ns, record.get('created_ns', 0))

    # -- records ----------------------------------------------------------

    def get(self, kind, record_id):
        """The record or None."""
        with self.lock:
            return self._records[kind].get(record_id)

    def list(self, kind):
        with self.lock:
            return list(self._records[kind].values())

    def put(self, kind, record):
        """Store a new record; it gets a creation stamp for stable ordering."""
        with self.lock:
            # created_at can repeat within a clock tick; this cannot.
            self._last_ns = max(self._last_ns + 1, time.time_ns())
            record = dict(record, created_ns=self._last_ns)
            self._save(kind, record)
            return record

    def update(self, kind, record_id, **changes):
        """Store a changed copy of a record and return it."""
        with self.lock:
            record = copy.deepcopy(self._records[kind][record_id])
            record.update(changes)
            record['updated_at'] = now()
            self._save(kind, record)
            return record

    def remove(self, kind, record_id):
        with self.lock:
            files.unlink(os.path.join(self._meta[kind], record_id + '.json'))
            self._records[kind].pop(record_id, None)

    def _save(self, kind, record):
        files.write_json(os.path.join(self._meta[kind], record['id'] + '.json'),
                    record)
        self._records[kind][record['id']] = record

    # -- sources being copied ---------------------------------------------

    @contextlib.contextmanager
    def hold(self, kind, record_id):
        """Mark a record's disk file as being read, so it is not deleted."""
        with self.lock:
            self._holds[(kind, record_id)] += 1
        try:
            yield
        finally:
            with self.lock:
                self._holds[(kind, record_id)] -= 1
                if not self._holds[(kind, record_id)]:
                    del self._holds[(kind, record_id)]

    def held(self, kind, record_id):
        with self.lock:
            return self._holds[(kind, record_id)] > 0
