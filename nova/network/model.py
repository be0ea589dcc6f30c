"""The network info model: a server's VIFs as upstream's network info cache JSON, and readers.

``Instance.network_info`` is a list of VIF dicts, exactly the JSON upstream
Nova keeps in ``instance_info_caches.network_info``, so the server views, the
metadata service (network_data.json), the config drive and the libvirt driver
read one format, and it crosses RPC as plain JSON::

    {"id": PORT, "address": MAC, "type": "ovs", "details": {vif_details},
     "devname": "tapXXXXXXXX-XX", "ovs_interfaceid": PORT | None,
     "qbh_params": None, "qbg_params": None, "active": bool,
     "vnic_type": "normal", "profile": {binding:profile},
     "preserve_on_delete": bool, "delegate_create": True, "meta": {"tag"?: ...},
     "network": {"id": NET, "bridge": "br-int", "label": NAME,
                 "meta": {"injected": False, "tenant_id": PROJECT, "mtu": 1442,
                          "physical_network": None, "tunneled": True},
                 "subnets": [{"cidr": "10.0.0.0/24", "version": 4,
                              "gateway": IP, "dns": [IP], "routes": [ROUTE],
                              "ips": [FIXED_IP],
                              "meta": {"dhcp_server": "10.0.0.2",
                                       "ipv6_address_mode"?: None}}]}}

    IP       = {"address": "10.0.0.1", "type": "gateway"|"dns"|..., "version": 4, "meta": {}}
    FIXED_IP = IP with "type": "fixed" and "floating_ips": [IP with "type": "floating"]
    ROUTE    = {"cidr": "0.0.0.0/0", "gateway": IP, "interface": None, "meta": {}}

``preserve_on_delete`` marks a port the user brought (it is unbound and kept
when the server goes); the others were created for the server and are
deleted with it. ``meta.tag`` is the device tag asked for at create or
attach time (upstream keeps it in its virtual_interfaces table).

Builders (``vif()``, ``network()``, ...) make these dicts; readers work on any
dict of that shape, including one decoded from an older cache entry.
"""

import collections

import netaddr

# Interface names are at most IFNAMSIZ - 1 characters: "tap" + 11 of the port id.
NIC_NAME_LEN = 14

# binding:vif_type values (what Neutron's mechanism driver bound).
VIF_TYPE_OVS = 'ovs'
VIF_TYPE_VHOSTUSER = 'vhostuser'
VIF_TYPE_AGILIO_OVS = 'agilio_ovs'
VIF_TYPE_BRIDGE = 'bridge'
VIF_TYPE_TAP = 'tap'
VIF_TYPE_HW_VEB = 'hw_veb'
VIF_TYPE_HOSTDEV = 'hostdev_physical'
VIF_TYPE_MACVTAP = 'macvtap'
VIF_TYPE_DVS = 'dvs'
VIF_TYPE_UNBOUND = 'unbound'
VIF_TYPE_BINDING_FAILED = 'binding_failed'
# The binding failed or has not happened yet: nothing to plug.
UNPLUGGABLE_VIF_TYPES = (VIF_TYPE_UNBOUND, VIF_TYPE_BINDING_FAILED, None)

# binding:vif_details keys.
VIF_DETAILS_PORT_FILTER = 'port_filter'
VIF_DETAILS_OVS_HYBRID_PLUG = 'ovs_hybrid_plug'
VIF_DETAILS_BRIDGE_NAME = 'bridge_name'
VIF_DETAILS_DATAPATH_TYPE = 'datapath_type'
VIF_DETAILS_OVS_CREATE_TAP = 'ovs_create_tap'
VIF_DETAILS_CONNECTIVITY = 'connectivity'
VIF_DETAILS_VHOSTUSER_SOCKET = 'vhostuser_socket'
VIF_DETAILS_VHOSTUSER_MODE = 'vhostuser_mode'
VIF_DETAILS_VHOSTUSER_OVS_PLUG = 'vhostuser_ovs_plug'
VIF_DETAILS_VHOSTUSER_FP_PLUG = 'vhostuser_fp_plug'
VIF_DETAILS_VLAN = 'vlan'
# Neutron >= 2023 says whether it sends network-vif-plugged at bind time.
VIF_DETAILS_BOUND_DRIVERS = 'bound_drivers'

# binding:vnic_type values.
VNIC_TYPE_NORMAL = 'normal'
VNIC_TYPE_DIRECT = 'direct'
VNIC_TYPE_MACVTAP = 'macvtap'
VNIC_TYPE_DIRECT_PHYSICAL = 'direct-physical'
VNIC_TYPE_BAREMETAL = 'baremetal'
VNIC_TYPE_VIRTIO_FORWARDER = 'virtio-forwarder'
VNIC_TYPE_VDPA = 'vdpa'
VNIC_TYPE_ACCELERATOR_DIRECT = 'accelerator-direct'
VNIC_TYPE_REMOTE_MANAGED = 'remote-managed'

# Guest NIC models (hw_vif_model).
VIF_MODEL_VIRTIO = 'virtio'
VIF_MODEL_E1000 = 'e1000'
VIF_MODEL_E1000E = 'e1000e'
VIF_MODEL_RTL8139 = 'rtl8139'
VIF_MODEL_NE2K_PCI = 'ne2k_pci'
VIF_MODEL_PCNET = 'pcnet'


# -- builders -----------------------------------------------------------------

def _version(address, version=None):
    if version or not address:
        return version
    return netaddr.IPAddress(address.split('/')[0]).version


def ip(address=None, type=None, version=None, **meta):  # noqa: A002 - upstream's key
    """An IP dict: ``version`` is worked out from ``address`` when not given."""
    return {'address': address, 'type': type, 'version': _version(address, version),
            'meta': meta}


def fixed_ip(address, floating_ips=(), version=None, **meta):
    """A fixed IP dict; ``floating_ips`` are addresses or IP dicts."""
    entry = ip(address, 'fixed', version, **meta)
    entry['floating_ips'] = [f if isinstance(f, dict) else ip(f, 'floating')
                             for f in floating_ips]
    return entry


def route(cidr, gateway=None, interface=None, **meta):
    if gateway is not None and not isinstance(gateway, dict):
        gateway = ip(gateway, 'gateway')
    return {'cidr': cidr, 'gateway': gateway if gateway is not None else ip(),
            'interface': interface, 'meta': meta}


def subnet(cidr, dns=(), gateway=None, ips=(), routes=(), version=None, **meta):
    """A subnet dict; ``gateway`` and ``dns`` may be addresses or IP dicts."""
    if gateway is not None and not isinstance(gateway, dict):
        gateway = ip(gateway, 'gateway')
    return {'cidr': cidr,
            'dns': [d if isinstance(d, dict) else ip(d, 'dns') for d in dns],
            'gateway': gateway if gateway is not None else ip(),
            'ips': list(ips), 'routes': list(routes),
            'version': version or (netaddr.IPNetwork(cidr).version if cidr else None),
            'meta': meta}


def network(id=None, bridge=None, label=None, subnets=(), **meta):  # noqa: A002
    return {'id': id, 'bridge': bridge, 'label': label, 'subnets': list(subnets),
            'meta': meta}


def devname(port_id):
    """The host-side interface name of a port, as upstream names taps."""
    return ('tap' + port_id)[:NIC_NAME_LEN]


def vif(id, address=None, network=None, type=None, details=None,  # noqa: A002
        devname=None, ovs_interfaceid=None, qbh_params=None, qbg_params=None,
        active=False, vnic_type=VNIC_TYPE_NORMAL, profile=None,
        preserve_on_delete=False, delegate_create=False, **meta):
    return {'id': id, 'address': address, 'network': network, 'type': type,
            'details': details or {}, 'devname': devname,
            'ovs_interfaceid': ovs_interfaceid, 'qbh_params': qbh_params,
            'qbg_params': qbg_params, 'active': active, 'vnic_type': vnic_type,
            'profile': profile or {}, 'preserve_on_delete': preserve_on_delete,
            'delegate_create': delegate_create, 'meta': meta}


# -- readers ------------------------------------------------------------------

def subnets(vif_):
    return (vif_.get('network') or {}).get('subnets') or []


def fixed_ips(vif_):
    """The fixed IP dicts of one VIF, subnet by subnet."""
    return [entry for sub in subnets(vif_) for entry in sub.get('ips') or []]


def floating_ips(vif_):
    """The floating IP dicts of one VIF (those of each of its fixed IPs)."""
    return [f for entry in fixed_ips(vif_) for f in entry.get('floating_ips') or []]


def all_fixed_ips(network_info):
    return [entry for v in network_info for entry in fixed_ips(v)]


def all_floating_ips(network_info):
    return [entry for v in network_info for entry in floating_ips(v)]


def label(vif_):
    return (vif_.get('network') or {}).get('label')


def labels(network_info):
    """Network labels (names) in VIF order, each once."""
    return list(dict.fromkeys(label(v) for v in network_info))


def network_meta(vif_, key, default=None):
    return ((vif_.get('network') or {}).get('meta') or {}).get(key, default)


def mtu(vif_):
    """The network's MTU, or None when Neutron gave none."""
    return network_meta(vif_, 'mtu')


def tag(vif_):
    return (vif_.get('meta') or {}).get('tag')


def find_vif(network_info, port_id):
    """The VIF of ``port_id``, or None."""
    return next((v for v in network_info if v.get('id') == port_id), None)


def without_vif(network_info, port_id):
    """A copy of ``network_info`` without ``port_id``'s VIF (after a detach)."""
    return [v for v in network_info if v.get('id') != port_id]


def preserved_port_ids(network_info):
    """Ports the user brought: unbound and kept when the server goes."""
    return {v['id'] for v in network_info if v.get('preserve_on_delete')}


def is_hybrid_plug_enabled(vif_):
    return bool((vif_.get('details') or {}).get(VIF_DETAILS_OVS_HYBRID_PLUG))


def is_pluggable(vif_):
    """Neutron bound the port: there is something for the host to plug."""
    return vif_.get('type') not in UNPLUGGABLE_VIF_TYPES


# -- server views -------------------------------------------------------------

def _address(entry, mac, extended):
    out = {'version': entry.get('version'), 'addr': entry.get('address')}
    if extended:
        out['OS-EXT-IPS:type'] = entry.get('type')
        out['OS-EXT-IPS-MAC:mac_addr'] = mac
    return out


def addresses(network_info, extended=True):
    """A server view's ``addresses``: {label: [address, ...]}, as upstream renders it.

    Per network label (in VIF order): first every fixed IP of the label's
    VIFs, then their floating IPs. ``extended`` (server show/list detail at
    every 2.x microversion) adds ``OS-EXT-IPS:type`` (fixed|floating) and
    ``OS-EXT-IPS-MAC:mac_addr``; ``GET /servers/{id}/ips`` renders them
    without (``extended=False``).
    """
    fixed = collections.OrderedDict()
    floating = collections.OrderedDict()
    for v in network_info:
        name = label(v)
        fixed.setdefault(name, []).extend(
            _address(e, v.get('address'), extended) for e in fixed_ips(v))
        floating.setdefault(name, []).extend(
            _address(e, v.get('address'), extended) for e in floating_ips(v))
    return collections.OrderedDict(
        (name, fixed[name] + floating[name]) for name in fixed)


def network_addresses(network_info, name, extended=False):
    """``GET /servers/{id}/ips/{label}``'s list, or None when the server is on
    no network of that label (upstream's 404: "Instance is not a member of
    specified network")."""
    return addresses(network_info, extended).get(name)
