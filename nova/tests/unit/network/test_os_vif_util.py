"""Network model VIFs as os-vif objects: ML2/OVN's ovs binding, hybrid plug, vhost-user, others."""

import pytest

from nova import exception
from nova.network import model, os_vif_util

PORT = '6f70b4c2-12a3-4b6e-9d1f-0e6a7c2b9d11'
NET = '9d1c2b3a-4e5f-4a6b-8c7d-0e1f2a3b4c5d'
SERVER = '0b9f8e7d-6c5b-4a39-8281-7f6e5d4c3b2a'
OVN_DETAILS = {'port_filter': True, 'connectivity': 'l2', 'ovs_create_tap': True,
               'bridge_name': 'br-int', 'datapath_type': 'netdev',
               'bound_drivers': {'0': 'ovn'}}


def _vif(type='ovs', details=None, **kw):  # noqa: A002
    sub = model.subnet('10.0.0.0/24', dns=['10.0.0.3'], gateway='10.0.0.1',
                       ips=[model.fixed_ip('10.0.0.5', floating_ips=['172.24.4.9'])],
                       routes=[model.route('169.254.169.254/32', '10.0.0.2')],
                       dhcp_server='10.0.0.2')
    net = model.network(id=NET, bridge='br-int', label='private', subnets=[sub], mtu=1442)
    values = dict(address='fa:16:3e:00:00:01', network=net, type=type,
                  details=OVN_DETAILS if details is None else details,
                  devname=model.devname(PORT), ovs_interfaceid=PORT, active=False,
                  delegate_create=True)
    values.update(kw)
    return model.vif(PORT, **values)


def test_ml2_ovn_binding_becomes_an_ovs_vif_that_creates_its_tap():
    obj = os_vif_util.nova_to_osvif_vif(_vif(preserve_on_delete=True))
    assert type(obj).__name__ == 'VIFOpenVSwitch' and obj.plugin == 'ovs'
    assert (obj.id, obj.address, obj.vif_name, obj.bridge_name) == (
        PORT, 'fa:16:3e:00:00:01', 'tap6f70b4c2-12', 'br-int')
    assert obj.has_traffic_filtering and obj.preserve_on_delete and not obj.active
    profile = obj.port_profile
    assert (profile.interface_id, profile.datapath_type) == (PORT, 'netdev')
    assert profile.create_port and profile.create_tap
    net = obj.network
    assert (net.id, net.bridge, net.label, net.mtu) == (NET, 'br-int', 'private', 1442)
    sub = net.subnets.objects[0]
    assert (str(sub.cidr), [str(d) for d in sub.dns], str(sub.gateway),
            str(sub.dhcp_server)) == ('10.0.0.0/24', ['10.0.0.3'], '10.0.0.1', '10.0.0.2')
    ip = sub.ips.objects[0]
    assert str(ip.address) == '10.0.0.5' and [str(f) for f in ip.floating_ips] == ['172.24.4.9']
    assert str(sub.routes.objects[0].cidr) == '169.254.169.254/32'


def test_without_create_tap_libvirt_makes_the_tap():
    details = dict(OVN_DETAILS, ovs_create_tap=False)
    assert not os_vif_util.nova_to_osvif_vif(_vif(details=details)).port_profile.create_tap


def test_hybrid_plug_is_a_bridge_vif():
    obj = os_vif_util.nova_to_osvif_vif(_vif(details={'ovs_hybrid_plug': True,
                                                      'port_filter': True}))
    assert type(obj).__name__ == 'VIFBridge'
    assert obj.bridge_name == 'qbr6f70b4c2-12' and obj.vif_name == 'tap6f70b4c2-12'


def test_vhostuser_with_ovs_plug():
    obj = os_vif_util.nova_to_osvif_vif(_vif(type='vhostuser', details={
        'vhostuser_ovs_plug': True, 'vhostuser_socket': '/run/vhu6f70b4c2-12',
        'vhostuser_mode': 'server', 'datapath_type': 'netdev'}))
    assert type(obj).__name__ == 'VIFVHostUser'
    assert (obj.path, obj.mode, obj.vif_name) == ('/run/vhu6f70b4c2-12', 'server',
                                                   'vhu6f70b4c2-12')


def test_types_os_vif_does_not_plug_and_failed_bindings():
    assert os_vif_util.nova_to_osvif_vif(_vif(type='hw_veb')) is None
    with pytest.raises(exception.PortBindingFailed):
        os_vif_util.nova_to_osvif_vif(_vif(type='binding_failed'))
    with pytest.raises(exception.PortBindingFailed):
        os_vif_util.nova_to_osvif_vif(_vif(type=None))
    with pytest.raises(exception.NovaException):
        os_vif_util.nova_to_osvif_vif(_vif(type='dvs'))


def test_instance_info():
    info = os_vif_util.nova_to_osvif_instance({'uuid': SERVER, 'name': 'instance-00000001',
                                               'project_id': 'p1'})
    assert (info.uuid, info.name, info.project_id) == (SERVER, 'instance-00000001', 'p1')
