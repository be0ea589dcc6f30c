"""What the data plane hands dnsmasq and nftables, as text, and its checks (no namespace)."""

import pytest

from nova.embedded.network import binding, checks, dnsmasq, firewall, netns

SUBNET = {'cidr': '10.78.0.0/24', 'gateway_ip': '10.78.0.1', 'dns_nameservers': ['10.9.9.9'],
          'host_routes': [{'destination': '10.50.0.0/16', 'nexthop': '10.78.0.254'}]}


def test_dhcp_options_carry_metadata_route_mtu_and_dns():
    text = dnsmasq.options_text(SUBNET, 1450)
    routes = ('169.254.169.254/32,10.78.0.1,10.50.0.0/16,10.78.0.254,0.0.0.0/0,10.78.0.1')
    assert text.splitlines() == [
        'option:router,10.78.0.1', 'option:classless-static-route,' + routes, '249,' + routes,
        'option:mtu,1450', 'option:dns-server,10.9.9.9']
    bare = dnsmasq.options_text(dict(SUBNET, gateway_ip=None, host_routes=[],
                                     dns_nameservers=[]), 1500)
    assert bare == 'option:mtu,1500\n'


def test_dhcp_hosts_and_names():
    port = {'dns_name': 'web1.example.org.', 'ip': '10.78.0.9'}
    assert dnsmasq.hostname(port) == 'web1'
    assert dnsmasq.hostname({'ip': '10.78.0.9'}) == 'host-10-78-0-9'
    assert dnsmasq.hosts_text({('fa:16:3e:00:00:02', '10.78.0.9', 'b'),
                               ('fa:16:3e:00:00:01', '10.78.0.8', 'a')}) == \
        'fa:16:3e:00:00:01,10.78.0.8,a\nfa:16:3e:00:00:02,10.78.0.9,b\n'


def _rule(direction, **fields):
    return dict({'direction': direction, 'ethertype': 'IPv4', 'protocol': None,
                 'port_range_min': None, 'port_range_max': None, 'remote_ip_prefix': None,
                 'remote_group_id': None}, **fields)


def test_ruleset_per_port_chains():
    ports = [firewall.FirewallPort('tapaaaaaaaa-aa', 'fa:16:3e:00:00:01', ('10.78.0.5',),
                                   True, ('g',)),
             firewall.FirewallPort('tapbbbbbbbb-bb', 'fa:16:3e:00:00:02', ('10.78.0.6',),
                                   False, ())]
    rules = {'g': [_rule('ingress', protocol='tcp', port_range_min=22, port_range_max=22,
                         remote_ip_prefix='0.0.0.0/0'),
                   _rule('ingress', protocol='icmp', port_range_min=8,
                         remote_ip_prefix='10.1.2.3/24'),
                   _rule('ingress', remote_group_id='g'),
                   _rule('ingress', ethertype='IPv6', remote_group_id='g'),
                   _rule('egress', protocol='udp', port_range_min=53, port_range_max=54)]}
    text = firewall.ruleset('br-aio', ports, rules, {'g': ['10.78.0.5']},
                            metadata=('10.78.0.1', 8775))
    lines = [line.strip() for line in text.splitlines()]
    assert lines[:4] == ['table bridge nova_br_aio', 'delete table bridge nova_br_aio',
                         'table inet nova_br_aio', 'delete table inet nova_br_aio']
    assert 'iifname vmap { "tapaaaaaaaa-aa" : jump port_0 }' in lines
    assert 'ether saddr != fa:16:3e:00:00:01 drop' in lines
    assert 'ether type ip ip saddr != { 10.78.0.5 } drop' in lines
    # The port without port security is not filtered at all.
    assert 'tapbbbbbbbb-bb' not in text and '10.78.0.6' not in text
    ingress = lines[lines.index('chain ingress_0 {') + 1:lines.index('chain egress_0 {')]
    assert ingress == ['meta l4proto 6 th dport 22 accept',
                       'ip saddr 10.1.2.0/24 meta l4proto 1 icmp type 8 accept',
                       'ip saddr @group_0 accept', 'drop', '}']
    egress = lines[lines.index('chain egress_0 {') + 1:lines.index('chain guests {')]
    assert egress == ['meta l4proto 17 th dport 53-54 return', 'drop', '}']
    assert 'iifname "br-aio" ip daddr 169.254.169.254 tcp dport 80 dnat ip to ' \
        '10.78.0.1:8775' in lines
    plain = firewall.ruleset('br-aio', ports, rules, {}, metadata=('169.254.169.254', 80))
    assert 'dnat' not in plain


def test_tap_names_and_host_side_mac():
    assert binding.devname('6f70b4c2-1234-5678-9abc-def012345678') == 'tap6f70b4c2-12'
    assert binding.host_side_mac('fa:16:3e:01:02:03') == 'fe:16:3e:01:02:03'


def test_missing_tools_are_named_with_their_packages(monkeypatch):
    # No way to uninstall nft for a test: pretend it and dhcp_release are gone.
    real = checks.find_tool
    monkeypatch.setattr(checks, 'find_tool',
                        lambda name: None if name in ('nft', 'dhcp_release') else real(name))
    with pytest.raises(netns.PlaneError) as exc:
        checks.require_tools()
    assert str(exc.value) == (
        'the embedded network data plane needs dhcp_release, nft (install dnsmasq-utils, '
        'nftables; tools/install.sh does), or set [aio] network_dataplane = false')
