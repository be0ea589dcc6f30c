"""Flavor extra specs + image properties -> guest devices and tuning, with upstream precedence."""

# Pure functions over (extra_specs, typed image properties): the API runs
# them before a server exists (a conflict is a 400 naming both keys), the
# libvirt driver builds the domain from their result.  Three precedence
# rules, as upstream:
#   unique   - flavor and image may both set it only to the same value
#              (hw:pmu/hw_pmu, TPM, secure boot, locked memory, packed
#              rings, vIOMMU, sound and USB models, maxphysaddr);
#   image    - the image's value wins (watchdog action);
#   ceiling  - the image may ask for at most the flavor's value (serial
#              port count).
# Where upstream would quietly drop a request (an RNG the flavor does not
# allow, a TPM model without a version, a realtime mask without realtime)
# this refuses it instead.

import dataclasses

from oslo_utils import strutils

from nova import exception
from nova.objects import fields
from nova.virt import hardware

RNG_ALLOWED = 'hw_rng:allowed'
RNG_RATE_BYTES = 'hw_rng:rate_bytes'
RNG_RATE_PERIOD = 'hw_rng:rate_period'
REALTIME = 'hw:cpu_realtime'
REALTIME_MASK = 'hw:cpu_realtime_mask'
EMULATOR_THREADS = 'hw:emulator_threads_policy'

# <cputune> children from quota:cpu_* (libvirt's ranges).
CPU_QUOTAS = {'quota:cpu_shares': ('shares', 0, 262144),
              'quota:cpu_period': ('period', 1000, 1000000),
              'quota:cpu_quota': ('quota', -1, 17592186044415)}
# <iotune> children from quota:disk_* / quota:size_iops_sec.
DISK_QUOTA_KEYS = tuple(
    '%s_%s_sec%s' % (op, unit, tail)
    for op in ('total', 'read', 'write') for unit in ('bytes', 'iops')
    for tail in ('', '_max', '_max_length')) + ('size_iops_sec',)


def _invalid(reason, *args):
    return exception.Invalid(reason=reason % args if args else reason)


@dataclasses.dataclass(frozen=True)
class DeviceRequest:
    """What flavor + image ask of the guest's devices, checked.

    None means "not asked": the driver leaves libvirt's/QEMU's default.
    """

    rng: bool = False
    rng_rate_bytes: int = None
    rng_rate_period: int = None
    watchdog_action: str = None
    pointer_model: str = None
    input_bus: str = None
    serial_ports: int = None
    pmu: bool = None
    hpet: bool = None
    hide_hypervisor_id: bool = False
    tpm_version: str = None
    tpm_model: str = None
    firmware: str = None                # 'uefi' | 'bios' | None
    firmware_stateless: bool = False
    secure_boot: str = None             # required | disabled | optional
    viommu_model: str = None
    locked_memory: bool = None
    packed_ring: bool = None
    sound_model: str = None
    usb_model: str = None
    redirected_usb_ports: int = None
    maxphysaddr_mode: str = None
    maxphysaddr_bits: int = None
    realtime_cpus: frozenset = None
    cpu_model: str = None
    os_type: str = None
    mem_encryption: bool = False
    cpu_quotas: tuple = ()              # ((cputune child, value), ...)
    disk_quotas: tuple = ()             # ((iotune child, value), ...)


# ------------------------------------------------------------ readers

def flavor_bool(extra_specs, key):
    raw = extra_specs.get(key)
    if raw is None:
        return None
    try:
        return strutils.bool_from_string(raw, strict=True)
    except ValueError:
        raise _invalid('flavor extra spec %s=%r must be a boolean', key, raw)


def flavor_int(extra_specs, key, minimum=0, maximum=None):
    raw = extra_specs.get(key)
    if raw is None:
        return None
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise _invalid('flavor extra spec %s=%r must be an integer', key, raw)
    if value < minimum or (maximum is not None and value > maximum):
        raise _invalid('flavor extra spec %s=%r must be between %d and %s', key, raw,
                       minimum, maximum if maximum is not None else 'any')
    return value


def unique(extra_specs, props, spec, prop, parse=None):
    """The one value flavor and image agree on (either may be unset)."""
    raw = extra_specs.get(spec)
    flavor = (parse(extra_specs, spec) if parse else raw) if raw is not None else None
    image = props.get(prop)
    if flavor is not None and image is not None and flavor != image:
        raise _invalid("image property %s=%s conflicts with the flavor's %s=%s: set it "
                       'in one place, or to the same value', prop, image, spec, raw)
    return image if image is not None else flavor


def one_of(choices):
    """A flavor value parser accepting only ``choices`` (the image field's enum)."""
    def parse(extra_specs, key):
        raw = extra_specs.get(key)
        if raw not in choices:
            raise _invalid('flavor extra spec %s=%r: use one of %s', key, raw,
                           ', '.join(choices))
        return raw
    return parse


def _props_int(props, key, minimum):
    value = props.get(key)
    if value is not None and value < minimum:
        raise _invalid('image property %s=%d must be at least %d', key, value, minimum)
    return value


# ------------------------------------------------------------- rules

def rng_request(extra_specs, props):
    """(wanted, rate bytes, rate period ms); a model the flavor forbids is refused."""
    model = props.get('hw_rng_model')
    allowed = flavor_bool(extra_specs, RNG_ALLOWED)
    rate = flavor_int(extra_specs, RNG_RATE_BYTES)
    period = flavor_int(extra_specs, RNG_RATE_PERIOD)
    if model is None:
        return False, None, None
    if allowed is False:
        raise _invalid("image property hw_rng_model=%s asks for a random number generator "
                       "but the flavor's %s=False forbids one", model, RNG_ALLOWED)
    if period and not rate:
        raise _invalid('flavor extra spec %s needs %s', RNG_RATE_PERIOD, RNG_RATE_BYTES)
    return True, rate or None, (period or None) if rate else None


def serial_port_request(extra_specs, props):
    """The image may ask for up to the flavor's count; None keeps one port."""
    flavor = flavor_int(extra_specs, 'hw:serial_port_count')
    image = _props_int(props, 'hw_serial_port_count', 0)
    if flavor is not None and image is not None and image > flavor:
        raise _invalid("image property hw_serial_port_count=%d exceeds the flavor's "
                       'hw:serial_port_count=%d', image, flavor)
    return image if image is not None else flavor


def tpm_request(extra_specs, props):
    version = unique(extra_specs, props, 'hw:tpm_version', 'hw_tpm_version')
    model = unique(extra_specs, props, 'hw:tpm_model', 'hw_tpm_model')
    if version is None:
        if model is not None:
            raise _invalid('hw_tpm_model=%s needs hw_tpm_version (image) or '
                           'hw:tpm_version (flavor)', model)
        return None, None
    model = model or 'tpm-tis'
    if version == '1.2' and model == 'tpm-crb':
        raise _invalid('a TPM 1.2 can only be of model tpm-tis, not tpm-crb')
    return version, model


def secure_boot_request(extra_specs, props, firmware):
    policy = unique(extra_specs, props, 'os:secure_boot', 'os_secure_boot')
    if policy == 'required' and firmware != 'uefi':
        raise _invalid('secure boot (os_secure_boot / os:secure_boot=required) needs UEFI '
                       'firmware: set hw_firmware_type=uefi')
    return policy


def realtime_request(vcpus, extra_specs, props, cpu_policy):
    """The realtime vCPUs (None: no realtime), upstream's mask rules."""
    enabled = flavor_bool(extra_specs, REALTIME)
    image_mask = props.get('hw_cpu_realtime_mask')
    mask = image_mask or extra_specs.get(REALTIME_MASK)
    source = 'hw_cpu_realtime_mask' if image_mask else REALTIME_MASK
    cpus = None
    if mask is not None:
        # The mask reads against all vCPUs: '^0' is every vCPU but 0.
        text = str(mask).strip()
        try:
            cpus = hardware.parse_cpu_spec('0-%d,%s' % (vcpus - 1, text)
                                           if text.startswith('^') else text)
        except exception.Invalid:
            raise _invalid("%s=%r is not a CPU mask such as '^0-1' or '2-3'", source, mask)
        if not cpus or max(cpus) >= vcpus:
            raise _invalid('%s=%r must name realtime vCPUs among the flavor\'s %d', source,
                           mask, vcpus)
    if not enabled:
        if mask is not None:
            raise _invalid("%s needs the flavor's %s=yes", source, REALTIME)
        return None
    if cpu_policy != hardware.CPU_DEDICATED:
        raise _invalid('%s needs dedicated CPUs (hw:cpu_policy=dedicated)', REALTIME)
    if cpus is None:
        raise _invalid('%s needs a mask (%s or hw_cpu_realtime_mask) that leaves at least '
                       'one vCPU for the emulator threads', REALTIME, REALTIME_MASK)
    if len(cpus) == vcpus:
        raise _invalid('%s=%r leaves no vCPU that is not realtime: at least one must stay '
                       'for the emulator threads', source, mask)
    return frozenset(cpus)


def cpu_quota_request(extra_specs):
    quotas = []
    for key, (child, low, high) in CPU_QUOTAS.items():
        value = flavor_int(extra_specs, key, low, high)
        if value is None:
            continue
        if key == 'quota:cpu_quota' and 0 <= value < 1000:
            raise _invalid('flavor extra spec %s=%d must be -1 (no limit) or at least 1000 '
                           'microseconds', key, value)
        quotas.append((child, value))
    return tuple(quotas)


def disk_quota_request(extra_specs):
    values = {}
    for name in DISK_QUOTA_KEYS:
        key = 'quota:' + ('disk_' + name if name != 'size_iops_sec' else name)
        value = flavor_int(extra_specs, key)
        if value:
            values[name] = value
    for unit in ('bytes', 'iops'):
        total = 'total_%s_sec' % unit
        for tail in ('', '_max'):
            if values.get(total + tail) and (values.get('read_%s_sec%s' % (unit, tail)) or
                                             values.get('write_%s_sec%s' % (unit, tail))):
                raise _invalid('flavor extra specs quota:disk_total_%s_sec%s and '
                               'quota:disk_read/write_%s_sec%s cannot be combined (libvirt '
                               'limits either the total or each direction)',
                               unit, tail, unit, tail)
    for name in list(values):
        if name.endswith('_max_length') and not values.get(name[:-len('_length')]):
            raise _invalid('flavor extra spec quota:disk_%s needs quota:disk_%s', name,
                           name[:-len('_length')])
    return tuple(sorted(values.items()))


def maxphysaddr_request(extra_specs, props):
    mode = unique(extra_specs, props, 'hw:maxphysaddr_mode', 'hw_maxphysaddr_mode')
    bits = unique(extra_specs, props, 'hw:maxphysaddr_bits', 'hw_maxphysaddr_bits',
                  parse=lambda specs, key: flavor_int(specs, key, 1, 64))
    if bits is not None and not 1 <= bits <= 64:
        raise _invalid('hw_maxphysaddr_bits=%d must be between 1 and 64', bits)
    if mode == 'emulate' and bits is None:
        raise _invalid('hw_maxphysaddr_mode=emulate needs hw_maxphysaddr_bits')
    if bits is not None and mode is None:
        raise _invalid('hw_maxphysaddr_bits needs hw_maxphysaddr_mode')
    return mode, bits


def device_request(vcpus, extra_specs, props, topology):
    """The DeviceRequest of a flavor + typed image properties, checked.

    ``topology``: the hardware.GuestTopology already worked out (locked
    memory and realtime depend on its page size and CPU policy).
    """
    extra_specs = extra_specs or {}
    rng, rate, period = rng_request(extra_specs, props)
    firmware = props.get('hw_firmware_type')
    stateless = bool(props.get('hw_firmware_stateless'))
    if stateless and firmware != 'uefi':
        raise _invalid('hw_firmware_stateless needs hw_firmware_type=uefi')
    tpm_version, tpm_model = tpm_request(extra_specs, props)
    locked = unique(extra_specs, props, 'hw:locked_memory', 'hw_locked_memory', flavor_bool)
    if locked and topology.page_size is None:
        raise _invalid('locked memory (hw_locked_memory / hw:locked_memory) needs a page '
                       'size: set hw:mem_page_size in the flavor')
    mode, bits = maxphysaddr_request(extra_specs, props)
    hide = bool(flavor_bool(extra_specs, 'hw:hide_hypervisor_id') or
                props.get('img_hide_hypervisor_id'))
    viommu = unique(extra_specs, props, 'hw:viommu_model', 'hw_viommu_model')
    encryption = unique(extra_specs, props, 'hw:mem_encryption', 'hw_mem_encryption',
                        flavor_bool)
    if props.get('hw_mem_encryption_model') and not encryption:
        raise _invalid('hw_mem_encryption_model needs hw_mem_encryption=true')
    redirected = unique(extra_specs, props, 'hw:redirected_usb_ports',
                        'hw_redirected_usb_ports',
                        parse=lambda specs, key: flavor_int(specs, key))
    usb_model = unique(extra_specs, props, 'hw:usb_model', 'hw_usb_model',
                       one_of(fields.USBControllerModelType.ALL))
    if redirected and usb_model == 'none':
        raise _invalid('hw_redirected_usb_ports needs a USB controller, but hw_usb_model=none')
    watchdog = props.get('hw_watchdog_action') or extra_specs.get('hw:watchdog_action')
    return DeviceRequest(
        rng=rng, rng_rate_bytes=rate, rng_rate_period=period,
        watchdog_action=None if watchdog in (None, 'disabled') else watchdog,
        pointer_model=props.get('hw_pointer_model'),
        input_bus=props.get('hw_input_bus'),
        serial_ports=serial_port_request(extra_specs, props),
        pmu=unique(extra_specs, props, 'hw:pmu', 'hw_pmu', flavor_bool),
        hpet=props.get('hw_time_hpet'),
        hide_hypervisor_id=hide,
        tpm_version=tpm_version, tpm_model=tpm_model,
        firmware=firmware, firmware_stateless=stateless,
        secure_boot=secure_boot_request(extra_specs, props, firmware),
        viommu_model='virtio' if viommu == 'auto' else viommu,
        locked_memory=locked,
        packed_ring=unique(extra_specs, props, 'hw:virtio_packed_ring',
                           'hw_virtio_packed_ring', flavor_bool),
        sound_model=unique(extra_specs, props, 'hw:sound_model', 'hw_sound_model',
                           one_of(fields.SoundModelType.ALL)),
        usb_model=usb_model, redirected_usb_ports=redirected or None,
        maxphysaddr_mode=mode, maxphysaddr_bits=bits,
        realtime_cpus=realtime_request(vcpus, extra_specs, props, topology.cpu_policy),
        cpu_model=extra_specs.get('hw:cpu_model'),
        os_type=props.get('os_type'),
        mem_encryption=bool(encryption),
        cpu_quotas=cpu_quota_request(extra_specs),
        disk_quotas=disk_quota_request(extra_specs))
