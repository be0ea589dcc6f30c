"""IP address management: subnet checks (gateway, pools, DNS, routes) and fixed IP allocation."""

import ipaddress
import random

from nova.embedded.network import errors

MAX_DNS_NAMESERVERS = 5       # Neutron's [DEFAULT] max_dns_nameservers
MAX_HOST_ROUTES = 20          # Neutron's [DEFAULT] max_subnet_host_routes
# Like Neutron's IPAM, pick at random among the first free addresses, so a
# freed address is not handed out again at once (the DHCP server may still
# hold a lease for it).
ALLOCATION_WINDOW = 32


def _invalid(message):
    return errors.NeutronInvalidInput(message)


def network(cidr):
    return ipaddress.ip_network(cidr, strict=False)


def _check_version(ip_version, value, name):
    if ipaddress.ip_network(value, strict=False).version != ip_version:
        raise _invalid("%s '%s' does not match the ip_version '%s'"
                       % (name, value, ip_version))


def check_cidr(cidr, ip_version, enable_dhcp, others, network_id):
    """The new subnet's CIDR: right version, usable with DHCP, no overlap."""
    _check_version(ip_version, cidr, 'cidr')
    net = network(cidr)
    if net.prefixlen == 0:
        raise _invalid('0 is not allowed as CIDR prefix length')
    if ip_version == 6 and net.network_address == ipaddress.ip_address('::'):
        raise _invalid("IPv6 subnet '::' is not supported")
    if enable_dhcp:
        if (ip_version == 4 and net.prefixlen > 30) or (ip_version == 6 and net.prefixlen > 126):
            raise _invalid('Subnet has a prefix length that is incompatible with '
                           'DHCP service enabled')
        if net.is_multicast:
            raise _invalid('Multicast IP subnet is not supported if enable_dhcp is True')
        if net.is_loopback:
            raise _invalid('Loopback IP subnet is not supported if enable_dhcp is True')
        if ip_version == 4 and int(net.network_address) == 0:
            raise _invalid("First IP '0.0.0.0' of network is not supported if "
                           "enable_dhcp is True.")
    for other in others:
        if network(other['cidr']).overlaps(net):
            raise _invalid('Requested subnet with cidr: %s for network: %s overlaps '
                           'with another subnet' % (cidr, network_id))


def default_gateway(cidr):
    net = network(cidr)
    if net.num_addresses < 2:
        return None
    return str(net.network_address + 1)


def check_gateway(cidr, ip_version, gateway_ip):
    if gateway_ip is None:
        return
    _check_version(ip_version, gateway_ip, 'gateway_ip')
    net = network(cidr)
    addr = ipaddress.ip_address(gateway_ip)
    if addr in net and net.version == 4 and addr in (net.network_address,
                                                     net.broadcast_address):
        raise _invalid('Gateway is not valid on subnet')


def default_pools(cidr, gateway_ip):
    """Every host address but the gateway, as Neutron splits them."""
    net = network(cidr)
    first, last = int(net.network_address), int(net.broadcast_address)
    if first != last:
        if net.version == 4 and net.prefixlen <= 30:
            first, last = first + 1, last - 1
        elif net.version == 6:
            first += 1
    ranges = [(first, last)]
    if gateway_ip is not None:
        gw = int(ipaddress.ip_address(gateway_ip))
        if first <= gw <= last:
            ranges = [(lo, hi) for lo, hi in ((first, gw - 1), (gw + 1, last)) if lo <= hi]
    cls = ipaddress.IPv4Address if net.version == 4 else ipaddress.IPv6Address
    return [{'start': str(cls(lo)), 'end': str(cls(hi))} for lo, hi in ranges]


def _pool_text(pool):
    return '%s-%s' % (pool['start'], pool['end'])


def check_pools(cidr, pools, gateway_ip):
    """Pools inside the subnet, in order, not overlapping, clear of the gateway."""
    net = network(cidr)
    spans = []
    for pool in pools:
        start, end = ipaddress.ip_address(pool['start']), ipaddress.ip_address(pool['end'])
        if start.version != net.version or end.version != net.version or start > end:
            raise errors.NeutronBadRequest(
                'The allocation pool %s is not valid.' % _pool_text(pool),
                kind='InvalidAllocationPool')
        if start < net.network_address or end > net.broadcast_address:
            raise errors.NeutronBadRequest('The allocation pool %s spans beyond the subnet '
                                           'cidr %s.' % (_pool_text(pool), cidr),
                                           kind='OutOfBoundsAllocationPool')
        spans.append((int(start), int(end), pool))
    for index, (lo, hi, pool) in enumerate(spans):
        for lo2, hi2, pool2 in spans[index + 1:]:
            if lo <= hi2 and lo2 <= hi:
                raise errors.NeutronConflict('Found overlapping allocation pools: %s %s for '
                                             'subnet %s.' % (_pool_text(pool), _pool_text(pool2),
                                                      cidr),
                                      kind='OverlappingAllocationPools')
    if gateway_ip is not None:
        gw = int(ipaddress.ip_address(gateway_ip))
        for lo, hi, pool in spans:
            if lo <= gw <= hi:
                raise errors.NeutronConflict('Gateway ip %s conflicts with allocation pool %s.'
                                             % (gateway_ip, _pool_text(pool)),
                                             kind='GatewayConflictWithAllocationPools')


def check_dns_and_routes(ip_version, dns_nameservers, host_routes, subnet_id=None):
    name = subnet_id or 'new subnet'
    if dns_nameservers is not None:
        if len(dns_nameservers) > MAX_DNS_NAMESERVERS:
            raise errors.NeutronBadRequest('Unable to complete operation for %s. The number of '
                                           'DNS nameservers exceeds the limit %d.'
                                           % (name, MAX_DNS_NAMESERVERS),
                                           kind='DNSNameServersExhausted')
        for dns in dns_nameservers:
            _check_version(ip_version, dns, 'dns_nameserver')
    if host_routes is not None:
        if len(host_routes) > MAX_HOST_ROUTES:
            raise errors.NeutronBadRequest('Unable to complete operation for %s. The number of '
                                           'host routes exceeds the limit %d.'
                                           % (name, MAX_HOST_ROUTES), kind='HostRoutesExhausted')
        for route in host_routes:
            if (network(route['destination']).version != ip_version
                    or ipaddress.ip_address(route['nexthop']).version != ip_version):
                raise _invalid('Invalid route: %s' % route)


def in_pools(address, pools):
    addr = int(ipaddress.ip_address(address))
    return any(int(ipaddress.ip_address(p['start'])) <= addr
               <= int(ipaddress.ip_address(p['end'])) for p in pools)


def valid_for_subnet(address, subnet):
    """An address a port may hold on the subnet: inside it, not its network or
    (IPv4) broadcast address."""
    try:
        addr = ipaddress.ip_address(address)
    except ValueError:
        return False
    net = network(subnet['cidr'])
    if addr.version != net.version or addr not in net:
        return False
    if net.version == 4 and net.prefixlen < 31:
        return addr not in (net.network_address, net.broadcast_address)
    return True


def allocate(subnet, used, rng=random):
    """A free address of the subnet's pools, or None when they are exhausted."""
    free = []
    for pool in subnet['allocation_pools']:
        lo = int(ipaddress.ip_address(pool['start']))
        hi = int(ipaddress.ip_address(pool['end']))
        cls = type(ipaddress.ip_address(pool['start']))
        for value in range(lo, hi + 1):
            text = str(cls(value))
            if text not in used:
                free.append(text)
                if len(free) >= ALLOCATION_WINDOW:
                    return rng.choice(free)
    return rng.choice(free) if free else None
