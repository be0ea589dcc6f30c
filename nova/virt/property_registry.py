"""One row per image property and extra spec: what the libvirt driver does with it, or why not."""

# The validators read this table (a REFUSED key set on a flavor or image
# fails the boot with its reason), the docs table is generated from it
# (tools/gen-property-table.py writes doc/source/admin/properties.rst),
# and a unit test fails when an ImageMetaProps field or a validated extra
# spec has no row, so nothing accepted can be silently ignored.

import dataclasses
import re

from nova import exception

HONOURED = 'honoured'        # the driver turns it into domain XML or host behaviour
HOST = 'host choice'         # picks or refuses hosts (scheduler filter, static rules)
API = 'compute API'          # shapes what the compute API or manager does, not the XML
NETWORKING = 'networking'    # the VIF code's (nova/virt/libvirt/vif.py)
REFUSED = 'refused'          # set on a flavor or image: the boot fails with the reason
INFO = 'informational'       # describes the image; upstream's libvirt driver reads it as little

STATUSES = (HONOURED, HOST, API, NETWORKING, REFUSED, INFO)

T_GUEST = 'nova/tests/functional/libvirt/test_guest_breadth.py (real guest)'
T_XML = 'nova/tests/unit/virt/libvirt/test_guest_devices.py (literal XML)'
T_REQ = 'nova/tests/unit/virt/test_hw_constraints.py'
T_TOPO = 'nova/tests/unit/virt/test_cpu_topology.py'
T_NUMA = 'nova/tests/unit/virt/test_hardware_numa.py, test_guestfeatures.py'
T_BUS = 'nova/tests/unit/virt/test_bus_table.py, test_blockinfo.py'
T_RESCUE = 'nova/tests/unit/virt/test_rescue_rules.py, functional/test_rescue_e2e.py'
T_HOST = 'nova/tests/unit/compute/test_host_rules.py'
T_REG = 'nova/tests/unit/virt/test_property_registry.py'


@dataclasses.dataclass(frozen=True)
class Row:
    name: str                # property name, extra spec key or key pattern (regex)
    kind: str                # 'image' | 'flavor'
    status: str
    does: str                # what it does here, or why it is refused
    xml: str = ''            # the domain XML it produces
    tests: str = ''


def _img(name, status, does, xml='', tests=''):
    return Row(name, 'image', status, does, xml, tests)


def _flv(name, status, does, xml='', tests=''):
    return Row(name, 'flavor', status, does, xml, tests)


_TOPO_XML = "<cpu><topology sockets='S' cores='C' threads='T'/></cpu>"
_VMWARE = 'a VMware driver setting; the libvirt driver has no such control'
_XEN = 'a XenAPI driver setting; the libvirt driver has no such control'

ROWS = (
    # ---------------------------------------------------------------- CPU
    _img('hw_cpu_sockets', HONOURED, 'preferred socket count (image replaces the flavor\'s '
         'preference as a whole; at most the vCPUs and the maximum)', _TOPO_XML, T_TOPO),
    _img('hw_cpu_cores', HONOURED, 'preferred cores per socket', _TOPO_XML, T_TOPO),
    _img('hw_cpu_threads', HONOURED, 'preferred threads per core', _TOPO_XML, T_TOPO),
    _img('hw_cpu_max_sockets', HONOURED, 'socket limit; may only lower hw:cpu_max_sockets',
         _TOPO_XML, T_TOPO),
    _img('hw_cpu_max_cores', HONOURED, 'core limit; may only lower hw:cpu_max_cores',
         _TOPO_XML, T_TOPO),
    _img('hw_cpu_max_threads', HONOURED, 'thread limit; may only lower hw:cpu_max_threads',
         _TOPO_XML, T_TOPO),
    _flv('hw:cpu_sockets', HONOURED, 'preferred socket count', _TOPO_XML, T_TOPO),
    _flv('hw:cpu_cores', HONOURED, 'preferred cores per socket', _TOPO_XML, T_TOPO),
    _flv('hw:cpu_threads', HONOURED, 'preferred threads per core', _TOPO_XML, T_TOPO),
    _flv('hw:cpu_max_sockets', HONOURED, 'socket limit', _TOPO_XML, T_TOPO),
    _flv('hw:cpu_max_cores', HONOURED, 'core limit', _TOPO_XML, T_TOPO),
    _flv('hw:cpu_max_threads', HONOURED, 'thread limit', _TOPO_XML, T_TOPO),
    _img('hw_cpu_policy', HONOURED, 'dedicated: each vCPU pinned to a host CPU (may not '
         'contradict hw:cpu_policy); mixed is refused', '<cputune><vcpupin/><emulatorpin/>',
         T_NUMA),
    _flv('hw:cpu_policy', HONOURED, 'as hw_cpu_policy; the flavor\'s word wins', '<cputune>',
         T_NUMA),
    _img('hw_cpu_thread_policy', HONOURED, 'prefer/isolate/require thread siblings for '
         'pinned vCPUs', '<cputune><vcpupin/>', T_NUMA),
    _flv('hw:cpu_thread_policy', HONOURED, 'as hw_cpu_thread_policy', '<cputune>', T_NUMA),
    _flv('hw:emulator_threads_policy', HONOURED, "share: QEMU's threads run on the guest's "
         'pinned CPUs (needs dedicated CPUs); isolate is refused: no CPU is set aside for '
         'emulator threads', '<cputune><emulatorpin/>', T_REQ),
    _flv('hw:cpu_realtime', HONOURED, 'realtime vCPUs (needs dedicated CPUs and a mask '
         'leaving one vCPU)', "<cputune><vcpusched scheduler='fifo' priority='1'/>"
         '</cputune><memoryBacking><nosharepages/><locked/>', T_REQ + ', ' + T_XML),
    _flv('hw:cpu_realtime_mask', HONOURED, "which vCPUs are realtime, e.g. '^0'",
         '<vcpusched vcpus=...>', T_REQ),
    _img('hw_cpu_realtime_mask', HONOURED, "as hw:cpu_realtime_mask, the image's wins; "
         'needs the flavor\'s hw:cpu_realtime', '<vcpusched vcpus=...>', T_REQ),
    _flv('hw:cpu_dedicated_mask', REFUSED, 'the mixed CPU policy it serves is not '
         'implemented'),
    _flv('hw:cpu_model', HONOURED, 'one of [libvirt]cpu_models for this guest (cpu_mode '
         'custom)', "<cpu mode='custom'><model>M</model>", T_XML),
    _img('hw_pmu', HONOURED, 'performance monitoring unit on/off (unique with hw:pmu)',
         "<features><pmu state='on|off'/>", T_XML),
    _flv('hw:pmu', HONOURED, 'as hw_pmu', "<features><pmu state='on|off'/>", T_XML),
    _img('hw_maxphysaddr_mode', HONOURED, 'physical address bits: passthrough (host-'
         'passthrough CPUs) or emulate', "<cpu><maxphysaddr mode='M' bits='B'/>",
         T_XML + ', ' + T_GUEST),
    _img('hw_maxphysaddr_bits', HONOURED, 'the bits for hw_maxphysaddr_mode',
         "<maxphysaddr bits='B'/>", T_XML),
    _flv('hw:maxphysaddr_mode', HONOURED, 'as hw_maxphysaddr_mode', '<maxphysaddr/>', T_XML),
    _flv('hw:maxphysaddr_bits', HONOURED, 'as hw_maxphysaddr_bits', '<maxphysaddr/>', T_XML),
    _flv('quota:cpu_shares', HONOURED, 'relative CPU weight', '<cputune><shares>N</shares>',
         T_XML),
    _flv('quota:cpu_period', HONOURED, 'CFS period (us)', '<cputune><period>N</period>',
         T_XML),
    _flv('quota:cpu_quota', HONOURED, 'CFS quota (us, -1 unlimited)',
         '<cputune><quota>N</quota>', T_XML),
    _flv('quota:cpu_limit', REFUSED, _VMWARE),
    _flv('quota:cpu_reservation', REFUSED, _VMWARE),
    _flv('quota:cpu_shares_level', REFUSED, _VMWARE),
    _flv('quota:cpu_shares_share', REFUSED, _VMWARE),
    # ------------------------------------------------------- NUMA, memory
    _img('hw_numa_nodes', HONOURED, 'guest NUMA node count', '<cpu><numa><cell/>', T_NUMA),
    _img('hw_numa_cpus', HONOURED, 'vCPUs of each node (hw_numa_cpus.N)', '<cell cpus=>',
         T_NUMA),
    _img('hw_numa_mem', HONOURED, 'MiB of each node (hw_numa_mem.N)', '<cell memory=>',
         T_NUMA),
    _flv('hw:numa_nodes', HONOURED, 'as hw_numa_nodes', '<cpu><numa>', T_NUMA),
    _flv(r'hw:numa_cpus\.\d+', HONOURED, 'as hw_numa_cpus.N', '<cell cpus=>', T_NUMA),
    _flv(r'hw:numa_mem\.\d+', HONOURED, 'as hw_numa_mem.N', '<cell memory=>', T_NUMA),
    _img('hw_mem_page_size', HONOURED, 'huge pages, within what the flavor allows',
         '<memoryBacking><hugepages>', T_NUMA),
    _flv('hw:mem_page_size', HONOURED, 'page size the guest may use', '<memoryBacking>',
         T_NUMA),
    _img('hw_locked_memory', HONOURED, 'lock guest memory (needs a page size; unique with '
         'hw:locked_memory)', '<memoryBacking><locked/>', T_XML),
    _flv('hw:locked_memory', HONOURED, 'as hw_locked_memory', '<memoryBacking><locked/>',
         T_XML),
    _img('hw_mem_encryption', HOST, 'AMD SEV: refused before the boot unless a compute host '
         'reports SEV (none here)', '', T_HOST),
    _img('hw_mem_encryption_model', HOST, 'the SEV flavour; as hw_mem_encryption', '',
         T_HOST),
    _flv('hw:mem_encryption', HOST, 'as hw_mem_encryption', '', T_HOST),
    _flv('hw:pmem', REFUSED, 'persistent memory namespaces: no host here has any'),
    # ----------------------------------------------------- firmware, boot
    _img('hw_firmware_type', HONOURED, 'uefi: OVMF from the firmware descriptor matching '
         'the machine type and secure-boot choice', "<os><loader type='pflash' secure=>"
         '<nvram template=>', T_XML + ', ' + T_GUEST),
    _img('hw_firmware_stateless', HONOURED, 'UEFI without an NVRAM store',
         "<loader stateless='yes'>", T_XML),
    _img('os_secure_boot', HONOURED, 'required: a secure-boot loader with enrolled keys '
         'and SMM; disabled (and unset): a loader without; optional: secure when the host '
         'has one', "<loader secure='yes|no'>, <features><smm/>", T_XML + ', ' + T_GUEST),
    _flv('os:secure_boot', HONOURED, 'as os_secure_boot (unique)', "<loader secure=>",
         T_XML),
    _img('hw_boot_menu', HONOURED, 'firmware boot menu (image wins over hw:boot_menu)',
         "<os><bootmenu enable='yes'/>", T_NUMA),
    _flv('hw:boot_menu', HONOURED, 'as hw_boot_menu', '<bootmenu/>', T_NUMA),
    _img('hw_machine_type', HONOURED, 'machine type or alias (q35, pc); a type no host\'s '
         'QEMU knows is refused', "<os><type machine='M'>", T_HOST + ', ' + T_XML),
    _img('hw_emulation_architecture', HONOURED, 'guest architecture emulated by QEMU (TCG); '
         'refused unless a host has that QEMU', "<domain type='qemu'><os><type arch='A'>",
         T_HOST + ', ' + T_XML),
    _img('hw_architecture', HOST, 'hosts of that architecture only (scheduler filter)', '',
         'nova/tests/unit/conductor'),
    _img('hw_vm_mode', HONOURED, 'hvm only; xen, uml and exe are refused', '<os><type>hvm',
         T_REQ),
    _img('os_command_line', HONOURED, 'kernel command line (kernel+ramdisk images)',
         '<os><cmdline>', 'nova/tests/functional/test_overrides_in_guest.py'),
    _img('os_type', HONOURED, 'windows: Hyper-V enlightenments, local-time clock',
         '<features><hyperv>, <clock offset=\'localtime\'>', T_XML),
    # ------------------------------------------------------------ devices
    _img('hw_disk_bus', HONOURED, 'root and ephemeral disk bus', "<target bus=>", T_BUS),
    _img('hw_cdrom_bus', HONOURED, 'CD-ROM bus', "<target bus=>", T_BUS),
    _img('hw_floppy_bus', HONOURED, 'floppy bus', "<target bus=>", T_BUS),
    _img('hw_scsi_model', HONOURED, 'SCSI controller model', "<controller type='scsi' "
         "model=>", T_BUS),
    _img('hw_rescue_bus', HONOURED, 'stable-device rescue media bus', '<disk>', T_RESCUE),
    _img('hw_rescue_device', HONOURED, 'stable-device rescue media kind', '<disk device=>',
         T_RESCUE),
    _img('hw_video_model', HONOURED, 'video model (host domain capabilities checked)',
         "<video><model type=>", T_NUMA),
    _img('hw_video_ram', HONOURED, 'video RAM up to hw_video:ram_max_mb', "<model vram=>",
         T_NUMA),
    _flv('hw_video:ram_max_mb', HONOURED, 'the most video RAM an image may ask for', '',
         T_NUMA),
    _img('hw_qemu_guest_agent', HONOURED, 'the guest agent\'s virtio-serial channel',
         "<channel type='unix'><target name='org.qemu.guest_agent.0'/>",
         'nova/tests/functional/test_password_agent_qemu.py'),
    _img('hw_rng_model', HONOURED, 'virtio RNG fed by [libvirt]rng_dev_path; refused when '
         'the flavor\'s hw_rng:allowed is false', "<rng model='virtio'><backend "
         "model='random'>", T_XML + ', ' + T_GUEST),
    _flv('hw_rng:allowed', HONOURED, 'whether images may ask for an RNG (default yes)', '',
         T_REQ),
    _flv('hw_rng:rate_bytes', HONOURED, 'RNG rate limit: bytes per period',
         "<rate bytes='N' period='P'/>", T_XML),
    _flv('hw_rng:rate_period', HONOURED, 'RNG rate limit period (ms)', "<rate period='P'/>",
         T_XML),
    _img('hw_watchdog_action', HONOURED, 'i6300esb watchdog and its action (image wins)',
         "<watchdog model='i6300esb' action=>", T_XML + ', ' + T_GUEST),
    _flv('hw:watchdog_action', HONOURED, 'as hw_watchdog_action', '<watchdog/>', T_XML),
    _img('hw_pointer_model', HONOURED, 'usbtablet: a USB (or hw_input_bus) tablet',
         "<input type='tablet' bus='usb'/>", T_XML + ', ' + T_GUEST),
    _img('hw_input_bus', HONOURED, 'tablet and keyboard on usb or virtio',
         "<input type='tablet|keyboard' bus=>", T_XML + ', ' + T_GUEST),
    _img('hw_serial_port_count', HONOURED, 'serial ports (at most the flavor\'s count); '
         'port 0 is the console log; 0 puts the log on a virtio console',
         "<serial><target port='N'/>", T_XML + ', ' + T_GUEST),
    _flv('hw:serial_port_count', HONOURED, 'the most serial ports an image may ask for, and '
         'the count when it asks none', '<serial/>', T_REQ),
    _img('hw_time_hpet', HONOURED, 'HPET timer present (absent by default, as upstream)',
         "<clock><timer name='hpet' present='yes|no'/>", T_XML + ', ' + T_GUEST),
    _img('img_hide_hypervisor_id', HONOURED, 'hide the KVM signature from the guest',
         "<features><kvm><hidden state='on'/>", T_XML),
    _flv('hw:hide_hypervisor_id', HONOURED, 'as img_hide_hypervisor_id (either hides)',
         '<kvm><hidden/>', T_XML),
    _img('hw_tpm_version', HONOURED, 'vTPM (swtpm) of that version; state kept in the '
         'instance directory', "<tpm model=><backend type='emulator' version=>",
         T_XML + ', ' + T_GUEST),
    _img('hw_tpm_model', HONOURED, 'tpm-tis or tpm-crb (needs a version)', '<tpm model=>',
         T_XML),
    _flv('hw:tpm_version', HONOURED, 'as hw_tpm_version (unique)', '<tpm/>', T_REQ),
    _flv('hw:tpm_model', HONOURED, 'as hw_tpm_model (unique)', '<tpm/>', T_REQ),
    _img('hw_tpm_secret_security', REFUSED, 'vTPM secrets need a key manager; this driver '
         'keeps the TPM state unencrypted in the instance directory'),
    _img('hw_viommu_model', HONOURED, 'virtual IOMMU (intel needs q35; auto = virtio)',
         "<iommu model=>, <features><ioapic driver='qemu'/>", T_XML + ', ' + T_GUEST),
    _flv('hw:viommu_model', HONOURED, 'as hw_viommu_model (unique)', '<iommu/>', T_XML),
    _img('hw_virtio_packed_ring', HONOURED, 'packed virtqueues on virtio disks (the NICs\': '
         'networking)', "<driver packed='on'/>", T_XML + ', ' + T_GUEST),
    _flv('hw:virtio_packed_ring', HONOURED, 'as hw_virtio_packed_ring (unique)',
         "<driver packed='on'/>", T_XML),
    _img('hw_sound_model', HONOURED, 'a sound device', "<sound model=>",
         T_XML + ', ' + T_GUEST),
    _flv('hw:sound_model', HONOURED, 'as hw_sound_model (unique)', '<sound/>', T_XML),
    _img('hw_usb_model', HONOURED, 'USB controller model (none: no USB)',
         "<controller type='usb' model=>", T_XML + ', ' + T_GUEST),
    _flv('hw:usb_model', HONOURED, 'as hw_usb_model (unique)', '<controller type=\'usb\'>',
         T_XML),
    _img('hw_redirected_usb_ports', HONOURED, 'SPICE USB redirection channels (the host '
         'must have SPICE on)', "<redirdev bus='usb' type='spicevmc'/>", T_XML),
    _flv('hw:redirected_usb_ports', HONOURED, 'as hw_redirected_usb_ports (unique)',
         '<redirdev/>', T_XML),
    _flv(r'quota:disk_(read|write|total)_(bytes|iops)_sec(_max|_max_length)?', HONOURED,
         'I/O limits on every local disk', '<disk><iotune>...</iotune>', T_XML),
    _flv('quota:size_iops_sec', HONOURED, 'I/O size the iops limits count in',
         '<iotune><size_iops_sec>', T_XML),
    _flv(r'quota:(memory|disk_io|vif)_(limit|reservation|shares_share)', REFUSED, _VMWARE),
    _flv(r'quota:(memory|disk_io|vif)_shares_level', REFUSED, _VMWARE),
    _flv('os:monitors', REFUSED, 'a Hyper-V driver setting; the libvirt driver has no such '
         'control'),
    _flv('accel:device_profile', REFUSED, 'accelerators need Cyborg, which this deployment '
         'does not run'),
    _img('hw_pci_numa_affinity_policy', REFUSED, 'this driver passes no PCI devices '
         'through, so there is nothing for the policy to place'),
    _img('hw_ipxe_boot', REFUSED, 'an Ironic (bare metal) setting'),
    _img('hw_device_id', REFUSED, _XEN),
    _img('hw_disk_type', REFUSED, _VMWARE),
    _img('img_linked_clone', REFUSED, _VMWARE),
    _img('img_version', INFO, 'a VMware image version; nothing reads it'),
    _img('img_bittorrent', REFUSED, _XEN),
    _img('img_compression_level', REFUSED, _XEN),
    _img('img_use_agent', REFUSED, _XEN),
    _img('os_skip_agent_inject_files_at_boot', REFUSED, _XEN),
    _img('os_skip_agent_inject_ssh', REFUSED, _XEN),
    _img('hw_ephemeral_encryption', REFUSED, 'encrypted ephemeral disks need a key '
         'manager, which this driver does not use'),
    _img('hw_ephemeral_encryption_format', REFUSED, 'as hw_ephemeral_encryption'),
    _img('hw_ephemeral_encryption_secret_uuid', REFUSED, 'as hw_ephemeral_encryption'),
    _flv('hw:ephemeral_encryption', REFUSED, 'as hw_ephemeral_encryption'),
    _flv('hw:ephemeral_encryption_format', REFUSED, 'as hw_ephemeral_encryption'),
    # ------------------------------------------------------- networking
    _img('hw_vif_model', NETWORKING, 'NIC model (nova/virt/libvirt/vif.py)'),
    _img('hw_vif_multiqueue_enabled', NETWORKING, 'NIC queues (nova/virt/libvirt/vif.py)'),
    _flv('hw:vif_multiqueue_enabled', NETWORKING, 'as hw_vif_multiqueue_enabled'),
    _flv(r'quota:vif_(inbound|outbound)_(average|peak|burst)', NETWORKING,
         'NIC bandwidth (nova/virt/libvirt/vif.py)'),
    # ------------------------------------------------ host and API rules
    _img('img_hv_type', HOST, 'hosts of that hypervisor only (scheduler filter)'),
    _img('img_hv_requested_version', HOST, 'hosts whose hypervisor version satisfies the '
         'predicate (static rules)', '', T_HOST),
    _img('traits_required', REFUSED, 'required traits (trait:NAME=required) need Placement, '
         'which this deployment does not run'),
    _img('hw_auto_disk_config', API, 'the server\'s disk config (OS-DCF), as '
         'auto_disk_config'),
    _img('img_config_drive', API, 'mandatory: every server of the image gets a config '
         'drive'),
    _img('img_block_device_mapping', API, 'block device mappings of a snapshot image'),
    _img('img_bdm_v2', API, 'the format of img_block_device_mapping'),
    _img('img_mappings', API, 'legacy device name mappings (valid JSON required)'),
    _img('img_root_device_name', API, 'the root device name of a snapshot image'),
    _img('img_cache_in_nova', INFO, 'an image cache hint; this host caches every image it '
         'boots'),
    _img('img_owner_id', INFO, 'who uploaded the image'),
    _img('img_signature', API, 'image signature verification'),
    _img('img_signature_certificate_uuid', API, 'as img_signature'),
    _img('img_signature_hash_method', API, 'as img_signature'),
    _img('img_signature_key_type', API, 'as img_signature'),
    _img('os_admin_user', HONOURED, 'the user a password change sets (guest agent)', '',
         'nova/tests/unit/virt/libvirt/test_driver_password.py'),
    _img('os_require_quiesce', REFUSED, 'snapshots here never quiesce the guest, so an image '
         'that requires it cannot be served'),
    _img('os_distro', INFO, 'the guest operating system, for people and tools'),
)

BY_KIND = {kind: {row.name: row for row in ROWS if row.kind == kind}
           for kind in ('image', 'flavor')}


def flavor_row(key):
    """The row of an extra spec key (exact names first, then patterns)."""
    rows = BY_KIND['flavor']
    if key in rows:
        return rows[key]
    for name, row in rows.items():
        if re.fullmatch(name, key):
            return row
    return None


def image_row(field):
    return BY_KIND['image'].get(field)


def check_refused(extra_specs, props):
    """Invalid naming the first REFUSED key a flavor or image sets, with why."""
    for key in sorted(extra_specs or {}):
        row = flavor_row(key)
        if row is not None and row.status == REFUSED:
            raise exception.Invalid(reason='flavor extra spec %s is not supported by this '
                                           'driver: %s' % (key, row.does))
    for name, row in sorted(BY_KIND['image'].items()):
        if row.status == REFUSED and props.get(name) not in (None, False, []):
            raise exception.Invalid(reason='image property %s is not supported by this '
                                           'driver: %s' % (name, row.does))


def counts():
    """{status: number of rows} per kind, for the docs and the report."""
    result = {}
    for row in ROWS:
        result.setdefault(row.kind, {}).setdefault(row.status, 0)
        result[row.kind][row.status] += 1
    return result
