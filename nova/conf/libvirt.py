"""[libvirt] options: hypervisor connection, guest type and disk backend."""

from oslo_config import cfg

GROUP = 'libvirt'

opts = [
    cfg.StrOpt('virt_type',
               default='qemu',
               choices=('qemu', 'kvm', 'lxc'),
               help='Libvirt domain type. "qemu" is pure emulation (TCG) '
                    'and works everywhere; "kvm" needs /dev/kvm; "lxc" runs '
                    'containers.'),
    cfg.HostAddressOpt('live_migration_inbound_addr',
                       help='Address (IP or host name) other compute hosts send live '
                            'migration traffic (guest memory and copied disks) to; this '
                            "host's QEMU listens there. Unset: libvirt's choice (this "
                            "machine's host name)."),
    cfg.IntOpt('live_migration_bandwidth',
               default=0,
               min=0,
               help='Most MiB/s a live migration may use (guest memory and copied '
                    'disks); 0 means no limit.'),
    cfg.StrOpt('connection_uri',
               default='',
               help='Libvirt connection URI. Empty means derive it from '
                    'virt_type (qemu:///system for qemu and kvm, '
                    'lxc:///system for lxc). "test:///default" selects '
                    "libvirt's in-process test hypervisor for fast tests."),
    cfg.ListOpt('hw_machine_type',
                default=[],
                help='Machine type per guest architecture, as '
                     'ARCH=MACHINE pairs, e.g. "x86_64=q35". The image '
                     'property hw_machine_type wins over this. Unset means '
                     "libvirt's default for the architecture."),
    cfg.StrOpt('disk_cachemode',
               default=None,
               choices=('none', 'writethrough', 'writeback', 'directsync',
                        'unsafe'),
               help='Cache mode for file-backed guest disks. Unset means '
                    '"none" when the instances filesystem supports O_DIRECT '
                    'and "writeback" otherwise.'),
    cfg.StrOpt('config_drive_format',
               default='iso9660',
               choices=('iso9660', 'vfat'),
               help='Format of config drives. "iso9660" (label config-2, '
                    'written with xorriso, genisoimage or mkisofs) is '
                    'attached as a CD-ROM on the IDE bus (pc) or SATA (q35); '
                    '"vfat" (needs mkfs.vfat and mcopy) is attached as a '
                    'disk on the instance disk bus.'),
    cfg.BoolOpt('force_config_drive',
                default=False,
                help='Give every instance a config drive, whether or not '
                     'it asked for one.'),
    cfg.StrOpt('default_ephemeral_format',
               default='ext4',
               choices=('ext2', 'ext3', 'ext4', 'xfs', 'vfat', 'ntfs',
                        'none'),
               help='Filesystem for ephemeral disks whose block device '
                    'mapping names no guest_format (and for the flavor '
                    'ephemeral disk). "none", or a filesystem whose mkfs '
                    'tool this host lacks, leaves the disk unformatted.'),
    cfg.FloatOpt('device_detach_timeout',
                 default=20.0,
                 min=0.0,
                 help='Seconds to wait for a running guest to release a '
                      'volume being detached (virtio and PCIe hot-unplug '
                      'need the guest to cooperate; SCSI and USB do not) '
                      'before the detach is reported as failed.'),
    cfg.IntOpt('agent_connect_timeout',
               default=30,
               min=0,
               max=45,
               help='Seconds a password change (changePassword) waits for the '
                    'QEMU guest agent of an image with hw_qemu_guest_agent=yes '
                    'to open its channel when it has not yet (a guest still '
                    'booting). 0 fails at once, as upstream does, with 501. '
                    'The API waits at most 60 seconds for the whole change.'),
    cfg.IntOpt('console_log_max_bytes',
               default=100 * 1024,
               min=1024,
               help='Most bytes of the serial console log returned by the '
                    'console output API (the tail of the log).'),
    cfg.StrOpt('cpu_mode',
               choices=('host-model', 'host-passthrough', 'custom', 'none'),
               help="Guest CPU mode. Unset or 'none': libvirt's default CPU for the "
                    "virt type (qemu64 under TCG). 'custom' uses cpu_models."),
    cfg.ListOpt('cpu_models', default=[],
                help="CPU models for cpu_mode=custom, the first the default; a flavor "
                     "picks another with hw:cpu_model."),
    cfg.ListOpt('cpu_model_extra_flags', default=[],
                help='CPU flags every guest requires on top of its CPU model '
                     '(cpu_mode host-model, host-passthrough or custom).'),
    cfg.StrOpt('rng_dev_path', default='/dev/urandom',
               help='Host source of the virtio RNG that hw_rng_model=virtio images get.'),
    cfg.BoolOpt('swtpm_enabled', default=False,
                help='Offer virtual TPMs (hw_tpm_version / hw:tpm_version) through swtpm; '
                     'their state lives in the instance directory.'),
    cfg.StrOpt('swtpm_user', default='tss',
               help='The user swtpm runs as: libvirt\'s qemu.conf swtpm_user, which must '
                    'match. The vTPM state directory is given to it, and the instances path '
                    'must be searchable by it (vTPM is not offered otherwise).'),
    cfg.StrOpt('swtpm_group', default='tss',
               help='The group swtpm runs as: libvirt\'s qemu.conf swtpm_group.'),
    cfg.IntOpt('rx_queue_size', choices=(256, 512, 1024),
               help='Size of the receive queue of every virtio NIC (<driver '
                    'rx_queue_size>). Unset: QEMU\'s default (256).'),
    cfg.IntOpt('tx_queue_size', choices=(256, 512, 1024),
               help='Size of the transmit queue of every virtio NIC (<driver '
                    'tx_queue_size>). QEMU honours it for vhost-user back ends '
                    'only and keeps 256 for taps. Unset: QEMU\'s default.'),
    cfg.IntOpt('max_queues', min=1, max=256,
               help='Most queues a multiqueue virtio NIC gets (hw_vif_multiqueue_enabled '
                    'or hw:vif_multiqueue_enabled): one per vCPU up to this. Unset: 256, '
                    'the tap driver\'s limit.'),
    cfg.StrOpt('tap_namespace',
               help='Network namespace (a name under /run/netns) the taps of '
                    'vif_type "tap" ports are created in: the one the libvirtd '
                    'starting the guests runs in, since QEMU opens the tap there. '
                    'Unset: the namespace nova-compute runs in; the all-in-one uses '
                    '[aio] network_namespace. Taps of Open vSwitch ports are '
                    'created by os-vif (its privsep helper decides where).'),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
