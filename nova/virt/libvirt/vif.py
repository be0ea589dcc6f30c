"""Libvirt driver: a guest's NICs, from its network info to interface config objects and plugs.

Decisions are pure functions (``nic_model``, ``nic_queues``,
``interface_config``) over a VIF of nova/network/model.py; ``LibvirtVifs``
does the host side: os-vif's ``ovs`` plugin for Open vSwitch ports (it
creates the tap when the binding says ``ovs_create_tap``), a tap of our own
for ``vif_type`` ``tap`` (the all-in-one's network: the tap gets the
binding's host-side MAC and the network's MTU; its data plane puts it on
the bridge). A test:/// hypervisor gets the XML but no host devices.
"""

import dataclasses
import logging
import os
import re
import subprocess
import threading

from nova import exception
from nova.network import model, vif_events
from nova.virt.libvirt import config as vconfig

LOG = logging.getLogger(__name__)
# The flavor's NIC bandwidth limits, as upstream's libvirt driver reads them.
_VIF_QUOTA = re.compile(r'^quota:vif_(inbound|outbound)_(average|peak|burst)$')

DEFAULT_MODEL = model.VIF_MODEL_VIRTIO
# The NIC models QEMU emulates, as libvirt names them (hw_vif_model's values).
QEMU_MODELS = ('virtio', 'e1000', 'e1000e', 'ne2k_pci', 'pcnet', 'rtl8139', 'vmxnet3',
               'spapr-vlan', 'lan9118')
# The tap driver's limit on queues (IFF_MULTI_QUEUE).
MAX_TAP_QUEUES = 256
_TRUE = ('1', 'true', 'yes', 'on', 'y', 't')


@dataclasses.dataclass(frozen=True)
class NicSettings:
    """[libvirt] options of every NIC."""

    rx_queue_size: int = None
    tx_queue_size: int = None
    max_queues: int = None

    @classmethod
    def from_conf(cls, conf):
        lib = conf.libvirt
        return cls(rx_queue_size=lib.rx_queue_size, tx_queue_size=lib.tx_queue_size,
                   max_queues=lib.max_queues)


def _flag(value):
    if isinstance(value, str):
        return value.strip().lower() in _TRUE
    return bool(value)


# ------------------------------------------------ decisions (pure functions)

def nic_model(image_props):
    """hw_vif_model, else virtio; a model QEMU does not emulate is refused."""
    name = (image_props or {}).get('hw_vif_model') or DEFAULT_MODEL
    # Upstream's enum spells the PPC model with an underscore; libvirt with a dash.
    name = {'spapr_vlan': 'spapr-vlan'}.get(name, name)
    if name not in QEMU_MODELS:
        raise exception.Invalid(reason='hw_vif_model %s is not a NIC model this '
                                       'hypervisor emulates (%s)' % (name,
                                                                      ', '.join(QEMU_MODELS)))
    return name


def nic_queues(name, image_props, extra_specs, vcpus, max_queues=None):
    """Queues of a multiqueue virtio NIC (one per vCPU, capped), or None for one."""
    asked = (extra_specs or {}).get('hw:vif_multiqueue_enabled')
    if asked is None:
        asked = (image_props or {}).get('hw_vif_multiqueue_enabled')
    if name != model.VIF_MODEL_VIRTIO or not _flag(asked):
        return None
    queues = min(vcpus or 1, max_queues or MAX_TAP_QUEUES, MAX_TAP_QUEUES)
    return queues if queues > 1 else None


def nic_bandwidth(extra_specs):
    """The flavor's ``quota:vif_{inbound,outbound}_{average,peak,burst}`` as
    config.GuestInterface.bandwidth (KiB/s, burst KiB); None without any."""
    limits = {}
    for key, value in (extra_specs or {}).items():
        match = _VIF_QUOTA.match(key)
        if match and str(value).strip():
            limits.setdefault(match.group(1), {})[match.group(2)] = int(value)
    # As upstream: a direction needs its average, and one average must be set.
    limits = {d: v for d, v in limits.items() if 'average' in v}
    if not any(v['average'] for v in limits.values()):
        return None
    return limits


def is_tap(vif):
    """The guest's NIC is a tap made before the guest starts (by os-vif or by us)."""
    details = vif.get('details') or {}
    if vif.get('type') == model.VIF_TYPE_TAP:
        return True
    return (vif.get('type') in (model.VIF_TYPE_OVS, model.VIF_TYPE_AGILIO_OVS)
            and not model.is_hybrid_plug_enabled(vif)
            and bool(details.get(model.VIF_DETAILS_OVS_CREATE_TAP)))


def needs_checksum_off(vif):
    """Open vSwitch's userspace datapath (netdev) drops TCP with the partial
    checksums a virtio guest leaves to a kernel tap: the guest must fill
    them in itself."""
    details = vif.get('details') or {}
    return is_tap(vif) and details.get(model.VIF_DETAILS_DATAPATH_TYPE) == 'netdev'


def interface_config(vif, name=DEFAULT_MODEL, queues=None, settings=NicSettings()):
    """The config.GuestInterface of one VIF (a model.py VIF dict)."""
    vif_type = vif.get('type')
    if not model.is_pluggable(vif):
        raise exception.PortBindingFailed(port_id=vif.get('id'))
    dev = vif.get('devname') or model.devname(vif['id'])
    nic = vconfig.GuestInterface(mac_addr=vif.get('address'), model=name,
                                 mtu=model.mtu(vif))
    if is_tap(vif):
        nic.type = 'ethernet'
        nic.target_dev = dev
        nic.target_managed = False
    elif vif_type == model.VIF_TYPE_VHOSTUSER:
        details = vif.get('details') or {}
        path = details.get(model.VIF_DETAILS_VHOSTUSER_SOCKET)
        if not path:
            raise exception.NovaException('vhostuser port %s names no socket' % vif['id'])
        nic.type = 'vhostuser'
        nic.vhostuser_path = path
        # The binding's mode is QEMU's side of the socket, as upstream reads it.
        nic.vhostuser_mode = details.get(model.VIF_DETAILS_VHOSTUSER_MODE) or 'server'

    elif vif_type in (model.VIF_TYPE_OVS, model.VIF_TYPE_AGILIO_OVS):
        nic.type = 'bridge'
        nic.target_dev = dev
        if model.is_hybrid_plug_enabled(vif):
            # os-vif's Linux bridge between the tap and br-int (iptables firewall).
            nic.source_bridge = ('qbr' + vif['id'])[:model.NIC_NAME_LEN]
        else:
            nic.source_bridge = (vif.get('network') or {}).get('bridge') or 'br-int'
            nic.virtualport_type = 'openvswitch'
            nic.virtualport_interfaceid = vif.get('ovs_interfaceid') or vif['id']
    else:
        raise exception.NovaException('Unsupported VIF type %s for port %s on this '
                                       'hypervisor' % (vif_type, vif.get('id')))
    if name == model.VIF_MODEL_VIRTIO:
        if needs_checksum_off(vif):
            nic.driver_name = 'qemu'
            nic.host_csum = False
        nic.driver_queues = queues
        nic.rx_queue_size = settings.rx_queue_size
        nic.tx_queue_size = settings.tx_queue_size
    return nic


def find_interface(domain, mac):
    """The config.GuestInterface of ``domain`` (a config.GuestDomain) with ``mac``, or None."""
    mac = (mac or '').lower()
    return next((nic for nic in domain.get_devices(vconfig.GuestInterface)
                 if (nic.mac_addr or '').lower() == mac), None)


# ------------------------------------------------------------ host side

def _ip(namespace, *args, check=True):
    argv = ['ip'] + (['-n', namespace] if namespace else []) + list(args)
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)
    if check and proc.returncode != 0:
        raise exception.VirtualInterfacePlugException(
            '%s failed: %s' % (' '.join(argv), proc.stderr.strip()))
    return proc


def create_tap(name, mac, mtu=None, namespace=None, multiqueue=False):
    """The tap ``name`` (made if missing) with ``mac``, ``mtu`` and up."""
    shown = _ip(namespace, 'link', 'show', 'dev', name, check=False)
    if shown.returncode != 0:
        _ip(namespace, 'tuntap', 'add', 'dev', name, 'mode', 'tap',
            *(['multi_queue'] if multiqueue else []))
    args = ['link', 'set', 'dev', name]
    if mac:
        args += ['address', mac]
    if mtu:
        args += ['mtu', str(mtu)]
    # No IPv6 link-local address of the host's on the guest's tap: it carries
    # the guest's traffic only.
    _ip(namespace, *(args + ['addrgenmode', 'none', 'up']))


def delete_tap(name, namespace=None):
    """Remove the tap ``name``; one already gone is fine."""
    proc = _ip(namespace, 'link', 'delete', 'dev', name, check=False)
    if proc.returncode != 0 and 'Cannot find device' not in proc.stderr and \
            'does not exist' not in proc.stderr:
        LOG.warning('Could not delete tap %s: %s', name, proc.stderr.strip())


class OsVif:
    """os-vif, loaded on first use (its plugins read their options from
    oslo.config's global configuration, as in upstream Nova)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._ready = False

    def _load(self):
        with self._lock:
            if not self._ready:
                import os_vif
                os_vif.initialize()
                self._ready = True
        import os_vif

        from nova.network import os_vif_util
        return os_vif, os_vif_util

    def plug(self, instance, vif):
        os_vif, util = self._load()
        obj = util.nova_to_osvif_vif(vif)
        if obj is None:
            return False
        try:
            os_vif.plug(obj, util.nova_to_osvif_instance(instance))
        except Exception as exc:
            raise exception.VirtualInterfacePlugException(
                'os-vif could not plug port %s: %s' % (vif['id'], exc)) from exc
        return True

    def ovsdb_connection(self):
        """The OVSDB the ovs plugin plugs into ('' without os-vif)."""
        try:
            self._load()
            from oslo_config import cfg
            return cfg.CONF.os_vif_ovs.ovsdb_connection or ''
        except Exception:  # noqa: BLE001 - no os-vif or no ovs plugin here.
            return ''

    def unplug(self, instance, vif):
        os_vif, util = self._load()
        obj = util.nova_to_osvif_vif(vif)
        if obj is None:
            return False
        os_vif.unplug(obj, util.nova_to_osvif_instance(instance))
        return True


class LibvirtVifs:
    """A guest's NICs: their config objects, plugged before and unplugged after the guest.

    ``tap_namespace``: where taps of ``vif_type`` ``tap`` are made (the
    libvirtd's network namespace); ``osvif``: the os-vif handle (OsVif).
    """

    def __init__(self, core, tap_namespace=None, osvif=None):
        self._core = core
        self._tap_namespace = tap_namespace
        self._osvif = osvif or OsVif()
        self._settings = NicSettings.from_conf(core.conf)

    @staticmethod
    def network_info(instance, network_info=None):
        """``network_info``, else the instance's cache."""
        if network_info is not None:
            return network_info
        return list(getattr(instance, 'network_info', None) or [])

    # -- XML -------------------------------------------------------------------------

    def interface(self, instance, image_props, vif):
        flavor = instance.flavor
        name = nic_model(image_props)
        extra_specs = getattr(flavor, 'extra_specs', None)
        queues = nic_queues(name, image_props, extra_specs,
                            getattr(flavor, 'vcpus', 1), self._settings.max_queues)
        nic = interface_config(vif, name, queues, self._settings)
        nic.bandwidth = nic_bandwidth(extra_specs)
        return nic

    def interfaces(self, instance, image_props, network_info=None):
        return [self.interface(instance, image_props, vif)
                for vif in self.network_info(instance, network_info)]

    # -- events ----------------------------------------------------------------------

    def plug_wait(self, network_info, power_on=True):
        """What a start waits for (nova.network.vif_events.PlugWait)."""
        if not network_info:
            return vif_events.PlugWait(events=(), timeout=0, fatal=False)
        return vif_events.PlugWait.for_start(self._core.conf, network_info,
                                             self._core.virt_type, power_on=power_on)

    # -- host side -------------------------------------------------------------------

    def _queues(self, instance, vif):
        try:
            return self.interface(instance, _image_props(instance), vif).driver_queues
        except exception.NovaException:
            return None

    def plug_vif(self, instance, vif):
        if self._core.host.is_test:
            return
        if vif.get('type') == model.VIF_TYPE_TAP:
            details = vif.get('details') or {}
            create_tap(vif.get('devname') or model.devname(vif['id']),
                       details.get('mac_address') or vif.get('address'), model.mtu(vif),
                       self._tap_namespace, multiqueue=bool(self._queues(instance, vif)))
            return
        self._osvif.plug(instance, vif)

    def unplug_vif(self, instance, vif):
        if self._core.host.is_test:
            return
        if vif.get('type') == model.VIF_TYPE_TAP:
            delete_tap(vif.get('devname') or model.devname(vif['id']), self._tap_namespace)
            return
        self._osvif.unplug(instance, vif)

    def plug_site(self):
        """Where this host's VIFs live (machine, network namespace, switch): two
        hosts with one site share their taps, so a guest that moved between
        them keeps the tap the source would otherwise unplug."""
        if self._core.host.is_test:
            return ''
        try:
            with open('/proc/sys/kernel/random/boot_id') as handle:
                boot = handle.read().strip()
        except OSError:
            boot = ''
        netns = self._tap_namespace or str(os.stat('/proc/self/ns/net').st_ino)
        return '|'.join((boot, netns, self._osvif.ovsdb_connection()))

    def plug(self, instance, network_info):
        """Plug every VIF; on a failure those plugged here are unplugged again."""
        done = []
        try:
            for vif in network_info:
                self.plug_vif(instance, vif)
                done.append(vif)
        except Exception:
            self.unplug(instance, done)
            raise

    def unplug(self, instance, network_info):
        """Unplug every VIF, best effort: a failure is logged, the rest still go."""
        for vif in network_info:
            try:
                self.unplug_vif(instance, vif)
            except Exception:  # noqa: BLE001 - the guest is gone; nothing to roll back.
                LOG.warning('Could not unplug port %s of %s', vif.get('id'), instance.uuid,
                            exc_info=True)


def _image_props(instance):
    from nova.virt.libvirt.guest_config import instance_image_props
    return instance_image_props(instance)
