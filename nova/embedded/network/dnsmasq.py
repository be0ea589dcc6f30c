"""dnsmasq as the DHCP server of one subnet: static hosts, options, SIGHUP, lease release."""

import ipaddress
import logging
import os
import signal
import time

from nova.embedded import files
from nova.embedded.network import netns
from nova.embedded.network.netns import PlaneError

LOG = logging.getLogger(__name__)
LEASE_SECONDS = 86400          # Neutron's dhcp_lease_duration
METADATA_ROUTE = '169.254.169.254/32'
STOP_TIMEOUT = 5.0


def hostname(port):
    """The DHCP host name: the port's dns_name, else Neutron's host-A-B-C-D."""
    if port.get('dns_name'):
        return port['dns_name'].split('.')[0]
    return 'host-' + port['ip'].replace('.', '-')


def hosts_text(entries):
    """dhcp-hostsfile lines: MAC,IP,NAME (one static lease per port)."""
    return ''.join('%s,%s,%s\n' % (mac, ip, name) for mac, ip, name in sorted(entries))


def options_text(subnet, mtu):
    """dhcp-optsfile lines: router, classless routes (metadata, host routes, default), MTU, DNS."""
    gateway = subnet.get('gateway_ip')
    lines = []
    routes = []
    if gateway:
        lines.append('option:router,%s' % gateway)
        routes.append((METADATA_ROUTE, gateway))
    for route in subnet.get('host_routes') or []:
        routes.append((route['destination'], route['nexthop']))
    if gateway:
        # With classless routes a client ignores the router option (RFC 3442).
        routes.append(('0.0.0.0/0', gateway))
    if routes:
        flat = ','.join('%s,%s' % r for r in routes)
        lines.append('option:classless-static-route,%s' % flat)
        # Windows guests read the same routes from option 249.
        lines.append('249,%s' % flat)
    lines.append('option:mtu,%d' % mtu)
    if subnet.get('dns_nameservers'):
        lines.append('option:dns-server,%s' % ','.join(subnet['dns_nameservers']))
    return ''.join(line + '\n' for line in lines)


def _write(path, text):
    """Atomic, and world-readable: dnsmasq re-reads it as 'nobody' on SIGHUP."""
    tmp = path + '.tmp'
    with open(tmp, 'w') as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


class DnsmasqServer:
    """One dnsmasq in the data plane's namespace, adopted again after a restart.

    Its generated files live in ``run_dir`` (re-made at every start, readable
    by the unprivileged user dnsmasq becomes); its leases in ``state_dir``.
    """

    def __init__(self, namespace, bridge, run_dir, state_dir):
        self._ns = namespace
        self._bridge = bridge
        self.run_dir = run_dir
        self.state_dir = state_dir
        self.hosts_path = os.path.join(run_dir, 'hosts')
        self.opts_path = os.path.join(run_dir, 'opts')
        self.pid_path = os.path.join(run_dir, 'dnsmasq.pid')
        self.leases_path = os.path.join(state_dir, 'dnsmasq.leases')
        self.log_path = os.path.join(state_dir, 'dnsmasq.log')

    def _argv(self, subnet):
        net = ipaddress.ip_network(subnet['cidr'])
        return ['dnsmasq',
                '--conf-file=/dev/null', '--no-hosts', '--no-resolv', '--port=0',
                '--interface=%s' % self._bridge, '--except-interface=lo', '--bind-interfaces',
                '--dhcp-range=set:subnet,%s,static,%s,%ds'
                % (net.network_address, net.netmask, LEASE_SECONDS),
                '--dhcp-hostsfile=%s' % self.hosts_path,
                '--dhcp-optsfile=%s' % self.opts_path,
                '--dhcp-leasefile=%s' % self.leases_path,
                '--dhcp-authoritative', '--pid-file=%s' % self.pid_path,
                '--log-facility=%s' % self.log_path, '--log-dhcp']

    def pid(self):
        """The pid of our dnsmasq if it runs (its command line names our pid file)."""
        pid = netns.read_pid(self.pid_path)
        if pid and netns.pid_running(pid) and \
                '--pid-file=%s' % self.pid_path in netns.cmdline(pid):
            return pid
        return None

    def previous_hosts(self):
        """(MAC, IP) pairs of the hosts file a previous run left (to release them)."""
        try:
            with open(self.hosts_path) as handle:
                return {tuple(line.split(',')[:2]) for line in handle if line.count(',') >= 2}
        except FileNotFoundError:
            return set()

    def write(self, hosts, options):
        os.makedirs(self.run_dir, mode=0o755, exist_ok=True)
        os.chmod(self.run_dir, 0o755)
        _write(self.hosts_path, hosts)
        _write(self.opts_path, options)

    def start(self, subnet):
        """Start dnsmasq, or keep the one running with the same command line."""
        os.makedirs(self.state_dir, exist_ok=True)
        argv = self._argv(subnet)
        pid = self.pid()
        if pid is not None:
            if netns.cmdline(pid)[1:] == argv[1:]:
                LOG.info('Adopted the running dnsmasq %d on %s', pid, self._bridge)
                self.reload()
                return False
            self.stop()
        self._ns.run(argv)
        deadline = time.monotonic() + STOP_TIMEOUT
        while self.pid() is None:
            if time.monotonic() > deadline:
                raise PlaneError('dnsmasq did not start on %s (see %s)'
                                 % (self._bridge, self.log_path))
            time.sleep(0.02)
        return True

    def reload(self):
        """Re-read hosts and options (dnsmasq keeps its leases)."""
        pid = self.pid()
        if pid is not None:
            os.kill(pid, signal.SIGHUP)

    def release(self, ip, mac):
        """Forget the lease of a removed port, so its address can go to another MAC."""
        self._ns.run(['dhcp_release', self._bridge, ip, mac], check=False)

    def stop(self):
        pid = self.pid()
        if pid is None:
            return
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        while netns.pid_running(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        if netns.pid_running(pid):
            os.kill(pid, signal.SIGKILL)
        files.unlink(self.pid_path)

    def remove_files(self):
        for path in (self.hosts_path, self.opts_path, self.pid_path,
                     self.hosts_path + '.tmp', self.opts_path + '.tmp'):
            files.unlink(path)
        # Its directory, and the parent all planes share once the last one is gone.
        for directory in (self.run_dir, os.path.dirname(self.run_dir)):
            try:
                os.rmdir(directory)
            except OSError:
                break
