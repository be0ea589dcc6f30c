"""Server diagnostics from libvirt statistics: upstream's legacy dict and the 2.48 shape."""

import calendar
import time

import libvirt

from nova import power_state
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import device_metadata, numa_record

_STATE_NAMES = {
    power_state.RUNNING: 'running', power_state.PAUSED: 'paused',
    power_state.SHUTDOWN: 'shutdown', power_state.CRASHED: 'crashed',
    power_state.SUSPENDED: 'suspended', power_state.NOSTATE: 'pending',
}
_NIC_KEYS = ('rx_octets', 'rx_packets', 'rx_errors', 'rx_drop',
             'tx_octets', 'tx_packets', 'tx_errors', 'tx_drop')
_LEGACY_NIC = ('_rx', '_rx_packets', '_rx_errors', '_rx_drop',
               '_tx', '_tx_packets', '_tx_errors', '_tx_drop')


def devices(domain_xml):
    """([disk target dev], [(interface target dev, mac)]) of a live domain."""
    domain = vconfig.GuestDomain.from_xml(domain_xml)
    disks = [disk.target_dev for disk in domain.get_disks() if disk.target_dev]
    nics = [(nic.target_dev, nic.mac_addr)
            for nic in domain.get_devices(vconfig.GuestInterface)]
    return disks, nics


def _try(func, *args):
    """A statistic libvirt cannot give (unplugged device, old driver) is None."""
    try:
        return func(*args)
    except libvirt.libvirtError:
        return None


def legacy(domain):
    """The pre-2.48 body: flat keys named after vCPUs, disks, memory and NICs."""
    output = {}
    vcpus = _try(domain.vcpus)
    for vcpu in (vcpus[0] if vcpus else ()):
        output['cpu%d_time' % vcpu[0]] = vcpu[2]
    disks, nics = devices(domain.XMLDesc(0))
    for dev in disks:
        stats = _try(domain.blockStats, dev)
        if stats:
            for suffix, value in zip(('_read_req', '_read', '_write_req', '_write',
                                      '_errors'), stats):
                output[dev + suffix] = value
    output['memory'] = domain.maxMemory()
    for key, value in (_try(domain.memoryStats) or {}).items():
        output['memory-' + key] = value
    for dev, _mac in nics:
        stats = _try(domain.interfaceStats, dev) if dev else None
        if stats:
            for suffix, value in zip(_LEGACY_NIC, stats):
                output[dev + suffix] = value
    return output


def standard(domain, state, hypervisor, config_drive, launched_at=None):
    """The 2.48 body; memory in MiB, uptime in seconds since launch."""
    disks, nics = devices(domain.XMLDesc(0))
    vcpus = _try(domain.vcpus)
    cpu_details = [{'id': v[0], 'time': v[2], 'utilisation': None}
                   for v in (vcpus[0] if vcpus else ())]
    disk_details = []
    for dev in disks:
        stats = _try(domain.blockStats, dev) or (None,) * 5
        disk_details.append({'read_requests': stats[0], 'read_bytes': stats[1],
                             'write_requests': stats[2], 'write_bytes': stats[3],
                             'errors_count': stats[4]})
    nic_details = []
    for dev, mac in nics:
        stats = (_try(domain.interfaceStats, dev) if dev else None) or (None,) * 8
        nic = dict(zip(_NIC_KEYS, stats), mac_address=mac, rx_rate=None, tx_rate=None)
        nic_details.append(nic)
    mem = _try(domain.memoryStats) or {}
    used = mem.get('rss') or mem.get('actual')
    uptime = None
    if launched_at is not None:
        uptime = max(0, int(time.time() - calendar.timegm(launched_at.utctimetuple())))
    return {
        'state': _STATE_NAMES.get(state, 'pending'), 'driver': 'libvirt',
        'hypervisor': hypervisor, 'hypervisor_os': 'linux', 'uptime': uptime,
        'config_drive': bool(config_drive), 'num_cpus': len(cpu_details),
        'num_nics': len(nic_details), 'num_disks': len(disk_details),
        'cpu_details': cpu_details, 'nic_details': nic_details,
        'disk_details': disk_details,
        'memory_details': {'maximum': domain.maxMemory() // 1024,
                           'used': used // 1024 if used is not None else None},
    }


class LibvirtDiagnostics:
    """get_diagnostics, get_instance_diagnostics, the NUMA record and the tagged devices."""

    def __init__(self, core):
        self._core = core

    def get_numa_topology(self, instance):
        return numa_record.of_guest(self._core.guest(instance), instance)

    def get_device_metadata(self, instance, bdms):
        return device_metadata.of_domain_xml(self._core.guest(instance).get_xml_desc(),
                                             instance.network_info, bdms,
                                             instance.root_device_name)

    def get_diagnostics(self, instance):
        return legacy(self._core.guest(instance).domain)

    def get_instance_diagnostics(self, instance):
        guest = self._core.guest(instance)
        return standard(guest.domain, guest.get_power_state(), self._core.virt_type,
                        instance.config_drive, instance.launched_at)
