"""Libvirt driver: this compute node, its start-up checks, resources and guests."""

import json
import logging
import os
import shutil
import subprocess

from nova import exception
from nova.virt import bus_table
from nova.virt.libvirt import firmware, guest_devices, vtpm

GiB = 1024 ** 3

LOG = logging.getLogger(__name__)


def cpu_info_json(caps, node_info):
    """The cpu_info text os-hypervisors reports (upstream's JSON shape)."""
    return json.dumps({
        'arch': caps.arch,
        'model': caps.cpu_model,
        'vendor': caps.cpu_vendor,
        'topology': {
            'cells': caps.numa_cells,
            'sockets': caps.sockets or node_info[5],
            'cores': caps.cores or node_info[6],
            'threads': caps.threads or node_info[7],
        },
        'features': sorted(caps.features),
    })


class LibvirtNode:
    """init_host/cleanup_host and what the node record reports.

    ``capabilities``: the driver's capabilities dict, which init_host
    completes with the host's default machine type and the disk buses and
    devices its QEMU offers (the API checks a rescue against them);
    ``definition`` (LibvirtDefinition) reads the host's NUMA facts,
    ``rescue`` (LibvirtRescue) its disk capabilities, ``lifecycle``
    (LibvirtLifecycle) stops listening at cleanup; ``nodename``: the node
    name to report, None for libvirt's host name.
    """

    def __init__(self, core, definition, rescue, lifecycle, capabilities, nodename=None):
        self._core = core
        self._definition = definition
        self._rescue = rescue
        self._lifecycle = lifecycle
        self._capabilities = capabilities
        self._nodename = nodename

    def init_host(self, host):
        if self._core.virt_type == 'lxc':
            raise exception.HypervisorError(
                reason='virt_type=lxc is not implemented by this driver yet')
        libvirt_host = self._core.host
        libvirt_host.get_connection()
        settings = self._core.settings
        machine = dict(settings.machine_types).get(settings.arch) or (
            None if libvirt_host.is_test else guest_devices.DEFAULT_MACHINES.get(settings.arch))
        if machine:
            self._capabilities['machine_type'] = machine
        self._report_rescue_disk_caps(machine)
        caps = libvirt_host.get_capabilities()
        self._report_hardware_caps(caps, settings)
        supported = {t for types in caps.guest_domain_types.values()
                     for t in types}
        if settings.domain_type not in supported:
            raise exception.HypervisorError(
                reason='%s cannot run %r guests (it offers: %s)'
                       % (libvirt_host.uri, settings.domain_type,
                          ', '.join(sorted(supported)) or 'none'))

    def _report_rescue_disk_caps(self, machine):
        """The disk buses and devices this host's QEMU offers for its default
        machine type, in the node record: the API checks a stable-device
        rescue against them without asking the host."""
        if self._core.virt_type not in bus_table.STABLE_RESCUE_VIRT_TYPES:
            return
        caps = self._rescue.host_disk_caps(machine)
        if caps:
            self._capabilities['rescue_disk_buses'] = ','.join(caps.get('bus') or ())
            self._capabilities['rescue_disk_devices'] = ','.join(
                caps.get('diskDevice') or ())

    def _report_hardware_caps(self, caps, settings):
        """What the API's static rules check a boot's hardware against: the
        machine types (aliases too) and guest architectures QEMU offers,
        the machine types UEFI (and secure-boot) firmware runs on, vTPM and
        SEV.  Comma-joined, as the node record keeps plain values."""
        if self._core.host.is_test:
            return
        names = (caps.machines or {}).get(settings.arch, {})
        report = self._capabilities
        report['machine_types'] = ','.join(sorted(names))
        report['guest_arches'] = ','.join(sorted(caps.guest_domain_types))
        for key, secure in (('uefi_machines', False), ('secure_boot_machines', True)):
            report[key] = ','.join(sorted(
                name for name, canonical in names.items()
                if any(f.runs(settings.arch, canonical) and
                       (not secure or firmware.secure_boot_possible((f,), settings.arch,
                                                                    canonical))
                       for f in settings.firmware)))
        report['vtpm'], report['vtpm_reason'] = self._vtpm_offered(settings)
        report['sev'] = False

    def _vtpm_offered(self, settings):
        """(offered, why not): swtpm on, installed, and able to reach the
        instance directories where the state is kept."""
        if not settings.swtpm_enabled:
            return False, '[libvirt]swtpm_enabled is off'
        if not shutil.which('swtpm'):
            return False, 'swtpm is not installed'
        if self._core.host.is_test:
            return True, None
        reason = vtpm.unreachable(settings.instances_path, settings.swtpm_user)
        if reason:
            LOG.warning('vTPM is not offered: %s', reason)
            return False, reason
        return True, None

    def cleanup_host(self, host):
        self._lifecycle.stop_lifecycle_events()
        self._core.host.close()

    def get_host_uptime(self):
        """What `uptime` prints, as upstream's libvirt driver answers os-hypervisors."""
        out = subprocess.run(['uptime'], capture_output=True, text=True, check=False)
        return out.stdout.strip()

    def get_available_resource(self, nodename=None):
        libvirt_host = self._core.host
        node = libvirt_host.get_node_info()
        caps = libvirt_host.get_capabilities()
        infos = []
        for guest in libvirt_host.list_guests(only_running=True):
            try:
                infos.append(guest.get_info())
            except exception.NotFound:
                # Gone since the listing (another host or user of the same
                # libvirtd deleted it): it uses nothing any more.
                continue
        stats = libvirt_host.get_memory_stats_kib()
        if stats:
            # Node memory stats read /proc/meminfo; virNodeGetInfo may
            # count NUMA node memory only, which under-reports on VMs
            # with hot-plugged memory, so take both numbers from one place.
            memory_mb = stats['total'] // 1024
            avail = stats['free'] + stats.get('buffers', 0) + \
                stats.get('cached', 0)
            memory_used = (stats['total'] - avail) // 1024
        else:
            memory_mb = node[1]
            memory_used = sum(info[2] for info in infos) // 1024
        fs = os.statvfs(self._core.instances_path)
        return {
            'vcpus': node[2],
            'memory_mb': memory_mb,
            'local_gb': fs.f_blocks * fs.f_frsize // GiB,
            'vcpus_used': sum(info[3] for info in infos),
            'memory_mb_used': memory_used,
            'local_gb_used': (fs.f_blocks - fs.f_bfree) * fs.f_frsize // GiB,
            'hypervisor_type': libvirt_host.get_hypervisor_type(),
            'hypervisor_version': libvirt_host.get_hypervisor_version(),
            'hypervisor_hostname': self._nodename or libvirt_host.get_hostname(),
            'cpu_info': cpu_info_json(caps, node),
            'hugepages': self._has_huge_pages(),
        }

    def _has_huge_pages(self):
        """Whether any huge page (> 4 KiB) is free for guests right now."""
        info = self._definition.host_info()
        if info is None:
            return False
        return any(size > 4 and count > 0 for cell in info.cells
                   for size, count in cell.pages)

    def list_instances(self):
        return self._core.host.list_instance_names()

    def list_instance_uuids(self):
        return self._core.host.list_instance_uuids()
