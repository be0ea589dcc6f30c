"""Security groups as nftables rules: a bridge table (anti-spoofing) and an inet table (stateful).

The kernel here has no conntrack in the bridge family, so the stateful
part runs in the inet family: the bridge passes its IPv4 frames through
the IP hooks (the bridge's ``nf_call_iptables``), where the forward chain
sees guest-to-guest traffic, input sees guest-to-host and output
host-to-guest. Ports are told apart there by their addresses, which the
bridge table holds to the port's own (MAC, IPs) on every frame it accepts
from the port's tap. The plane is IPv4 only: secured ports get no IPv6.

Both tables are replaced whole in one ``nft -f`` transaction, so a rule
change never leaves a moment without filtering.
"""

import ipaddress
import re
import typing

from nova.embedded.network import sgrules

METADATA_IP = '169.254.169.254'
METADATA_PORT = 80


class FirewallPort(typing.NamedTuple):
    """A port as the firewall needs it."""

    tap: str
    mac: str
    ips: tuple            # IPv4 addresses
    secured: bool         # port_security_enabled
    groups: tuple         # security group ids


def table_name(bridge):
    return 'nova_' + re.sub(r'[^A-Za-z0-9_]', '_', bridge)


def _set(values):
    return '{ %s }' % ', '.join(values)


def _l2_chain(index, port):
    lines = ['chain port_%d {' % index,
             '  ether saddr != %s drop' % port.mac,
             '  ether type arp arp saddr ether != %s drop' % port.mac]
    if port.ips:
        lines.append('  ether type arp arp saddr ip != %s drop'
                     % _set(list(port.ips) + ['0.0.0.0']))
    else:
        lines.append('  ether type arp arp saddr ip != 0.0.0.0 drop')
    lines += ['  ether type arp accept',
              # DHCP before the guest has an address.
              '  ether type ip ip saddr 0.0.0.0 udp sport 68 udp dport 67 accept']
    if port.ips:
        lines += ['  ether type ip ip saddr != %s drop' % _set(port.ips),
                  # No DHCP server on a guest.
                  '  ether type ip udp sport 67 drop',
                  '  ether type ip accept']
    lines += ['  drop', '}']
    return lines


def bridge_table(name, ports):
    secured = [p for p in ports if p.secured]
    lines = ['table bridge %s {' % name]
    for index, port in enumerate(secured):
        lines += ['  ' + line for line in _l2_chain(index, port)]
    lines += ['  chain prerouting {',
              '    type filter hook prerouting priority filter; policy accept;']
    if secured:
        lines.append('    iifname vmap %s' % _set(
            '"%s" : jump port_%d' % (p.tap, i) for i, p in enumerate(secured)))
    lines.append('  }')
    for hook in ('forward', 'output'):
        lines += ['  chain %s {' % hook,
                  '    type filter hook %s priority filter; policy accept;' % hook]
        if secured:
            lines.append('    oifname %s ether type ip6 drop'
                         % _set('"%s"' % p.tap for p in secured))
        lines.append('  }')
    lines.append('}')
    return lines


def _rule_match(rule, group_sets, direction):
    """The nft match of one security group rule, or None if it cannot match IPv4."""
    if rule['ethertype'] != 'IPv4':
        return None
    remote = 'saddr' if direction == 'ingress' else 'daddr'
    parts = []
    prefix = rule.get('remote_ip_prefix')
    if prefix:
        net = ipaddress.ip_network(prefix, strict=False)
        if net.prefixlen:
            parts.append('ip %s %s' % (remote, net))
    elif rule.get('remote_group_id'):
        name = group_sets.get(rule['remote_group_id'])
        if name is None:
            return None
        parts.append('ip %s @%s' % (remote, name))
    protocol = rule.get('protocol')
    number = sgrules.protocol_number(protocol) if protocol else None
    if number is not None:
        parts.append('meta l4proto %d' % number)
    low, high = rule.get('port_range_min'), rule.get('port_range_max')
    if number == 1:
        if low is not None:
            parts.append('icmp type %d' % low)
        if high is not None:
            parts.append('icmp code %d' % high)
    elif number is not None and low is not None:
        parts.append('th dport %s' % (low if low == high else '%d-%d' % (low, high)))
    return ' '.join(parts)


def _port_chains(index, port, rules_by_group, group_sets):
    ingress, egress = [], []
    for group_id in port.groups:
        for rule in rules_by_group.get(group_id, ()):
            match = _rule_match(rule, group_sets, rule['direction'])
            if match is None:
                continue
            if rule['direction'] == 'ingress':
                ingress.append('  %s accept' % match if match else '  accept')
            else:
                egress.append('  %s return' % match if match else '  return')
    return (['chain ingress_%d {' % index] + ingress + ['  drop', '}']
            + ['chain egress_%d {' % index] + egress + ['  drop', '}'])


def inet_table(name, bridge, ports, rules_by_group, members, metadata=None):
    """``members``: {group id: IPv4 addresses of its ports}; ``metadata``:
    (address, port) to send the guests' 169.254.169.254:80 to, if not itself."""
    secured = [p for p in ports if p.secured]
    group_sets = {}
    lines = ['table inet %s {' % name]
    wanted = {rule['remote_group_id'] for rules in rules_by_group.values() for rule in rules
              if rule.get('remote_group_id')}
    for index, group_id in enumerate(sorted(wanted)):
        group_sets[group_id] = 'group_%d' % index
        addresses = sorted(set(members.get(group_id, ())))
        lines.append('  set group_%d {' % index)
        lines.append('    type ipv4_addr;')
        if addresses:
            lines.append('    elements = %s' % _set(addresses))
        lines.append('  }')
    for index, port in enumerate(secured):
        lines += ['  ' + line for line in _port_chains(index, port, rules_by_group,
                                                        group_sets)]
    by_ip_in = [(ip, 'ingress_%d' % i) for i, p in enumerate(secured) for ip in p.ips]
    by_ip_out = [(ip, 'egress_%d' % i) for i, p in enumerate(secured) for ip in p.ips]

    def vmap(key, pairs):
        if not pairs:
            return []
        return ['    ip %s vmap %s' % (key, _set('%s : jump %s' % pair for pair in pairs))]
    lines += ['  chain guests {',
              '    ct state established,related accept',
              '    ct state invalid drop'] + vmap('saddr', by_ip_out) + \
        vmap('daddr', by_ip_in) + ['  }']
    lines += ['  chain from_guests {',
              '    ct state established,related accept',
              '    ct state invalid drop',
              '    udp sport 68 udp dport 67 accept'] + vmap('saddr', by_ip_out) + ['  }']
    lines += ['  chain to_guests {',
              '    ct state established,related accept',
              '    udp sport 67 udp dport 68 accept'] + vmap('daddr', by_ip_in) + ['  }']
    for hook, match in (('forward', 'iifname "%s" oifname "%s" jump guests'
                         % (bridge, bridge)),
                        ('input', 'iifname "%s" jump from_guests' % bridge),
                        ('output', 'oifname "%s" jump to_guests' % bridge)):
        lines += ['  chain %s {' % hook,
                  '    type filter hook %s priority filter; policy accept;' % hook,
                  '    ' + match, '  }']
    if metadata and tuple(metadata) != (METADATA_IP, METADATA_PORT):
        lines += ['  chain metadata {',
                  '    type nat hook prerouting priority dstnat; policy accept;',
                  '    iifname "%s" ip daddr %s tcp dport %d dnat ip to %s:%d'
                  % (bridge, METADATA_IP, METADATA_PORT, metadata[0], metadata[1]),
                  '  }']
    lines.append('}')
    return lines


def ruleset(bridge, ports, rules_by_group, members, metadata=None):
    """The nft script replacing both tables in one transaction."""
    name = table_name(bridge)
    lines = []
    for family in ('bridge', 'inet'):
        # Declare first so that the delete never fails, then replace.
        lines += ['table %s %s' % (family, name), 'delete table %s %s' % (family, name)]
    lines += bridge_table(name, ports)
    lines += inet_table(name, bridge, ports, rules_by_group, members, metadata)
    return '\n'.join(lines) + '\n'


def teardown_script(bridge):
    name = table_name(bridge)
    return ''.join('table %s %s\ndelete table %s %s\n' % (f, name, f, name)
                   for f in ('bridge', 'inet'))


def apply(namespace, script):
    namespace.run(['nft', '-f', '-'], input=script)


def present(namespace, bridge):
    """Whether either table exists (teardown checks)."""
    out = namespace.run(['nft', 'list', 'tables'], check=False).stdout
    name = table_name(bridge)
    return any(line.split()[-1] == name for line in out.splitlines() if line.strip())
