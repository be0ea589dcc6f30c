"""Security group rule checks as Neutron makes them: protocols, ports, ethertypes, remotes."""

import ipaddress

from nova.embedded.network import errors

# Neutron's IP protocol names (neutron_lib IP_PROTOCOL_MAP) and numbers.
PROTOCOLS = {
    'ah': 51, 'dccp': 33, 'egp': 8, 'esp': 50, 'gre': 47, 'hopopt': 0, 'icmp': 1,
    'igmp': 2, 'ip': 0, 'ipip': 4, 'ipv6-encap': 41, 'ipv6-frag': 44,
    'ipv6-icmp': 58, 'icmpv6': 58, 'ipv6-nonxt': 59, 'ipv6-opts': 60,
    'ipv6-route': 43, 'ospf': 89, 'pgm': 113, 'rsvp': 46, 'sctp': 132, 'tcp': 6,
    'udp': 17, 'udplite': 136, 'vrrp': 112,
}
# As Neutron prints its supported values in the error message.
SUPPORTED = (None, 'any') + tuple(PROTOCOLS)
PORT_PROTOCOLS = ('dccp', 'sctp', 'tcp', 'udp', 'udplite')
_PORT_NUMBERS = tuple(PROTOCOLS[p] for p in PORT_PROTOCOLS)
_IPV6_ONLY = ('ipv6-encap', 'ipv6-frag', 'ipv6-icmp', 'icmpv6', 'ipv6-nonxt',
              'ipv6-opts', 'ipv6-route', '41', '44', '58', '59', '60', '43')
ETHERTYPES = ('IPv4', 'IPv6')
# Rules Neutron puts in every project's 'default' group (the default rule
# templates): members may reach each other, everything may leave.
DEFAULT_GROUP_RULES = (('ingress', 'IPv4', True), ('ingress', 'IPv6', True),
                       ('egress', 'IPv4', False), ('egress', 'IPv6', False))
OTHER_GROUP_RULES = (('egress', 'IPv4', False), ('egress', 'IPv6', False))


def _invalid(message, kind):
    # Neutron's security group errors replace InvalidInput's message whole.
    return errors.NeutronBadRequest(message, kind=kind)


def convert_protocol(value):
    if value in (None, 'any'):
        return None
    if isinstance(value, bool):
        value = str(value)
    try:
        number = int(value)
    except (TypeError, ValueError):
        if isinstance(value, str) and value.lower() in PROTOCOLS:
            return value.lower()
    else:
        if 0 <= number <= 255:
            return str(value)
    raise _invalid('Security group rule protocol %s not supported. Only protocol '
                   'values %s and integer representations [0 to 255] are supported.'
                   % (value, SUPPORTED), 'SecurityGroupRuleInvalidProtocol')


def convert_ethertype(value):
    if isinstance(value, str):
        for name in ETHERTYPES:
            if name.lower() == value.lower():
                return name
    raise _invalid("Security group rule for ethertype '%s' not supported. Allowed "
                   "values are %s." % (value, list(ETHERTYPES)),
                   'SecurityGroupRuleInvalidEtherType')


def convert_port(value):
    if value is None:
        return None
    if not isinstance(value, bool):
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = -1
        if 0 <= number <= 65535 and str(number) == str(value).strip():
            return number
    raise _invalid('Invalid value for port %s' % value, 'SecurityGroupInvalidPortValue')


def convert_prefix(value):
    if not value:
        return None
    try:
        # As Neutron keeps it: host bits stay, a bare address gets its /32 or /128.
        return str(ipaddress.ip_interface(value))
    except (TypeError, ValueError):
        raise _invalid('Invalid CIDR %s given as IP prefix.' % value, 'InvalidCIDR') from None


def protocol_number(protocol):
    if protocol is None:
        return None
    return PROTOCOLS.get(protocol, None) if not protocol.isdigit() else int(protocol)


def _canonical_ipv6_icmp(rule):
    if rule['ethertype'] == 'IPv6':
        if rule['protocol'] in ('icmp', 'icmpv6'):
            rule['protocol'] = 'ipv6-icmp'
        elif rule['protocol'] == '1':
            rule['protocol'] = '58'


def _check_ports(rule):
    low, high = rule['port_range_min'], rule['port_range_max']
    if low is None and high is None:
        return
    if not rule['protocol']:
        raise _invalid('Must also specify protocol if port range is given.',
                       'SecurityGroupProtocolRequiredWithPorts')
    number = protocol_number(rule['protocol'])
    if number in _PORT_NUMBERS:
        if low == 0 or high == 0:
            raise _invalid('Invalid value for port 0', 'SecurityGroupInvalidPortValue')
        if low is None or high is None or low > high:
            raise _invalid('For TCP/UDP protocols, port_range_min must be <= '
                           'port_range_max', 'SecurityGroupInvalidPortRange')
    elif number in (1, 58):
        for attr, field in (('port_range_min', 'type'), ('port_range_max', 'code')):
            if rule[attr] is not None and not 0 <= rule[attr] <= 255:
                raise _invalid('Invalid value for ICMP %s (%s) %s. It must be 0 to 255.'
                               % (field, attr, rule[attr]),
                               'SecurityGroupInvalidIcmpValue')
        if low is None and high is not None:
            raise _invalid('ICMP code (port-range-max) %s is provided but ICMP type '
                           '(port-range-min) is missing.' % high,
                           'SecurityGroupMissingIcmpType')
    else:
        raise _invalid('Ports cannot be specified for protocol %s. Ports are only '
                       'supported for %s.' % (number, ', '.join(p.upper() for p in
                                                              PORT_PROTOCOLS)),
                       'SecurityGroupInvalidProtocolForPort')


def normalize(rule):
    """Convert and check a rule's fields in place, in Neutron's order."""
    rule['protocol'] = convert_protocol(rule.get('protocol'))
    rule['ethertype'] = convert_ethertype(rule.get('ethertype', 'IPv4'))
    rule['port_range_min'] = convert_port(rule.get('port_range_min'))
    rule['port_range_max'] = convert_port(rule.get('port_range_max'))
    prefix = rule.get('remote_ip_prefix')
    rule['remote_ip_prefix'] = convert_prefix(prefix)
    _canonical_ipv6_icmp(rule)
    if rule['port_range_min'] == 1 and rule['port_range_max'] == 65535:
        # The whole range is no range (Neutron: better for the backends).
        rule['port_range_min'] = rule['port_range_max'] = None
    _check_ports(rule)
    if rule['remote_ip_prefix']:
        version = ipaddress.ip_interface(rule['remote_ip_prefix']).version
        if rule['ethertype'] != 'IPv%d' % version:
            raise _invalid('Conflicting value ethertype %s for CIDR %s'
                           % (rule['ethertype'], prefix),
                           'SecurityGroupRuleParameterConflict')
    if rule['protocol'] in _IPV6_ONLY and rule['ethertype'] == 'IPv4':
        raise _invalid('Invalid ethertype %s for protocol %s.'
                       % (rule['ethertype'], rule['protocol']),
                       'SecurityGroupEthertypeConflictWithProtocol')
    if rule['remote_ip_prefix'] and rule.get('remote_group_id'):
        raise _invalid('Only one of remote_ip_prefix or remote_group_id or '
                       'remote_address_group_id may be provided.',
                       'SecurityGroupMultipleRemoteEntites')
    return rule


def _protocol_key(rule):
    protocol = rule['protocol']
    if protocol is None:
        return '+'
    number = protocol_number(protocol)
    return str(number if number is not None else protocol)


def key(rule):
    """What makes two rules the same rule (Neutron's duplicate check)."""
    prefix = rule.get('remote_ip_prefix')
    if prefix in ('0.0.0.0/0', '::/0'):
        prefix = None
    return (rule['direction'], rule['ethertype'], rule.get('port_range_max'),
            rule.get('port_range_min'), _protocol_key(rule), rule.get('remote_group_id'),
            prefix, rule['security_group_id'])


def normalized_cidr(prefix):
    if not prefix:
        return None
    return str(ipaddress.ip_network(prefix, strict=False))
