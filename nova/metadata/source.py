"""The records the metadata API answers from: instances by id or address, the password write."""

import logging
import threading
import time

from nova import exception
from nova.metadata import content as content_mod
from nova.metadata import password
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

# Entries kept at most; the oldest go first. A booting guest needs its own
# for a few seconds, so this only bounds memory under many guests at once.
MAX_ENTRIES = 4096


class ExpiringCache:
    """{key: value} whose entries last ``seconds``; 0 keeps nothing."""

    def __init__(self, seconds, max_entries=MAX_ENTRIES, clock=time.monotonic):
        self.seconds = seconds
        self.max_entries = max_entries
        self.clock = clock
        self._entries = {}
        self._lock = threading.Lock()
        self._building = {}

    def get(self, key):
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] <= self.clock():
                del self._entries[key]
                return None
            return entry[1]

    def put(self, key, value):
        if self.seconds <= 0 or value is None:
            return
        with self._lock:
            self._entries.pop(key, None)
            while len(self._entries) >= self.max_entries:
                del self._entries[next(iter(self._entries))]
            self._entries[key] = (self.clock() + self.seconds, value)

    def forget(self, key):
        with self._lock:
            self._entries.pop(key, None)

    def get_or_build(self, key, build):
        """The cached value, or ``build()``'s; concurrent callers for one key build once."""
        value = self.get(key)
        if value is not None:
            return value
        with self._lock:
            lock = self._building.setdefault(key, threading.Lock())
        try:
            with lock:
                value = self.get(key)
                if value is None:
                    value = build()
                    self.put(key, value)
        finally:
            with self._lock:
                self._building.pop(key, None)
        return value


class MetadataSource:
    """The metadata API's view of the database: content by instance, instances by address.

    ``db`` is a nova.db.api.Database; ``options`` the ContentOptions every
    build uses; ``cache`` an ExpiringCache (keys: instance uuids, and
    ``address:<ip>`` for the instance an address was found to belong to);
    ``security_groups`` a callable giving an instance's group names.
    """

    def __init__(self, db, options, cache, security_groups=None):
        self.db = db
        self.options = options
        self.cache = cache
        # instance id -> names of its security groups (from the network
        # service), or None when there is none to ask.
        self.security_groups = security_groups

    def content(self, instance_id, address=None):
        """The InstanceContent of a live instance, or None."""
        return self.cache.get_or_build(instance_id, lambda: self._build(instance_id, address))

    def _build(self, instance_id, address):
        try:
            row = self.db.instance_get(instance_id)
        except exception.InstanceNotFound:
            return None
        groups = self.security_groups(instance_id) if self.security_groups else ()
        return content_mod.InstanceContent(
            instance_obj.Instance.from_db(row), self.options, address=address,
            block_devices=self.db.bdm_get_by_instance(instance_id), security_groups=groups)

    def instance_by_address(self, address):
        """The uuid of the one live instance holding fixed IP ``address``, or None.

        Finding it scans the instances' network info caches, so the answer is
        kept as long as content is; each later request checks, with one read
        by uuid, that the instance still exists and still holds the address:
        an address freed by a deleted instance and given to another never
        answers with the first one's metadata.
        """
        key = 'address:%s' % address
        known = self.cache.get(key)
        if known is not None and self.db.instance_holds_fixed_ip(known, address):
            return known
        self.cache.forget(key)
        uuids = self.db.instance_uuids_by_fixed_ip(address)
        if len(uuids) > 1:
            # Overlapping networks: serving either could tell one project
            # another's secrets.
            LOG.error('Metadata request from %s refused: instances %s all hold that '
                      'address', address, ', '.join(sorted(uuids)))
            return None
        if not uuids:
            return None
        self.cache.put(key, uuids[0])
        return uuids[0]

    def save_password(self, instance_id, text):
        """True if stored, False if the instance has one already, None if it is gone."""
        stored = self.db.instance_password_set_once(instance_id, password.to_chunks(text))
        # Whatever happened, the next read must see the database's answer.
        self.cache.forget(instance_id)
        return stored
