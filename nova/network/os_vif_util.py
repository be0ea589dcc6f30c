"""Network model VIF -> os-vif objects (the libvirt driver plugs these), as upstream converts them.

Pure conversion: nothing is plugged here. ``nova_to_osvif_vif`` answers None
for a VIF os-vif does not plug (SR-IOV ``hw_veb``/``hostdev_physical``,
``macvtap``, ``tap``: the driver attaches those itself), raises
PortBindingFailed for a binding that failed or never happened and
NovaException for a type it does not know. Imports os-vif, so only the
driver side imports this module.
"""

import os_vif.objects
from os_vif.objects import fields as osv_fields

from nova import exception
from nova.network import model

os_vif.objects.register_all()
_objects = os_vif.objects

# os-vif plugs nothing for these: the hypervisor driver attaches the device itself.
_LEGACY_TYPES = (model.VIF_TYPE_HW_VEB, model.VIF_TYPE_HOSTDEV, model.VIF_TYPE_MACVTAP,
                 model.VIF_TYPE_TAP)


def nova_to_osvif_instance(instance):
    """os-vif's InstanceInfo of an Instance object (or dict)."""
    def field(name):
        return instance.get(name) if isinstance(instance, dict) else getattr(instance, name,
                                                                             None)
    info = _objects.instance_info.InstanceInfo(uuid=field('uuid'), name=field('name'))
    if field('project_id'):
        info.project_id = field('project_id')
    return info


def _ip(entry):
    return entry.get('address') if entry else None


def _subnets(subnets):
    out = []
    for sub in subnets or ():
        obj = _objects.subnet.Subnet(
            cidr=sub['cidr'], dns=[_ip(d) for d in sub.get('dns') or () if _ip(d)],
            ips=_objects.fixed_ip.FixedIPList(objects=[
                _objects.fixed_ip.FixedIP(address=ip['address'],
                                          floating_ips=[_ip(f) for f in
                                                        ip.get('floating_ips') or ()])
                for ip in sub.get('ips') or ()]),
            routes=_objects.route.RouteList(objects=[
                _objects.route.Route(cidr=r['cidr'], **_route_gateway(r))
                for r in sub.get('routes') or ()]))
        if _ip(sub.get('gateway')):
            obj.gateway = _ip(sub['gateway'])
        if (sub.get('meta') or {}).get('dhcp_server'):
            obj.dhcp_server = sub['meta']['dhcp_server']
        out.append(obj)
    return _objects.subnet.SubnetList(objects=out)


def _route_gateway(route):
    values = {}
    if _ip(route.get('gateway')):
        values['gateway'] = _ip(route['gateway'])
    if route.get('interface'):
        values['interface'] = route['interface']
    return values


def nova_to_osvif_network(network):
    meta = network.get('meta') or {}
    obj = _objects.network.Network(id=network['id'], subnets=_subnets(network.get('subnets')))
    if network.get('bridge') is not None:
        obj.bridge = network['bridge']
    if network.get('label') is not None:
        obj.label = network['label']
    if meta.get('mtu') is not None:
        obj.mtu = meta['mtu']
    if meta.get('bridge_interface') is not None:
        obj.bridge_interface = meta['bridge_interface']
    if meta.get('should_create_bridge') is not None:
        obj.should_provide_bridge = meta['should_create_bridge']
    if meta.get('vlan') is not None:
        obj.vlan = meta['vlan']
    return obj


def _common(vif, plugin):
    details = vif.get('details') or {}
    return {'id': vif['id'], 'address': vif['address'],
            'network': nova_to_osvif_network(vif['network']),
            'has_traffic_filtering': bool(details.get(model.VIF_DETAILS_PORT_FILTER)),
            'preserve_on_delete': bool(vif.get('preserve_on_delete')),
            'active': bool(vif.get('active')), 'plugin': plugin}


def _ovs_profile(vif):
    details = vif.get('details') or {}
    profile = _objects.vif.VIFPortProfileOpenVSwitch(
        interface_id=vif.get('ovs_interfaceid') or vif['id'])
    if details.get(model.VIF_DETAILS_DATAPATH_TYPE):
        profile.datapath_type = details[model.VIF_DETAILS_DATAPATH_TYPE]
    return profile


def _vif_name(vif):
    return vif.get('devname') or ('nic' + vif['id'])[:model.NIC_NAME_LEN]


def _ovs(vif):
    details = vif.get('details') or {}
    profile = _ovs_profile(vif)
    if model.is_hybrid_plug_enabled(vif):
        # The iptables firewall's Linux bridge between the tap and br-int.
        return _objects.vif.VIFBridge(port_profile=profile, vif_name=_vif_name(vif),
                                      bridge_name=('qbr' + vif['id'])[:model.NIC_NAME_LEN],
                                      **_common(vif, 'ovs'))
    # Neutron's VIFs: os-vif adds the OVS port (delegate_create) and, when
    # the binding says so (ML2/OVN's ovs_create_tap), creates the tap first.
    profile.create_port = bool(vif.get('delegate_create'))
    profile.create_tap = bool(details.get(model.VIF_DETAILS_OVS_CREATE_TAP))
    obj = _objects.vif.VIFOpenVSwitch(port_profile=profile, vif_name=_vif_name(vif),
                                      **_common(vif, 'ovs'))
    if (vif.get('network') or {}).get('bridge') is not None:
        obj.bridge_name = vif['network']['bridge']
    return obj


def _vhostuser(vif):
    details = vif.get('details') or {}
    if not details.get(model.VIF_DETAILS_VHOSTUSER_OVS_PLUG):
        raise exception.NovaException(
            'Unsupported vhostuser VIF %s: only Open vSwitch plugging is available' % vif['id'])
    path = details.get(model.VIF_DETAILS_VHOSTUSER_SOCKET)
    if not path:
        raise exception.NovaException('vhostuser VIF %s names no socket' % vif['id'])
    mode = details.get(model.VIF_DETAILS_VHOSTUSER_MODE, osv_fields.VIFVHostUserMode.SERVER)
    obj = _objects.vif.VIFVHostUser(port_profile=_ovs_profile(vif),
                                    vif_name=('vhu' + vif['id'])[:model.NIC_NAME_LEN],
                                    path=path, mode=mode, **_common(vif, 'ovs'))
    if (vif.get('network') or {}).get('bridge') is not None:
        obj.bridge_name = vif['network']['bridge']
    return obj


def nova_to_osvif_vif(vif):
    """The os-vif object that plugs ``vif`` (a model.py VIF dict), or None."""
    vif_type = vif.get('type')
    if vif_type in (model.VIF_TYPE_OVS, model.VIF_TYPE_AGILIO_OVS):
        return _ovs(vif)
    if vif_type == model.VIF_TYPE_VHOSTUSER:
        return _vhostuser(vif)
    if vif_type in _LEGACY_TYPES:
        return None
    if not model.is_pluggable(vif):
        raise exception.PortBindingFailed(port_id=vif.get('id'))
    raise exception.NovaException('Unsupported VIF type %s for port %s'
                                  % (vif_type, vif.get('id')))
