"""Start-up checks of the data plane, each failing with one line that says what to do."""

import ipaddress
import os
import shutil

from nova.embedded.network import netns
from nova.embedded.network.netns import PlaneError

# Where each command comes from, for the message when it is missing.
TOOLS = {'ip': 'iproute2', 'dnsmasq': 'dnsmasq-base', 'dhcp_release': 'dnsmasq-utils',
         'nft': 'nftables'}
_SBIN = ('/usr/sbin', '/sbin', '/usr/bin', '/bin')


def find_tool(name):
    found = shutil.which(name)
    if found is None:
        for directory in _SBIN:
            candidate = os.path.join(directory, name)
            if os.access(candidate, os.X_OK):
                return candidate
    return found


def require_tools():
    missing = [name for name in TOOLS if find_tool(name) is None]
    if missing:
        raise PlaneError('the embedded network data plane needs %s (install %s; '
                         'tools/install.sh does), or set [aio] network_dataplane = false'
                         % (', '.join(missing), ', '.join(TOOLS[m] for m in missing)))


def require_privileges(namespace):
    needed = [netns.CAP_NET_ADMIN] + ([netns.CAP_SYS_ADMIN] if namespace.name else [])
    if not all(netns.has_capability(bit) for bit in needed):
        what = ('CAP_NET_ADMIN and CAP_SYS_ADMIN (to enter [aio] network_namespace)'
                if namespace.name else 'CAP_NET_ADMIN')
        raise PlaneError('the embedded network data plane needs root or %s to create its '
                         'bridge, DHCP server and firewall; run nova-aio as root, or set '
                         '[aio] network_dataplane = false to run without guest networking'
                         % what)


def require_namespace(namespace):
    if not namespace.exists():
        raise PlaneError('[aio] network_namespace %s does not exist (create it with '
                         '"ip netns add %s")' % (namespace.name, namespace.name))


def _routes(namespace):
    return namespace.ip_json('-4', 'route', 'show', 'table', 'main')


def _addresses(namespace):
    found = []
    for link in namespace.ip_json('-4', 'addr', 'show'):
        for info in link.get('addr_info', []):
            found.append((link['ifname'], info['local'], info['prefixlen']))
    return found


def check_cidr(namespace, cidr, bridge, metadata_address):
    """The subnet (and the metadata address) must not overlap what the namespace
    routes elsewhere: a default route is fine, a more specific one is not."""
    net = ipaddress.ip_network(cidr, strict=False)
    metadata = ipaddress.ip_network(metadata_address + '/32')
    for route in _routes(namespace):
        dst, dev = route.get('dst'), route.get('dev')
        if dst in (None, 'default') or dev == bridge:
            continue
        try:
            routed = ipaddress.ip_network(dst, strict=False)
        except ValueError:
            continue
        if routed.prefixlen == 0:
            continue
        where = 'via %s' % dev if dev else ''
        if routed.overlaps(net):
            raise PlaneError('[aio] network_cidr %s overlaps the route %s %s in %s; '
                             'choose a free range' % (net, routed, where, namespace))
        if routed.overlaps(metadata):
            raise PlaneError('the metadata address %s is routed %s in %s (the host\'s own '
                             'metadata service?); set [aio] metadata_address to the '
                             'gateway of [aio] network_cidr' % (metadata_address, where,
                                                                namespace))
    for dev, local, prefixlen in _addresses(namespace):
        if dev == bridge:
            continue
        if ipaddress.ip_address(local) in net:
            raise PlaneError('[aio] network_cidr %s overlaps the address %s/%d of %s in %s; '
                             'choose a free range' % (net, local, prefixlen, dev, namespace))


def bridge_state(namespace, bridge, marker):
    """'absent', or 'ours' (a bridge carrying our marker); PlaneError if anything else
    has the name."""
    links = [link for link in namespace.ip_json('-d', 'link', 'show')
             if link.get('ifname') == bridge]
    if not links:
        return 'absent'
    link = links[0]
    kind = (link.get('linkinfo') or {}).get('info_kind')
    if kind == 'bridge' and link.get('ifalias') == marker:
        return 'ours'
    raise PlaneError('[aio] network_bridge %s is in use by another device (%s%s) in %s; '
                     'choose another name' % (bridge, kind or 'not a bridge',
                                              ', alias %s' % link['ifalias']
                                              if link.get('ifalias') else '', namespace))
