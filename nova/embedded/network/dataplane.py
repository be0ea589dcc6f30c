"""The all-in-one's data plane: bridge, DHCP, metadata address and firewall of its network.

Set up at start, reconciled with what a previous run left (the bridge, its
taps, dnsmasq and its leases stay as they are when they are ours), kept in
step with the API's records by a worker thread, torn down at stop. The
guests' taps are not ours: they stay when the bridge goes, and are enslaved
again at the next start.
"""

import ipaddress
import logging
import os
import socket
import threading
import typing

from nova.embedded.network import binding, checks, dnsmasq, firewall, netns, store, taps
from nova.embedded.network.netns import PlaneError

LOG = logging.getLogger(__name__)
ACTIVE, DOWN = 'ACTIVE', 'DOWN'
SYNC_TIMEOUT = 30


class PlaneConfig(typing.NamedTuple):
    bridge: str = 'br-aio'
    namespace: str | None = None
    metadata_address: str = firewall.METADATA_IP
    metadata_port: int = firewall.METADATA_PORT
    # Kept across restarts: dnsmasq's leases and log.
    state_dir: str = '/var/lib/nova/network/dataplane'
    # Re-made at every start, readable by the user dnsmasq drops to.
    run_dir: str = '/run/nova-aio/br-aio'


def run_dir_for(bridge, namespace):
    return os.path.join('/run/nova-aio', '%s-%s' % (namespace or 'host', bridge))


class DataPlane:
    """One bridge serving the default network's ports; see the module docstring."""

    def __init__(self, records, ports, network_id, subnet_id, config):
        self._store = records
        self._ports = ports
        self._network_id = network_id
        self._subnet_id = subnet_id
        self.config = config
        self.namespace = netns.NetworkNamespace(config.namespace)
        self.marker = 'nova-aio:%s' % network_id
        self._dhcp = dnsmasq.DnsmasqServer(self.namespace, config.bridge, config.run_dir,
                                        config.state_dir)
        self._watcher = taps.LinkWatcher(self.namespace, self.refresh)
        self._cond = threading.Condition()
        self._wanted = self._done = 0
        self._stopping = False
        self._worker = None
        self._applied = {}
        self.last_error = None

    # -- what the records say -------------------------------------------------------

    def _snapshot(self):
        network = self._store.get(store.NETWORKS, self._network_id)
        subnet = self._store.get(store.SUBNETS, self._subnet_id)
        ports = [p for p in self._store.list(store.PORTS)
                 if p['network_id'] == self._network_id]
        return network, subnet, ports

    def _v4(self, port, subnet):
        return tuple(ip['ip_address'] for ip in port['fixed_ips']
                     if ip['subnet_id'] == subnet['id'])

    def _firewall_script(self, subnet, ports):
        fw_ports = [firewall.FirewallPort(binding.devname(p['id']), p['mac_address'],
                                  self._v4(p, subnet), bool(p['port_security_enabled']),
                                  tuple(p['security_groups'])) for p in ports]
        groups = {g for p in fw_ports if p.secured for g in p.groups}
        rules = {}
        for rule in self._store.list(store.RULES):
            if rule['security_group_id'] in groups:
                rules.setdefault(rule['security_group_id'], []).append(rule)
        members = {}
        for port in fw_ports:
            for group_id in port.groups:
                members.setdefault(group_id, []).extend(port.ips)
        metadata = (self.config.metadata_address, self.config.metadata_port)
        return firewall.ruleset(self.config.bridge, fw_ports, rules, members, metadata)

    # -- setting up -------------------------------------------------------------------

    def preflight(self):
        """Every check that needs no change: PlaneError with one line if one fails."""
        checks.require_tools()
        checks.require_privileges(self.namespace)
        checks.require_namespace(self.namespace)
        try:
            ipaddress.IPv4Address(self.config.metadata_address)
        except ValueError:
            raise PlaneError('[aio] metadata_address %s is not an IPv4 address'
                             % self.config.metadata_address) from None
        state = checks.bridge_state(self.namespace, self.config.bridge, self.marker)
        _network, subnet, _ports = self._snapshot()
        checks.check_cidr(self.namespace, subnet['cidr'], self.config.bridge,
                          self.config.metadata_address)
        return state

    def _addresses(self, subnet):
        net = ipaddress.ip_network(subnet['cidr'])
        wanted = set()
        if subnet['gateway_ip']:
            wanted.add('%s/%d' % (subnet['gateway_ip'], net.prefixlen))
        if self.config.metadata_address != subnet['gateway_ip']:
            wanted.add('%s/32' % self.config.metadata_address)
        return wanted

    def _setup_bridge(self, adopt, network, subnet):
        ns, bridge = self.namespace, self.config.bridge
        if not adopt:
            ns.run(['ip', 'link', 'add', bridge, 'type', 'bridge', 'forward_delay', '0',
                    'stp_state', '0'])
            ns.run(['ip', 'link', 'set', 'dev', bridge, 'alias', self.marker])
        # IPv4 frames through the IP hooks: conntrack for the security groups.
        ns.run(['ip', 'link', 'set', 'dev', bridge, 'type', 'bridge', 'nf_call_iptables', '1'])
        wanted = self._addresses(subnet)
        for link in ns.ip_json('-4', 'addr', 'show', 'dev', bridge):
            for info in link.get('addr_info', []):
                have = '%s/%d' % (info['local'], info['prefixlen'])
                if have not in wanted:
                    ns.run(['ip', 'addr', 'del', have, 'dev', bridge])
        for address in sorted(wanted):
            ns.run(['ip', 'addr', 'replace', address, 'dev', bridge])
        ns.run(['ip', 'link', 'set', 'dev', bridge, 'mtu', str(network['mtu']), 'up'])

    def start(self):
        state = self.preflight()
        adopt = state == 'ours'
        network, subnet, _ports = self._snapshot()
        try:
            self._setup_bridge(adopt, network, subnet)
            # Leases of ports removed while nova-aio was down go back to the pool.
            self._applied['dhcp_entries'] = self._dhcp.previous_hosts() if adopt else set()
            self._apply()
            if self.last_error:
                raise PlaneError(self.last_error)
            self._watcher.start()
            self._worker = threading.Thread(target=self._run, name='net-plane', daemon=True)
            self._worker.start()
        except OSError as exc:
            # Its files (under /run or the state path) could not be written.
            self._teardown()
            raise PlaneError('the data plane could not write its files: %s' % exc) from None
        except BaseException:
            self._teardown()
            raise
        LOG.info('%s the data plane: bridge %s (%s) in %s',
                 'Reconciled' if adopt else 'Set up', self.config.bridge,
                 ', '.join(sorted(self._addresses(subnet))), self.namespace)
        # Whatever happens to the records from now on reaches the plane.
        self.refresh()
        return self

    # -- keeping in step -----------------------------------------------------------

    def refresh(self, _kind=None):
        """Ask the worker to bring the plane in line with the records (non-blocking)."""
        with self._cond:
            self._wanted += 1
            self._cond.notify_all()

    def sync(self, timeout=SYNC_TIMEOUT):
        """Wait until every change asked so far is applied; False on timeout."""
        with self._cond:
            target = self._wanted
            return self._cond.wait_for(lambda: self._done >= target or self._stopping,
                                       timeout)

    def _run(self):
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._wanted > self._done or self._stopping)
                if self._stopping:
                    return
                target = self._wanted
            try:
                self._apply()
            except Exception:
                LOG.exception('Could not update the data plane')
            with self._cond:
                self._done = target
                self._cond.notify_all()

    def _apply(self):
        network, subnet, ports = self._snapshot()
        if network is None or subnet is None:
            return
        try:
            self._apply_dhcp(network, subnet, ports)
            script = self._firewall_script(subnet, ports)
            if script != self._applied.get('firewall'):
                firewall.apply(self.namespace, script)
                self._applied['firewall'] = script
            self._apply_taps(network, subnet, ports)
            self.last_error = None
        except PlaneError as exc:
            self.last_error = str(exc)
            LOG.error('Data plane update failed: %s', exc)

    def _apply_dhcp(self, network, subnet, ports):
        entries = {(p['mac_address'], ip, dnsmasq.hostname(dict(p, ip=ip)))
                   for p in ports for ip in self._v4(p, subnet)}
        if not subnet['enable_dhcp']:
            self._dhcp.stop()
            self._applied.pop('dhcp', None)
            return
        hosts = dnsmasq.hosts_text(entries)
        options = dnsmasq.options_text(subnet, network['mtu'])
        current = {(mac, ip) for mac, ip, _name in entries}
        if self._applied.get('dhcp') != (hosts, options) or self._dhcp.pid() is None:
            self._dhcp.write(hosts, options)
            if self._dhcp.pid() is None:
                self._dhcp.start(subnet)
            else:
                self._dhcp.reload()
            self._applied['dhcp'] = (hosts, options)
        for mac, ip in self._applied.get('dhcp_entries', set()) - current:
            self._dhcp.release(ip, mac)
        self._applied['dhcp_entries'] = current

    def _apply_taps(self, network, subnet, ports):
        bridge = self.config.bridge
        links = taps.links(self.namespace)
        by_tap = {binding.devname(p['id']): p for p in ports}
        for name, link in links.items():
            if (taps.is_port_tap(name) and link.get('master') == bridge
                    and (name not in by_tap or not by_tap[name]['admin_state_up'])):
                taps.detach(self.namespace, name)
        for name, port in by_tap.items():
            link = links.get(name)
            plugged = False
            if link is not None and port['admin_state_up']:
                if link.get('master') != bridge or 'UP' not in link.get('flags', []):
                    same_mac = link.get('address', '').lower() == port['mac_address']
                    taps.enslave(self.namespace, name, bridge, network['mtu'],
                                 binding.host_side_mac(port['mac_address'])
                                 if same_mac else None)
                plugged = True
            bound = port.get('binding:vif_type') == binding.VIF_TYPE
            status = ACTIVE if plugged and bound else DOWN
            if port['status'] != status:
                self._ports.set_status(port['id'], status)

    def addresses(self):
        """The host's addresses on the bridge (gateway, metadata), CIDR notation."""
        _network, subnet, _ports = self._snapshot()
        return sorted(self._addresses(subnet)) if subnet else []

    # -- serving metadata ----------------------------------------------------------

    def metadata_socket(self, backlog=64):
        """A listening TCP socket on the metadata address and port, in the plane's
        namespace: what the metadata API serves the guests on."""
        address = (self.config.metadata_address, self.config.metadata_port)

        def make():
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(backlog)
            return sock
        return self.namespace.socket(make)

    # -- tearing down ----------------------------------------------------------------

    def stop(self):
        self._watcher.stop()
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._worker is not None:
            self._worker.join(SYNC_TIMEOUT)
            self._worker = None
        self._teardown()

    def _teardown(self):
        """Remove the bridge, DHCP server and tables; leases and the guests' taps stay."""
        steps = (self._watcher.stop, self._dhcp.stop,
                 lambda: self.namespace.run(['nft', '-f', '-'], check=False,
                                            input=firewall.teardown_script(self.config.bridge)),
                 self._delete_bridge, self._dhcp.remove_files)
        for step in steps:
            # Each step on its own: one failing must not leave the others undone.
            try:
                step()
            except (PlaneError, OSError) as exc:
                LOG.error('Data plane teardown: %s', exc)
        self._applied = {}

    def _delete_bridge(self):
        links = [link['ifname'] for link in self.namespace.ip_json('link', 'show')]
        if self.config.bridge in links and self._ours():
            self.namespace.run(['ip', 'link', 'del', 'dev', self.config.bridge])

    def _ours(self):
        try:
            return checks.bridge_state(self.namespace, self.config.bridge,
                                       self.marker) == 'ours'
        except PlaneError:
            return False
