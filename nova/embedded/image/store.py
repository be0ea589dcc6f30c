"""File-backed image records and image data for the embedded image service."""

import copy
import hashlib
import json
import logging
import os
import re
import struct
import tempfile
import threading
import time
import uuid

from nova.embedded import files

LOG = logging.getLogger(__name__)

HASH_ALGO = 'sha512'
_UUID_FILE = re.compile(r'^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}'
                        r'\.json$')
_QCOW2_MAGIC = b'QFI\xfb'


class StoreError(Exception):
    """Base of the errors the HTTP layer maps to status codes."""


class NotFound(StoreError):
    pass


class Conflict(StoreError):
    pass


class Forbidden(StoreError):
    pass


class Gone(StoreError):
    pass


class BadRequest(StoreError):
    pass


def isotime(epoch=None):
    """Glance's timestamp format: second precision, 'Z' suffix."""
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(epoch))


def new_record(image_id=None, owner=None):
    """A queued image record with Glance's defaults."""
    now = isotime()
    return {
        'id': image_id or str(uuid.uuid4()), 'name': None, 'status': 'queued',
        'visibility': 'shared', 'protected': False, 'os_hidden': False,
        'checksum': None, 'os_hash_algo': None, 'os_hash_value': None,
        'owner': owner, 'size': None, 'virtual_size': None,
        'min_disk': 0, 'min_ram': 0, 'disk_format': None,
        'container_format': None, 'created_at': now, 'updated_at': now,
        'tags': [], 'properties': {}, 'members': {},
    }


def virtual_size(disk_format, header, size):
    """The guest-visible disk size when it can be read cheaply, else None."""
    if disk_format == 'raw':
        return size
    if (disk_format == 'qcow2' and len(header) >= 32
            and header[:4] == _QCOW2_MAGIC):
        return struct.unpack('>Q', header[24:32])[0]
    return None


class UploadResult:
    """A fully received upload, waiting in a temporary file."""

    def __init__(self, tmp_path, size, checksum, hash_value, virtual_size):
        self.tmp_path = tmp_path
        self.size = size
        self.checksum = checksum
        self.hash_value = hash_value
        self.virtual_size = virtual_size


class ImageStore:
    """Image records (one JSON file each) and data files under ``data_dir``.

    Records are copy-on-write: every change stores a new dict, so the
    dicts handed out by get() and list() are snapshots callers must not
    mutate. One lock serializes record changes; data streams outside it.
    """

    def __init__(self, data_dir):
        self._meta_dir = os.path.join(data_dir, 'metadata')
        self._data_dir = os.path.join(data_dir, 'data')
        os.makedirs(self._meta_dir, exist_ok=True)
        os.makedirs(self._data_dir, exist_ok=True)
        self._lock = threading.Lock()
        self._records = {}
        self._last_ns = 0
        self._recover()

    # -- persistence ----------------------------------------------------

    def _meta_path(self, image_id):
        return os.path.join(self._meta_dir, image_id + '.json')

    def data_path(self, image_id):
        return os.path.join(self._data_dir, image_id)

    def _recover(self):
        """Load records; undo uploads a crash or kill left half done."""
        for name in os.listdir(self._data_dir):
            if name.endswith('.part'):
                files.unlink(os.path.join(self._data_dir, name))
        for name in sorted(os.listdir(self._meta_dir)):
            path = os.path.join(self._meta_dir, name)
            if not _UUID_FILE.match(name):
                if name.endswith('.tmp'):
                    files.unlink(path)
                continue
            with open(path, encoding='utf-8') as fp:
                record = json.load(fp)
            # Records written before image sharing have no member list.
            record.setdefault('members', {})
            if record['status'] == 'saving':
                LOG.warning('image %s was saving at shutdown; back to queued',
                            record['id'])
                files.unlink(self.data_path(record['id']))
                record = dict(record, status='queued', size=None)
                files.write_json(path, record)
            self._records[record['id']] = record
            self._last_ns = max(self._last_ns, record.get('created_ns', 0))

    def _save(self, record):
        files.write_json(self._meta_path(record['id']), record)
        self._records[record['id']] = record

    def _creation_stamp(self):
        # created_at has second precision; this orders images created in
        # the same second so "newest first" and markers stay stable.
        self._last_ns = max(self._last_ns + 1, time.time_ns())
        return self._last_ns

    # -- records --------------------------------------------------------

    def create(self, record):
        with self._lock:
            if record['id'] in self._records:
                raise Conflict('Image with identifier %s already exists!'
                               % record['id'])
            record = dict(record, created_ns=self._creation_stamp())
            self._save(record)
            return record

    def get(self, image_id, check=None):
        """The record; ``check(record)`` may raise to refuse the caller."""
        with self._lock:
            record = self._get(image_id)
            if check is not None:
                check(record)
            return record

    def _get(self, image_id):
        try:
            return self._records[image_id]
        except KeyError:
            raise NotFound('No image found with ID %s' % image_id) from None

    def list(self):
        with self._lock:
            return list(self._records.values())

    def update(self, image_id, mutate, touch=True):
        """Apply ``mutate(copy)`` and store the copy; nothing on error.

        ``touch=False`` keeps updated_at, for changes that are not to the
        image itself (its member list).
        """
        with self._lock:
            record = copy.deepcopy(self._get(image_id))
            record.setdefault('members', {})
            mutate(record)
            if touch:
                record['updated_at'] = isotime()
            self._save(record)
            return record

    def delete(self, image_id, check=None):
        """Remove record and data; ``check(record)`` runs first, locked."""
        with self._lock:
            record = self._get(image_id)
            if check is not None:
                check(record)
            if record['protected']:
                raise Forbidden('Image %s is protected and cannot be deleted.'
                                % image_id)
            files.unlink(self._meta_path(image_id))
            del self._records[image_id]
            files.unlink(self.data_path(image_id))

    # -- data -----------------------------------------------------------

    def begin_upload(self, image_id, check=None):
        """Move a queued image to saving, so one upload at a time wins."""
        def to_saving(record):
            if check is not None:
                check(record)
            if record['status'] != 'queued':
                raise Conflict('Image status transition from %s to saving is '
                               'not allowed' % record['status'])
            missing = [key for key in ('disk_format', 'container_format')
                       if not record[key]]
            if missing:
                raise BadRequest('Properties %s must be set prior to saving '
                                 'data.' % ', '.join(missing))
            record['status'] = 'saving'
        return self.update(image_id, to_saving)

    def receive(self, record, chunks, expected_size=None):
        """Stream ``chunks`` to a temporary file, hashing as it goes."""
        md5 = hashlib.md5(usedforsecurity=False)
        multihash = hashlib.new(HASH_ALGO)
        header, size = b'', 0
        fd, tmp_path = tempfile.mkstemp(prefix='.%s.' % record['id'],
                                        suffix='.part', dir=self._data_dir)
        try:
            with os.fdopen(fd, 'wb') as fp:
                for data in chunks:
                    fp.write(data)
                    md5.update(data)
                    multihash.update(data)
                    size += len(data)
                    if len(header) < 32:
                        header += data[:32 - len(header)]
                fp.flush()
                os.fsync(fp.fileno())
            if expected_size is not None and size != expected_size:
                raise BadRequest('Size of uploaded data (%d) does not match '
                                 'the announced size (%d)'
                                 % (size, expected_size))
        except BaseException:
            files.unlink(tmp_path)
            raise
        return UploadResult(tmp_path, size, md5.hexdigest(),
                            multihash.hexdigest(),
                            virtual_size(record['disk_format'], header, size))

    def finish_upload(self, image_id, result):
        """Publish the data and mark the image active, atomically."""
        def to_active(record):
            record.update(status='active', size=result.size,
                          checksum=result.checksum, os_hash_algo=HASH_ALGO,
                          os_hash_value=result.hash_value,
                          virtual_size=result.virtual_size)

        with self._lock:
            record = self._records.get(image_id)
            if record is None or record['status'] != 'saving':
                files.unlink(result.tmp_path)
                raise Gone('Image %s could not be found after upload. The '
                           'image may have been deleted during the upload.'
                           % image_id)
            os.replace(result.tmp_path, self.data_path(image_id))
            record = copy.deepcopy(record)
            to_active(record)
            record['updated_at'] = isotime()
            self._save(record)
            return record

    def abort_upload(self, image_id):
        """Return a saving image to queued after a failed upload."""
        with self._lock:
            record = self._records.get(image_id)
            if record is None or record['status'] != 'saving':
                return
            record = dict(record, status='queued', size=None,
                          updated_at=isotime())
            self._save(record)

    def open_data(self, image_id, check=None):
        """(record, open binary file or None when the image has no data)."""
        with self._lock:
            record = self._get(image_id)
            if check is not None:
                check(record)
            if record['status'] != 'active':
                return record, None
            # Opened under the lock: a concurrent delete may unlink the
            # file, but this reader keeps its handle until it is done.
            try:
                return record, open(self.data_path(image_id), 'rb')
            except FileNotFoundError:
                return record, None
