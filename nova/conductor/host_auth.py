"""Compute host identity on conductor calls: a key per host, each call HMAC-signed, fresh, once."""

import collections
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import stat
import threading
import time

from nova import exception

LOG = logging.getLogger(__name__)

# Names a host key file may have: a host name, never a path.
_HOST_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$')
# Nonces remembered per conductor process; past this the oldest go, and the
# window's floor rises past them so that none of them can come back.
MAX_NONCES = 100000


def new_key():
    """A fresh host key: 32 random bytes, hex encoded (what the key files hold)."""
    return secrets.token_hex(32)


def valid_host_name(host):
    return isinstance(host, str) and bool(_HOST_NAME.match(host))


def read_key(path):
    """The key in ``path`` (surrounding whitespace ignored) as bytes; ValueError if empty."""
    with open(path, 'rb') as handle:
        key = handle.read().strip()
    if not key:
        raise ValueError('host key file %s is empty' % path)
    return key


def _canonical(host, operation, args, kwargs, ts, nonce):
    # Signed as it arrives: after a JSON round trip (tuples are lists, keys
    # strings), serialised with sorted keys and no spaces.
    body = json.loads(json.dumps([host, operation, args, kwargs, ts, nonce]))
    return json.dumps(body, sort_keys=True, separators=(',', ':')).encode()


def _mac(key, host, operation, args, kwargs, ts, nonce):
    return hmac.new(key, _canonical(host, operation, args, kwargs, ts, nonce),
                    hashlib.sha256).hexdigest()


def sign(key, host, operation, args, kwargs, now=None):
    """The ``signature`` argument of a compute_db call (args/kwargs as sent, wire-encoded)."""
    ts = int(time.time() if now is None else now)
    nonce = secrets.token_hex(16)
    return {'ts': ts, 'nonce': nonce,
            'mac': _mac(key, host, operation, args, kwargs, ts, nonce)}


def load_compute_key(path):
    """nova-compute's own key; warns when others than its user may read the file.

    A file that cannot be read is an OSError naming the option: nova-compute
    stops at start with that one line.
    """
    try:
        mode = os.stat(path).st_mode
        key = read_key(path)
    except (OSError, ValueError) as exc:
        raise OSError('cannot read [conductor] host_key_file %s: %s'
                      % (path, getattr(exc, 'strerror', None) or exc)) from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        LOG.warning('Host key file %s is readable by others than its owner (mode %o): '
                    'chmod 600 it', path, stat.S_IMODE(mode))
    return key


class HostKeys:
    """The conductor's keys: one file per compute host, named after it, in ``directory``.

    Read when first needed and again when the file changes, so a host added
    with ``nova-manage conductor host-key create`` needs no conductor restart.
    """

    def __init__(self, directory):
        self.directory = directory
        self._cache = {}

    def get(self, host):
        if not valid_host_name(host):
            return None
        path = os.path.join(self.directory, host)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            self._cache.pop(host, None)
            return None
        version = (st.st_mtime_ns, st.st_size, st.st_ino)
        cached = self._cache.get(host)
        if cached is None or cached[0] != version:
            try:
                cached = (version, read_key(path))
            except ValueError:
                return None
            self._cache[host] = cached
        return cached[1]


class Verifier:
    """Checks that a compute_db call comes from the host it names, and only once."""

    def __init__(self, keys, window=300, max_nonces=MAX_NONCES, clock=time.time):
        self.keys = keys
        self.window = window
        self.max_nonces = max_nonces
        self._clock = clock
        self._seen = collections.OrderedDict()   # (host, nonce) -> ts
        self._floor = float('-inf')
        self._lock = threading.Lock()

    def check(self, host, operation, args, kwargs, signature):
        """Returns if ``signature`` is the named host's, fresh and new; else refuses."""
        if not isinstance(signature, dict):
            self._refuse(host, operation, 'no signature')
        key = self.keys.get(host)
        if key is None:
            self._refuse(host, operation, 'a signature, but the conductor has no key for it')
        ts, nonce, mac = (signature.get(k) for k in ('ts', 'nonce', 'mac'))
        if not (isinstance(ts, int) and not isinstance(ts, bool) and isinstance(mac, str)
                and isinstance(nonce, str) and 0 < len(nonce) <= 64):
            self._refuse(host, operation, 'a malformed signature')
        # As bytes: compare_digest refuses str with non-ASCII characters.
        expected = _mac(key, host, operation, args, kwargs, ts, nonce).encode()
        if not hmac.compare_digest(mac.encode('utf-8', 'surrogatepass'), expected):
            self._refuse(host, operation, 'a wrong signature')
        now = self._clock()
        if abs(now - ts) > self.window:
            self._refuse(host, operation, 'a signature %d seconds off the conductor clock'
                         % (now - ts))
        with self._lock:
            if ts <= self._floor or (host, nonce) in self._seen:
                self._refuse(host, operation, 'a signature already used')
            self._remember((host, nonce), ts, now)

    def _remember(self, entry, ts, now):
        seen = self._seen
        seen[entry] = ts
        # Entries older than the window are refused by their age anyway.
        while seen:
            oldest = next(iter(seen.values()))
            if oldest >= now - self.window and len(seen) <= self.max_nonces:
                break
            _, gone = seen.popitem(last=False)
            if oldest >= now - self.window:
                self._floor = max(self._floor, gone)

    @staticmethod
    def _refuse(host, operation, what):
        LOG.warning('Refused: a call naming host %s (%s) carries %s', host, operation, what)
        raise exception.HostNotAuthenticated(host=host, operation=operation, reason=what)


_WARNED = []


def verifier_from_conf(conf):
    """The conductor's Verifier, or None (with a warning, once) when no keys are configured."""
    directory = conf.conductor.host_keys_dir
    if directory:
        if not os.path.isdir(directory):
            raise exception.Invalid(reason='[conductor] host_keys_dir %s is not a directory'
                                    % directory)
        return Verifier(HostKeys(directory), window=conf.conductor.host_signature_window)
    # In-process messaging (the all-in-one's default): no other process can call.
    in_process = (conf.transport_url or 'fake:').split(':', 1)[0] == 'fake'
    if not _WARNED and not in_process:
        _WARNED.append(True)
        LOG.warning('Compute host identity is not authenticated: [conductor] host_keys_dir '
                    'is not set, so any holder of RabbitMQ credentials can call the '
                    'conductor as any compute host. See "Host keys" in the multi-node '
                    'install guide.')
    return None
