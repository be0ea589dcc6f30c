"""network_data.json and the EC2 addresses, from the network info cache (upstream's format).

The cache is a list of VIFs as upstream's ``NetworkInfo`` serialises it:
``{"id", "address" (MAC), "type", "devname", "network": {"id", "meta":
{"mtu"}, "subnets": [{"cidr", "version", "meta": {"dhcp_server",
"ipv6_address_mode"}, "ips": [{"address", "floating_ips": [...]}],
"gateway": {"address"}, "dns": [{"address"}], "routes": [{"cidr",
"gateway": {"address"}}]}]}}``. Missing parts read as absent, never as errors:
the cache is written by another service's code.
"""

import ipaddress

# VIF types a guest sees under their own name in a link; others are 'phy'.
EXPOSED_VIF_TYPES = ('bridge', 'dvs', 'hw_veb', 'hyperv', 'ovs', 'tap', 'vhostuser', 'vif')


def _dict(value):
    return value if isinstance(value, dict) else {}


def _list(value):
    return value if isinstance(value, list) else []


def _meta(item):
    return _dict(_dict(item).get('meta'))


def _first_subnet(network, version):
    for subnet in _list(network.get('subnets')):
        if _dict(subnet).get('version') == version:
            return subnet
    return None


def _link(vif, index):
    vif_type = vif.get('type')
    return {
        'id': vif.get('devname') or 'interface%d' % index,
        'vif_id': vif.get('id'),
        'type': vif_type if vif_type in EXPOSED_VIF_TYPES else 'phy',
        'mtu': _meta(vif.get('network')).get('mtu'),
        'ethernet_mac_address': vif.get('address'),
    }


def _netmask(address, subnet, version):
    prefix = _meta(subnet).get('prefixlen')
    try:
        if version == 4 and prefix:
            return str(ipaddress.ip_interface('%s/%s' % (address, prefix)).netmask)
        return str(ipaddress.ip_network(subnet.get('cidr'), strict=False).netmask)
    except (TypeError, ValueError):
        return None


def _routes(subnet, version):
    routes = []
    gateway = _dict(subnet.get('gateway')).get('address')
    if gateway:
        everything = '0.0.0.0' if version == 4 else '::'
        routes.append({'network': everything, 'netmask': everything, 'gateway': gateway})
    for route in _list(subnet.get('routes')):
        route = _dict(route)
        try:
            net = ipaddress.ip_network(route.get('cidr'), strict=False)
        except (TypeError, ValueError):
            continue
        routes.append({'network': str(net.network_address), 'netmask': str(net.netmask),
                       'gateway': _dict(route.get('gateway')).get('address')})
    return routes


def _dns(subnet):
    return [{'type': 'dns', 'address': _dict(ip).get('address')}
            for ip in _list(subnet.get('dns'))]


def _network(vif, subnet, version, index, link_id):
    net_id = _dict(vif.get('network')).get('id')
    mode = _meta(subnet).get('ipv6_address_mode')
    if mode is None and _meta(subnet).get('dhcp_server') is not None:
        # The guest asks DHCP; it is told only where to ask.
        return {'id': 'network%d' % index, 'type': 'ipv%d_dhcp' % version,
                'link': link_id, 'network_id': net_id}
    address = _dict(_list(subnet.get('ips'))[0]).get('address')
    return {
        'id': 'network%d' % index,
        'type': 'ipv%d%s' % (version, '_%s' % mode if mode is not None else ''),
        'link': link_id,
        'ip_address': address,
        'netmask': _netmask(address, subnet, version),
        'routes': _routes(subnet, version),
        'network_id': net_id,
        'services': _dns(subnet),
    }


def network_data(network_info):
    """The network_data.json document: links (one per VIF with a subnet),
    networks (the first IPv4 and first IPv6 subnet of each) and DNS services."""
    links, networks, services = [], [], []
    vifs = [_dict(v) for v in _list(network_info)]
    index = -1
    for vif in vifs:
        network = _dict(vif.get('network'))
        if not _list(network.get('subnets')):
            continue
        index += 1
        subnets = [(s, v) for v, s in ((4, _first_subnet(network, 4)),
                                       (6, _first_subnet(network, 6))) if s]
        if not subnets:
            continue
        link = _link(vif, index)
        links.append(link)
        for subnet, version in subnets:
            if not _list(subnet.get('ips')):
                continue
            networks.append(_network(vif, subnet, version, len(networks), link['id']))
            services.extend(d for d in _dns(subnet) if d not in services)
    return {'links': links, 'networks': networks, 'services': services}


def addresses(network_info):
    """(fixed IPv4, fixed IPv6, floating) addresses, in VIF order."""
    fixed4, fixed6, floating = [], [], []
    for vif in _list(network_info):
        for subnet in _list(_dict(_dict(vif).get('network')).get('subnets')):
            for ip in _list(_dict(subnet).get('ips')):
                ip = _dict(ip)
                address = ip.get('address')
                try:
                    version = ipaddress.ip_address(address).version
                except (TypeError, ValueError):
                    continue
                (fixed4 if version == 4 else fixed6).append(address)
                floating.extend(_dict(f).get('address') for f in _list(ip.get('floating_ips'))
                                if _dict(f).get('address'))
    return fixed4, fixed6, floating
