"""The network info model: upstream's cache JSON shape and the server views' addresses."""

import json

from nova.network import model

PORT1 = '6f70b4c2-12a3-4b6e-9d1f-0e6a7c2b9d11'
PORT2 = '1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5'
NET = 'a1b2c3d4-0000-4000-8000-000000000001'


def _vif(port_id, mac, label, fixed, floating=(), **kw):
    sub = model.subnet('10.0.0.0/24', dns=['10.0.0.3'], gateway='10.0.0.1',
                       ips=[model.fixed_ip(fixed, floating_ips=floating)],
                       routes=[model.route('0.0.0.0/0', '10.0.0.1')], dhcp_server='10.0.0.2')
    net = model.network(id=NET, bridge='br-int', label=label, subnets=[sub], mtu=1442,
                        tenant_id='p1', physical_network=None, tunneled=True, injected=False)
    return model.vif(port_id, address=mac, network=net, type='ovs',
                     details={'datapath_type': 'netdev'}, devname=model.devname(port_id),
                     ovs_interfaceid=port_id, active=False, delegate_create=True, **kw)


def test_vif_has_upstreams_keys_and_is_plain_json():
    vif = _vif(PORT1, 'fa:16:3e:00:00:01', 'private', '10.0.0.5', ['172.24.4.9'], tag='nic1')
    assert set(vif) == {'id', 'address', 'network', 'type', 'details', 'devname',
                        'ovs_interfaceid', 'qbh_params', 'qbg_params', 'active', 'vnic_type',
                        'profile', 'preserve_on_delete', 'delegate_create', 'meta'}
    assert json.loads(json.dumps([vif])) == [vif]
    assert vif['devname'] == 'tap6f70b4c2-12' and len(vif['devname']) == model.NIC_NAME_LEN
    assert vif['vnic_type'] == 'normal' and vif['profile'] == {}
    assert vif['meta'] == {'tag': 'nic1'} and model.tag(vif) == 'nic1'
    net = vif['network']
    assert set(net) == {'id', 'bridge', 'label', 'subnets', 'meta'}
    assert net['meta'] == {'mtu': 1442, 'tenant_id': 'p1', 'physical_network': None,
                           'tunneled': True, 'injected': False}
    sub = net['subnets'][0]
    assert set(sub) == {'cidr', 'dns', 'gateway', 'ips', 'routes', 'version', 'meta'}
    assert sub['version'] == 4 and sub['meta'] == {'dhcp_server': '10.0.0.2'}
    assert sub['gateway'] == {'address': '10.0.0.1', 'type': 'gateway', 'version': 4,
                              'meta': {}}
    assert sub['dns'] == [{'address': '10.0.0.3', 'type': 'dns', 'version': 4, 'meta': {}}]
    assert sub['routes'][0]['gateway']['address'] == '10.0.0.1'
    assert sub['ips'] == [{'address': '10.0.0.5', 'type': 'fixed', 'version': 4, 'meta': {},
                           'floating_ips': [{'address': '172.24.4.9', 'type': 'floating',
                                             'version': 4, 'meta': {}}]}]


def test_ipv6_versions_and_an_empty_gateway():
    sub = model.subnet('fd00::/64')
    assert sub['version'] == 6
    assert sub['gateway'] == {'address': None, 'type': None, 'version': None, 'meta': {}}
    assert model.fixed_ip('fd00::5')['version'] == 6


def test_readers():
    a = _vif(PORT1, 'fa:16:3e:00:00:01', 'private', '10.0.0.5', ['172.24.4.9'])
    b = _vif(PORT2, 'fa:16:3e:00:00:02', 'other', '10.0.0.6', preserve_on_delete=True)
    info = [a, b]
    assert [ip['address'] for ip in model.all_fixed_ips(info)] == ['10.0.0.5', '10.0.0.6']
    assert [ip['address'] for ip in model.all_floating_ips(info)] == ['172.24.4.9']
    assert model.labels(info) == ['private', 'other']
    assert model.mtu(a) == 1442
    assert model.find_vif(info, PORT2) is b and model.find_vif(info, 'x') is None
    assert model.without_vif(info, PORT1) == [b]
    assert model.preserved_port_ids(info) == {PORT2}
    assert model.is_pluggable(a) and not model.is_pluggable(dict(a, type='binding_failed'))
    assert not model.is_hybrid_plug_enabled(a)
    assert model.fixed_ips({'id': 'x', 'network': None}) == []


def test_addresses_as_upstream_renders_them():
    a = _vif(PORT1, 'fa:16:3e:00:00:01', 'private', '10.0.0.5', ['172.24.4.9'])
    b = _vif(PORT2, 'fa:16:3e:00:00:02', 'private', '10.0.0.6')
    # Fixed IPs of every VIF on the label first, then the floating ones.
    assert model.addresses([a, b]) == {'private': [
        {'version': 4, 'addr': '10.0.0.5', 'OS-EXT-IPS:type': 'fixed',
         'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01'},
        {'version': 4, 'addr': '10.0.0.6', 'OS-EXT-IPS:type': 'fixed',
         'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:02'},
        {'version': 4, 'addr': '172.24.4.9', 'OS-EXT-IPS:type': 'floating',
         'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01'}]}
    # GET /servers/{id}/ips: version and addr only.
    assert model.addresses([a], extended=False) == {'private': [
        {'version': 4, 'addr': '10.0.0.5'}, {'version': 4, 'addr': '172.24.4.9'}]}
    assert model.network_addresses([a, b], 'private') == [
        {'version': 4, 'addr': '10.0.0.5'}, {'version': 4, 'addr': '10.0.0.6'},
        {'version': 4, 'addr': '172.24.4.9'}]
    assert model.network_addresses([a], 'nope') is None
    assert model.addresses([]) == {}


def test_labels_keep_vif_order():
    a = _vif(PORT1, 'fa:16:3e:00:00:01', 'zeta', '10.0.0.5')
    b = _vif(PORT2, 'fa:16:3e:00:00:02', 'alpha', '10.0.0.6')
    assert list(model.addresses([a, b])) == ['zeta', 'alpha']


def test_reads_an_upstream_cache_entry():
    # A VIF as upstream Nova stores it in instance_info_caches.network_info.
    upstream = json.loads('''[{"id": "%s", "address": "fa:16:3e:11:22:33",
      "network": {"id": "%s", "bridge": "br-int", "label": "shared",
        "subnets": [{"cidr": "192.168.233.0/24",
          "dns": [], "gateway": {"address": "192.168.233.1", "type": "gateway",
          "version": 4, "meta": {}},
          "ips": [{"address": "192.168.233.45", "type": "fixed", "version": 4,
                   "meta": {}, "floating_ips": []}],
          "routes": [], "version": 4, "meta": {"dhcp_server": "192.168.233.2"}}],
        "meta": {"injected": false, "tenant_id": "p", "mtu": 1442,
                 "physical_network": null, "tunneled": true}},
      "type": "ovs", "details": {"port_filter": true, "connectivity": "l2",
        "bridge_name": "br-int", "datapath_type": "system"},
      "devname": "tap6f70b4c2-12", "ovs_interfaceid": "%s", "qbh_params": null,
      "qbg_params": null, "active": true, "vnic_type": "normal", "profile": {},
      "preserve_on_delete": false, "delegate_create": true, "meta": {}}]'''
                          % (PORT1, NET, PORT1))
    assert model.addresses(upstream)['shared'][0]['addr'] == '192.168.233.45'
    assert model.tag(upstream[0]) is None
