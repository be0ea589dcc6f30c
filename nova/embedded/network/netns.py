"""Commands and sockets in the data plane's network namespace (or the current one)."""

import ctypes
import errno
import json
import logging
import os
import subprocess
import threading

LOG = logging.getLogger(__name__)
NETNS_DIR = '/run/netns'
_CLONE_NEWNET = 0x40000000
# Generous: nft and ip answer in milliseconds, but the machine may be loaded.
TIMEOUT = 60


class PlaneError(Exception):
    """The data plane cannot be set up or changed; the message is one line for operators."""


class NetworkNamespace:
    """Runs ``ip``, ``nft``, ``dnsmasq``... inside a named namespace, or here if None."""

    def __init__(self, name=None):
        self.name = name

    def __str__(self):
        return 'network namespace %s' % self.name if self.name else 'this network namespace'

    @property
    def path(self):
        return os.path.join(NETNS_DIR, self.name) if self.name else None

    def exists(self):
        return self.name is None or os.path.exists(self.path)

    def wrap(self, argv):
        """``argv`` as run inside the namespace."""
        if self.name is None:
            return list(argv)
        if argv[0] == 'ip':
            return ['ip', '-n', self.name] + list(argv[1:])
        return ['ip', 'netns', 'exec', self.name] + list(argv)

    def run(self, argv, input=None, check=True):
        """Run a command; PlaneError (with its stderr) if it fails and ``check``."""
        full = self.wrap(argv)
        try:
            proc = subprocess.run(full, input=input, capture_output=True, text=True,
                                  timeout=TIMEOUT, close_fds=True)
        except FileNotFoundError as exc:
            raise PlaneError('%s not found' % exc.filename) from None
        except subprocess.TimeoutExpired:
            raise PlaneError('%s did not finish within %d s' % (' '.join(full), TIMEOUT)) \
                from None
        if check and proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            raise PlaneError('%s failed: %s' % (' '.join(argv[:4]),
                                                detail[-1] if detail else
                                                'exit status %d' % proc.returncode))
        return proc

    def ip_json(self, *args):
        """``ip -j ARGS`` decoded ([] when the answer is empty)."""
        out = self.run(['ip', '-j'] + list(args)).stdout.strip()
        return json.loads(out) if out else []

    def socket(self, factory):
        """Call ``factory()`` (which makes a socket) inside the namespace.

        A socket stays in the namespace it was created in, so a server in this
        process can listen on the bridge's addresses of another namespace.
        """
        if self.name is None:
            return factory()
        result = {}

        def inside():
            libc = ctypes.CDLL(None, use_errno=True)
            own = os.open('/proc/thread-self/ns/net', os.O_RDONLY)
            target = os.open(self.path, os.O_RDONLY)
            try:
                if libc.setns(target, _CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
                try:
                    result['socket'] = factory()
                finally:
                    # This thread ends at once, but never leave it elsewhere.
                    if libc.setns(own, _CLONE_NEWNET) != 0:
                        LOG.error('could not return a thread to its namespace: %s',
                                  os.strerror(ctypes.get_errno()))
            except BaseException as exc:
                result['error'] = exc
            finally:
                os.close(own)
                os.close(target)
        thread = threading.Thread(target=inside, name='netns-socket')
        thread.start()
        thread.join()
        if 'error' in result:
            raise result['error']
        return result['socket']


def capabilities():
    """The effective capability bits of this process."""
    with open('/proc/self/status') as handle:
        for line in handle:
            if line.startswith('CapEff:'):
                return int(line.split()[1], 16)
    return 0


CAP_NET_ADMIN = 12
CAP_SYS_ADMIN = 21


def has_capability(bit):
    return bool(capabilities() & (1 << bit))


def pid_running(pid):
    """Alive and not a zombie (a daemon's exit is reaped by init, maybe late)."""
    try:
        with open('/proc/%d/stat' % pid) as handle:
            state = handle.read().rsplit(')', 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ('Z', 'X')


def read_pid(path):
    try:
        with open(path) as handle:
            return int(handle.read().strip() or 0) or None
    except (FileNotFoundError, ValueError):
        return None


def cmdline(pid):
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as handle:
            return [part.decode(errors='replace') for part in handle.read().split(b'\0')
                    if part]
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ESRCH):
            return []
        raise
