"""A checked GuestRequest -> guest CPU, firmware, clock, features, optional devices, tuning."""

# Pure: the GuestSettings carry every host fact used (firmware descriptors,
# machine aliases, [libvirt] CPU options, the RNG source); nothing here
# calls libvirt.  Host misfits raise Invalid: the build fails with a fault
# that names what this host lacks.

import os

from nova import exception
from nova.network import model
from nova.virt import cpu_topology, hardware
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import firmware as fw

X86_ARCHES = ('i686', 'x86_64')
# Machine type when neither image nor [libvirt]hw_machine_type names one
# (upstream's table; x86 stays on 'pc').
DEFAULT_MACHINES = {'x86_64': 'pc', 'i686': 'pc', 'aarch64': 'virt', 'armv7l': 'virt',
                    's390x': 's390-ccw-virtio', 'ppc64le': 'pseries', 'ppc64': 'pseries'}
# The Hyper-V enlightenments upstream gives Windows guests.
HYPERV_FEATURES = ('relaxed', 'vapic', 'spinlocks', 'vpindex', 'runtime', 'synic',
                   'reset', 'frequencies', 'tlbflush', 'ipi')
# A vendor string of 12 characters in place of "Microsoft Hv" (hidden id).
HIDDEN_VENDOR_ID = '1234567890ab'
INTEL_IOMMU_DRIVER = {'intremap': 'on', 'caching_mode': 'on', 'iotlb': 'on',
                      'aw_bits': '48'}


def _setting(settings, name, default):
    # Tests may hand a plain namespace with only the fields they need.
    return getattr(settings, name, default)


def _fault(reason, *args):
    return exception.Invalid(reason=reason % args if args else reason)


# ------------------------------------------------------------ CPU, tuning

def apply_cpu(guest, settings, vcpus, request):
    """<cpu> mode/model/flags, topology, maxphysaddr; <cputune> quotas and
    realtime; <memoryBacking> locked."""
    devices = request.devices
    cpu = guest.cpu
    mode = _setting(settings, 'cpu_mode', None)
    if mode and mode != 'none':
        cpu = cpu or vconfig.GuestCPU()
        cpu.mode = mode
        if mode == 'custom':
            models = _setting(settings, 'cpu_models', ())
            if not models:
                raise _fault('[libvirt]cpu_mode=custom needs [libvirt]cpu_models')
            model = devices.cpu_model or models[0]
            if model not in models:
                raise _fault("flavor extra spec hw:cpu_model=%s is not one of this host's "
                             '[libvirt]cpu_models (%s)', model, ', '.join(models))
            cpu.model, cpu.match = model, 'exact'
        flags = _setting(settings, 'cpu_flags', ())
        cpu.features = [vconfig.GuestCPUFeature(name=flag) for flag in flags]
    elif devices.cpu_model:
        raise _fault('flavor extra spec hw:cpu_model=%s needs [libvirt]cpu_mode=custom on '
                     'the host', devices.cpu_model)
    if request.cpu is not None and request.cpu.requested:
        cpu = cpu or vconfig.GuestCPU()
        best = cpu_topology.best_topology(vcpus, request.cpu, numa_threads=cpu.threads)
        cpu.sockets, cpu.cores, cpu.threads = best.sockets, best.cores, best.threads
    if devices.maxphysaddr_mode:
        if devices.maxphysaddr_mode == 'passthrough' and mode != 'host-passthrough':
            raise _fault('hw_maxphysaddr_mode=passthrough needs [libvirt]cpu_mode='
                         'host-passthrough on the host (it has %s)', mode or 'none')
        cpu = cpu or vconfig.GuestCPU()
        cpu.maxphysaddr_mode = devices.maxphysaddr_mode
        cpu.maxphysaddr_bits = devices.maxphysaddr_bits
    guest.cpu = cpu
    tune = guest.cputune
    if devices.cpu_quotas or devices.realtime_cpus:
        tune = tune or vconfig.GuestCPUTune()
        for child, value in devices.cpu_quotas:
            setattr(tune, child, value)
        if devices.realtime_cpus:
            tune.vcpuscheds = [vconfig.GuestVCPUSched(
                vcpus=hardware.format_cpu_spec(devices.realtime_cpus))]
        guest.cputune = tune
    if devices.locked_memory or devices.realtime_cpus:
        backing = guest.memory_backing or vconfig.GuestMemoryBacking()
        backing.locked = True
        backing.nosharepages = bool(devices.realtime_cpus) or backing.nosharepages
        guest.memory_backing = backing


# ------------------------------------------------- firmware, clock, features

def apply_firmware(guest, settings, devices, machine):
    """UEFI from the descriptor that matches, secure boot only when asked."""
    if devices.firmware != 'uefi' or guest.os is None:
        return
    if settings.domain_type == 'test' or not _setting(settings, 'firmware', ()):
        # No descriptors to choose from (test:///): libvirt's selection.
        guest.os.firmware = 'efi'
        return
    canonical = _setting(settings, 'machine_aliases', {}).get(machine, machine)
    arch = guest.os.arch or settings.arch
    policy = devices.secure_boot
    found = _setting(settings, 'firmware', ())
    secure = policy == 'required' or (
        policy == 'optional' and fw.secure_boot_possible(found, arch, canonical))
    chosen = fw.choose(found, arch, canonical, secure, devices.firmware_stateless)
    guest.os.firmware = None
    guest.os.loader_path, guest.os.loader_type = chosen.executable, 'pflash'
    guest.os.loader_readonly, guest.os.loader_secure = True, secure
    if devices.firmware_stateless:
        guest.os.loader_stateless = True
    else:
        guest.os.nvram_template = chosen.nvram_template
    if chosen.requires_smm:
        guest.features = list(guest.features) + [vconfig.GuestFeatureState(name='smm')]


def apply_clock_and_features(guest, settings, devices, arch):
    features = list(guest.features)
    windows = devices.os_type == 'windows'
    if arch in X86_ARCHES and (devices.hpet is not None or windows):
        # Upstream's timers when the image says anything about the HPET
        # (otherwise QEMU's machine default stays, which has one).
        timers = [vconfig.GuestTimer(name='pit', tickpolicy='delay'),
                  vconfig.GuestTimer(name='rtc', tickpolicy='catchup'),
                  vconfig.GuestTimer(name='hpet', present=bool(devices.hpet))]
        if windows:
            timers.append(vconfig.GuestTimer(name='hypervclock', present=True))
        guest.clock = vconfig.GuestClock(offset='localtime' if windows else 'utc',
                                         timers=timers)
    elif devices.hpet:
        raise _fault('hw_time_hpet needs an x86 guest (this one is %s)', arch)
    if devices.pmu is not None:
        features.append(vconfig.GuestFeatureState(name='pmu', state=devices.pmu))
    if windows and arch in X86_ARCHES:
        features.append(vconfig.GuestFeatureHyperV(
            features=HYPERV_FEATURES,
            vendor_id=HIDDEN_VENDOR_ID if devices.hide_hypervisor_id else None))
    if devices.hide_hypervisor_id:
        features.append(vconfig.GuestFeatureKvmHidden())
    if devices.viommu_model == 'intel':
        features.append(vconfig.GuestFeatureIOAPIC())
    guest.features = features


# ------------------------------------------------------------------ devices

def _serial_ports(guest, settings, count, log_path):
    """Port 0 stays the console log; more ports are PTYs (a serial console
    host listens on port 0 only); 0 ports moves the log to a virtio
    console, which Linux calls hvc0."""
    if count is None or count == 1:
        return []
    devices = list(guest.devices)
    if count == 0:
        guest.devices = [d for d in devices if not (isinstance(d, vconfig.GuestSerial))]
        return [vconfig.GuestConsole(type='file', source_path=log_path, source_append=True,
                                     target_type='virtio', target_port=0)]
    return [vconfig.GuestSerial(type='pty', target_port=port) for port in range(1, count)]


def _input_devices(devices, arch):
    bus = devices.input_bus
    if bus is None and devices.pointer_model is None:
        return []
    result = [vconfig.GuestInput(type='tablet', bus=bus or 'usb')]
    if bus is not None:
        result.append(vconfig.GuestInput(type='keyboard', bus=bus))
    return result


def _usb_devices(settings, devices):
    result = []
    if devices.usb_model:
        result.append(vconfig.GuestController(type='usb', index=0, model=devices.usb_model))
    if devices.redirected_usb_ports:
        consoles = _setting(settings, 'consoles', None)
        if consoles is None or not consoles.spice_enabled:
            raise _fault('hw_redirected_usb_ports needs SPICE, which this host has off '
                         '([spice]enabled)')
        result.extend(vconfig.GuestUSBRedir() for _ in range(devices.redirected_usb_ports))
    return result


def optional_devices(guest, settings, devices, machine, log_path):
    """The devices the request adds (RNG, watchdog, input, serial ports,
    TPM, IOMMU, sound, USB); raises Invalid for what this host cannot do."""
    arch = guest.os.arch if guest.os is not None else settings.arch
    added = []
    if devices.rng:
        path = _setting(settings, 'rng_dev_path', '/dev/urandom')
        if settings.domain_type != 'test' and path and not os.path.exists(path):
            raise _fault('[libvirt]rng_dev_path %s does not exist on this host', path)
        added.append(vconfig.GuestRng(backend=path, rate_bytes=devices.rng_rate_bytes,
                                      rate_period=devices.rng_rate_period))
    if devices.watchdog_action:
        added.append(vconfig.GuestWatchdog(action=devices.watchdog_action))
    added.extend(_input_devices(devices, arch))
    added.extend(_serial_ports(guest, settings, devices.serial_ports, log_path))
    if devices.tpm_version:
        if settings.domain_type != 'test' and not _setting(settings, 'swtpm_enabled', False):
            raise _fault('a vTPM needs [libvirt]swtpm_enabled=true and swtpm on the host')
        added.append(vconfig.GuestTPM(model=devices.tpm_model, version=devices.tpm_version))
    if devices.viommu_model:
        canonical = _setting(settings, 'machine_aliases', {}).get(machine, machine) or ''
        if devices.viommu_model == 'intel' and 'q35' not in canonical:
            raise _fault('hw_viommu_model=intel needs the q35 machine type (this guest '
                         'has %s)', machine or 'the default')
        added.append(vconfig.GuestIOMMU(
            model=devices.viommu_model,
            driver=INTEL_IOMMU_DRIVER if devices.viommu_model == 'intel' else None))
    if devices.sound_model:
        added.append(vconfig.GuestSound(model=devices.sound_model))
    added.extend(_usb_devices(settings, devices))
    guest.devices = list(guest.devices) + added


def apply_disk_tuning(guest, devices):
    """Packed virtqueues on virtio disks, flavor I/O limits on local files."""
    for disk in guest.get_disks():
        if devices.packed_ring is not None and disk.target_bus == 'virtio':
            disk.driver_packed = devices.packed_ring
        if devices.disk_quotas and disk.source_type == 'file':
            disk.iotune = devices.disk_quotas


def metadata_ports(network_info):
    """The ``ports`` of nova_metadata: each port's fixed IPs, as upstream lists them."""
    return tuple((vif['id'], tuple((ip.get('type') or 'fixed', ip['address'],
                                    str(ip.get('version') or (6 if ':' in ip['address']
                                                              else 4)))
                                   for ip in model.fixed_ips(vif)))
                 for vif in network_info or ())


def nova_metadata(instance, image_meta_id, ports=()):
    """<nova:instance> of an instance; ``ports``: metadata_ports()."""
    flavor = instance.flavor
    created = getattr(instance, 'created_at', None)
    volume_root = not getattr(instance, 'image_ref', None)
    return vconfig.GuestNovaMetadata(
        name=getattr(instance, 'display_name', None) or instance.name,
        creation_time=created.strftime('%Y-%m-%d %H:%M:%S') if created else None,
        flavor={'name': getattr(flavor, 'name', None), 'memory': flavor.memory_mb,
                'disk': getattr(flavor, 'root_gb', 0) or 0,
                'swap': getattr(flavor, 'swap', 0) or 0,
                'ephemeral': getattr(flavor, 'ephemeral_gb', 0) or 0,
                'vcpus': flavor.vcpus},
        owner=(getattr(instance, 'user_id', None), None,
               getattr(instance, 'project_id', None), None),
        root=('volume', None) if volume_root else ('image', image_meta_id or instance.image_ref),
        ports=tuple(ports))


def apply(guest, settings, instance, request, machine, log_path):
    """Everything the request adds beyond NUMA, video and the boot menu."""
    devices = request.devices
    arch = guest.os.arch if guest.os is not None else settings.arch
    apply_cpu(guest, settings, instance.flavor.vcpus, request)
    apply_firmware(guest, settings, devices, machine)
    apply_clock_and_features(guest, settings, devices, arch)
    optional_devices(guest, settings, devices, machine, log_path)
    apply_disk_tuning(guest, devices)
    return guest
