"""network_data.json and EC2 addresses from upstream-format network info caches (literal JSON)."""

import copy

from nova.metadata import network_data

# Two ports as upstream's network info cache holds them: one on a network
# whose subnet has DHCP (Neutron's dhcp_server meta), one static port with a
# host route, a floating IP and an IPv6 SLAAC subnet beside its IPv4 one.
NETWORK_INFO = [
    {'id': '6f70b4c2-1234-4b7e-9d0e-0a0b0c0d0e0f', 'address': 'fa:16:3e:11:22:33',
     'type': 'ovs', 'devname': 'tap6f70b4c2-12', 'active': True, 'details': {},
     'network': {'id': 'a1b2c3d4-0000-4000-8000-000000000001', 'label': 'private',
                 'meta': {'mtu': 1442, 'tenant_id': 'proj'},
                 'subnets': [{'cidr': '10.77.0.0/24', 'version': 4,
                              'meta': {'dhcp_server': '10.77.0.2'},
                              'gateway': {'address': '10.77.0.1', 'type': 'gateway'},
                              'dns': [{'address': '10.77.0.53', 'type': 'dns'}],
                              'routes': [],
                              'ips': [{'address': '10.77.0.41', 'type': 'fixed',
                                       'version': 4, 'floating_ips': []}]}]}},
    {'id': '0e0d0c0b-5678-4b7e-9d0e-0f0e0d0c0b0a', 'address': 'fa:16:3e:44:55:66',
     'type': 'vhostuser', 'devname': None,
     'details': {'vhostuser_socket': '/var/run/openvswitch/vhu0e0d0c0b-56',
                 'vhostuser_mode': 'server', 'vhostuser_ovs_plug': True},
     'network': {'id': 'a1b2c3d4-0000-4000-8000-000000000002', 'label': 'static',
                 'meta': {},
                 'subnets': [{'cidr': '192.168.5.0/24', 'version': 4, 'meta': {},
                              'gateway': {'address': '192.168.5.1'},
                              'dns': [{'address': '10.77.0.53'}, {'address': '9.9.9.9'}],
                              'routes': [{'cidr': '172.16.0.0/16',
                                          'gateway': {'address': '192.168.5.254'}}],
                              'ips': [{'address': '192.168.5.10', 'type': 'fixed',
                                       'floating_ips': [{'address': '172.24.4.7',
                                                         'type': 'floating'}]}]},
                             {'cidr': 'fd00:5::/64', 'version': 6,
                              'meta': {'ipv6_address_mode': 'slaac'},
                              'gateway': {'address': 'fd00:5::1'}, 'dns': [], 'routes': [],
                              'ips': [{'address': 'fd00:5::f816:3eff:fe44:5566'}]}]}},
]

NETWORK_DATA = {
    'links': [
        {'id': 'tap6f70b4c2-12', 'vif_id': '6f70b4c2-1234-4b7e-9d0e-0a0b0c0d0e0f',
         'type': 'ovs', 'mtu': 1442, 'ethernet_mac_address': 'fa:16:3e:11:22:33'},
        {'id': 'interface1', 'vif_id': '0e0d0c0b-5678-4b7e-9d0e-0f0e0d0c0b0a',
         'type': 'vhostuser', 'mtu': None, 'ethernet_mac_address': 'fa:16:3e:44:55:66'},
    ],
    'networks': [
        {'id': 'network0', 'type': 'ipv4_dhcp', 'link': 'tap6f70b4c2-12',
         'network_id': 'a1b2c3d4-0000-4000-8000-000000000001'},
        {'id': 'network1', 'type': 'ipv4', 'link': 'interface1',
         'ip_address': '192.168.5.10', 'netmask': '255.255.255.0',
         'routes': [{'network': '0.0.0.0', 'netmask': '0.0.0.0', 'gateway': '192.168.5.1'},
                    {'network': '172.16.0.0', 'netmask': '255.255.0.0',
                     'gateway': '192.168.5.254'}],
         'network_id': 'a1b2c3d4-0000-4000-8000-000000000002',
         'services': [{'type': 'dns', 'address': '10.77.0.53'},
                      {'type': 'dns', 'address': '9.9.9.9'}]},
        {'id': 'network2', 'type': 'ipv6_slaac', 'link': 'interface1',
         'ip_address': 'fd00:5::f816:3eff:fe44:5566',
         'netmask': 'ffff:ffff:ffff:ffff::',
         'routes': [{'network': '::', 'netmask': '::', 'gateway': 'fd00:5::1'}],
         'network_id': 'a1b2c3d4-0000-4000-8000-000000000002', 'services': []},
    ],
    'services': [{'type': 'dns', 'address': '10.77.0.53'},
                 {'type': 'dns', 'address': '9.9.9.9'}],
}


def test_network_data_in_upstreams_shape():
    assert network_data.network_data(NETWORK_INFO) == NETWORK_DATA


def test_no_network_info_is_empty_lists():
    for empty in ([], None, 'garbage', [None, 5]):
        assert network_data.network_data(empty) == {'links': [], 'networks': [],
                                                    'services': []}


def test_a_port_without_subnets_or_ips_gets_no_network():
    info = copy.deepcopy(NETWORK_INFO[:1])
    info[0]['network']['subnets'][0]['ips'] = []
    info.append({'id': 'p3', 'address': 'fa:16:3e:00:00:03', 'type': 'ovs',
                 'network': {'id': 'n3', 'subnets': []}})
    data = network_data.network_data(info)
    # The link is there (the NIC exists), with no network and no DNS on it.
    assert [link['id'] for link in data['links']] == ['tap6f70b4c2-12']
    assert data['networks'] == [] and data['services'] == []


def test_prefixlen_meta_sets_the_ipv4_netmask():
    info = copy.deepcopy(NETWORK_INFO[1:])
    info[0]['network']['subnets'][0]['meta'] = {'prefixlen': 28}
    assert network_data.network_data(info)['networks'][0]['netmask'] == '255.255.255.240'


def test_addresses_for_the_ec2_format():
    assert network_data.addresses(NETWORK_INFO) == (
        ['10.77.0.41', '192.168.5.10'], ['fd00:5::f816:3eff:fe44:5566'], ['172.24.4.7'])
    assert network_data.addresses([{'network': {'subnets': [{'ips': [
        {'address': 'not-an-ip'}]}]}}]) == ([], [], [])
