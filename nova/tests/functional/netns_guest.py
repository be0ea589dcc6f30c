"""Test helpers: network namespaces a test owns, and a veth "guest" that runs busybox's udhcpc.

Everything here happens inside namespaces the test creates and deletes:
nothing gets an address in the root namespace, no packet leaves them.
"""

import os
import socket
import subprocess
import threading
import time
import uuid

from nova.embedded.network import netns
from nova.tests.functional import neutron_env

BUSYBOX = '/var/cache/nova-test/busybox'
PEER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), 'tools', 'start-libvirtd-peer.sh')
# udhcpc configures nothing by itself: this script applies the lease and
# writes what it got, for the test to read.
_UDHCPC_SCRIPT = '''#!%(bb)s sh
case "$1" in
  bound|renew)
    %(bb)s ip addr flush dev "$interface"
    %(bb)s ip addr add "$ip/$mask" dev "$interface"
    [ -n "$mtu" ] && %(bb)s ip link set dev "$interface" mtu "$mtu"
    set -- $staticroutes
    while [ $# -ge 2 ]; do %(bb)s ip route replace "$1" via "$2" dev "$interface"; shift 2; done
    echo "ip=$ip mask=$mask router=$router mtu=$mtu routes=$staticroutes" > %(out)s
    ;;
esac
'''


def sh(*argv, check=True, timeout=60):
    return subprocess.run(argv, capture_output=True, text=True, check=check, timeout=timeout)


class Namespaces:
    """Namespaces named for this test, deleted (with what runs in them) at the end."""

    def __init__(self):
        self.prefix = 'nova-t%s' % uuid.uuid4().hex[:6]
        self.names = []

    def add(self, role):
        name = '%s-%s' % (self.prefix, role)
        sh('ip', 'netns', 'add', name)
        sh('ip', '-n', name, 'link', 'set', 'lo', 'up')
        self.names.append(name)
        return name

    def cleanup(self):
        for name in reversed(self.names):
            # dnsmasq (or a stray nc) would keep a deleted namespace alive.
            out = sh('ip', 'netns', 'pids', name, check=False).stdout.split()
            for pid in out:
                try:
                    os.kill(int(pid), 9)
                except (ProcessLookupError, ValueError):
                    pass
            sh('ip', 'netns', 'delete', name, check=False)


class Guest:
    """One end of a veth in its own namespace, named and addressed like a port's tap."""

    def __init__(self, plane_ns, guest_ns, tap, mac, work_dir):
        self.plane_ns, self.ns, self.tap, self.mac = plane_ns, guest_ns, tap, mac
        self.lease_path = os.path.join(work_dir, 'lease-%s' % tap)
        self.script = os.path.join(work_dir, 'udhcpc-%s.sh' % tap)
        with open(self.script, 'w') as handle:
            handle.write(_UDHCPC_SCRIPT % {'bb': BUSYBOX, 'out': self.lease_path})
        os.chmod(self.script, 0o755)

    def plug(self):
        sh('ip', '-n', self.plane_ns, 'link', 'add', self.tap, 'type', 'veth', 'peer', 'name',
           'eth0', 'netns', self.ns)
        sh('ip', '-n', self.ns, 'link', 'set', 'eth0', 'address', self.mac)
        sh('ip', '-n', self.ns, 'link', 'set', 'eth0', 'up')
        return self

    def ifindex(self):
        return netns.NetworkNamespace(self.plane_ns).ip_json('link', 'show', 'dev',
                                                             self.tap)[0]['ifindex']

    def dhcp(self, tries=10):
        """Run udhcpc once; the lease's fields (ip, router, routes, mtu)."""
        proc = sh('ip', 'netns', 'exec', self.ns, BUSYBOX, 'udhcpc', '-i', 'eth0', '-s',
                  self.script, '-O', 'mtu', '-O', 'staticroutes', '-t', str(tries), '-T', '1',
                  '-A', '1', '-n', '-q', check=False)
        if proc.returncode != 0:
            raise AssertionError('no DHCP lease: %s' % proc.stderr)
        with open(self.lease_path) as handle:
            fields = dict(part.split('=', 1) for part in handle.read().split(' ', 4))
        return {k: v.strip() for k, v in fields.items()}

    def ping(self, address):
        return sh('ip', 'netns', 'exec', self.ns, BUSYBOX, 'ping', '-c', '1', '-W', '2',
                  address, check=False).returncode == 0

    def wget(self, url):
        # busybox 1.35's "wget -T" crashes: bound it with timeout instead.
        proc = sh('ip', 'netns', 'exec', self.ns, BUSYBOX, 'timeout', '5', BUSYBOX, 'wget',
                  '-q', '-O', '-', url, check=False)
        return proc.stdout if proc.returncode == 0 else None


class TcpListener:
    """A TCP server in a namespace answering every connection with ``hello``."""

    def __init__(self, namespace, port):
        def make():
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(('0.0.0.0', port))
            sock.listen(8)
            return sock
        self.sock = netns.NetworkNamespace(namespace).socket(make)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _addr = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b'hello')

    def close(self):
        self.sock.close()


def tcp_answers(namespace, address, port, timeout=2.0):
    """Whether a connection from ``namespace`` to address:port gets ``hello``."""
    def make():
        return socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock = netns.NetworkNamespace(namespace).socket(make)
    sock.settimeout(timeout)
    try:
        sock.connect((address, port))
        return sock.recv(5) == b'hello'
    except OSError:
        return False
    finally:
        sock.close()


class PeerUnavailable(Exception):
    """tools/start-libvirtd-peer.sh failed (its standard error is the message)."""


def libvirt_peer(action, root, host_uuid, display_ports, websocket_ports, netns_name=None):
    """Start or stop a libvirtd of its own under ``root``, in ``netns_name``; its URI.

    Each caller gives its own root, host UUID and graphics port ranges (MIN:MAX), so
    that two callers' daemons never share state or ports.
    """
    env = dict(os.environ, NOVA_LIBVIRT_PEER_ROOT=root, NOVA_LIBVIRT_PEER_UUID=host_uuid,
               NOVA_LIBVIRT_PEER_DISPLAY_PORTS=display_ports,
               NOVA_LIBVIRT_PEER_WEBSOCKET_PORTS=websocket_ports)
    if netns_name:
        env['NOVA_LIBVIRT_PEER_NETNS'] = netns_name
    proc = subprocess.run(['sh', PEER, action], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    if proc.returncode != 0:
        raise PeerUnavailable(proc.stderr.strip())
    return 'qemu+unix:///system?socket=%s/run/libvirt-sock' % root


def wait_for(what, predicate, timeout, interval=0.5, detail=None):
    """The first truthy ``predicate()``, polled every ``interval`` s; AssertionError after
    ``timeout`` s, with what ``detail()`` (when given) says was seen."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            seen = '\n' + detail() if detail is not None else ''
            raise AssertionError('timed out after %d s waiting for %s%s' % (timeout, what, seen))
        time.sleep(interval)


def console_output(cloud, sid, version='2.37'):
    """The server's serial console log (os-getConsoleOutput); '' when there is none yet."""
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                     {'os-getConsoleOutput': {}}, version=version)
    return body.get('output', '') if status == 200 else ''


def ssh_client(netns_name, address, key):
    """A paramiko client logged in as root at address:22 from inside ``netns_name``, or
    None while the guest does not answer (or refuses the key)."""
    import paramiko
    try:
        sock = neutron_env.connect(netns_name, address, 22, timeout=3)
    except OSError:
        return None
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    try:
        client.connect(address, 22, username='root', pkey=key, sock=sock,
                       look_for_keys=False, allow_agent=False, timeout=10,
                       banner_timeout=10, auth_timeout=10)
    except (paramiko.SSHException, OSError):
        client.close()
        return None
    return client


def ssh_run(client, command):
    """Standard output of ``command`` run over ``client``."""
    _in, out, _err = client.exec_command(command, timeout=30)
    return out.read().decode()
