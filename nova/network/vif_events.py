"""The network-vif-plugged events a compute host waits for when it starts a guest, and how long."""

import dataclasses

from nova.network import model

EVENT_PLUGGED = 'network-vif-plugged'
EVENT_UNPLUGGED = 'network-vif-unplugged'
EVENT_DELETED = 'network-vif-deleted'
EVENT_CHANGED = 'network-changed'
# Only these hypervisors report plugging through Neutron events.
_WAITING_VIRT_TYPES = ('kvm', 'qemu')


@dataclasses.dataclass(frozen=True)
class PlugWait:
    """``events``: (name, port id) pairs to wait for; empty: start at once.
    ``timeout`` in seconds; ``fatal``: a timeout or a failed event fails the start."""

    events: tuple
    timeout: int
    fatal: bool

    @classmethod
    def for_start(cls, conf, network_info, virt_type, power_on=True):
        """As upstream's libvirt driver decides: kvm/qemu guests being powered
        on wait for each VIF Neutron has not reported ACTIVE yet
        (remote-managed vNICs excepted) unless [DEFAULT] vif_plugging_timeout
        is 0."""
        timeout = conf.vif_plugging_timeout
        events = ()
        if virt_type in _WAITING_VIRT_TYPES and timeout and power_on:
            events = tuple((EVENT_PLUGGED, vif['id']) for vif in network_info
                           if not vif.get('active', True)
                           and vif.get('vnic_type') != model.VNIC_TYPE_REMOTE_MANAGED)
        return cls(events=events, timeout=timeout, fatal=conf.vif_plugging_is_fatal)

