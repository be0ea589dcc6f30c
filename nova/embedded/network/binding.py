"""Port binding: the vif_type and vif_details this endpoint hands out, and the tap naming rule.

Ports bind as ``vif_type = "tap"`` (Nova's constant for a tap device the
hypervisor driver creates and nobody else plugs into a switch) with::

    {"port_filter": true, "connectivity": "l2", "bridge_name": "<bridge>",
     "mac_address": "<host-side MAC of the tap>"}

The driver creates the tap ``tap<port id[:11]>`` (Nova's devname) with the
host-side MAC from ``mac_address`` (the port's MAC with 0xfe as first octet:
a bridge port must not carry its guest's MAC), and uses
``<interface type='ethernet'>`` with ``<target dev=... managed='no'/>``.
The data plane then enslaves that tap to ``bridge_name``, applies the
port's security groups (``port_filter``: Nova must not filter), and turns
the port ACTIVE, which sends ``network-vif-plugged``.
"""

import typing

VIF_TYPE = 'tap'
UNBOUND = 'unbound'
BINDING_FAILED = 'binding_failed'
# Only plain virtio/emulated NICs: no SR-IOV, vDPA or smart NICs here.
SUPPORTED_VNIC_TYPES = ('normal',)
# Linux interface names are at most 15 characters; Nova cuts tap names at 14.
DEVNAME_LENGTH = 14


def devname(port_id):
    """The tap device name Nova gives a port (``tap`` + the id, cut to 14)."""
    return ('tap' + port_id)[:DEVNAME_LENGTH]


def host_side_mac(mac):
    """The tap's own MAC: the port's with 0xfe first, as libvirt does for bridges."""
    return 'fe' + mac[2:]


class PortBinding(typing.NamedTuple):
    vif_type: str
    vif_details: dict


class PortBinder:
    """Binds ports to any host of the all-in-one (they all share its bridge).

    ``networks``: the ids of the networks a data plane serves; a port on any
    other network fails to bind (nothing would ever connect its tap). None:
    no data plane, every network binds.
    """

    def __init__(self, bridge_name):
        self._bridge = bridge_name
        self.networks = None

    def bind(self, port):
        host = port.get('binding:host_id')
        if not host:
            return PortBinding(UNBOUND, {})
        if port.get('binding:vnic_type', 'normal') not in SUPPORTED_VNIC_TYPES:
            return PortBinding(BINDING_FAILED, {})
        if self.networks is not None and port['network_id'] not in self.networks:
            return PortBinding(BINDING_FAILED, {})
        return PortBinding(VIF_TYPE, {'port_filter': True, 'connectivity': 'l2',
                                  'bridge_name': self._bridge,
                                  'mac_address': host_side_mac(port['mac_address'])})
