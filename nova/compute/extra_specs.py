"""Flavor extra spec validation (microversion 2.86): known namespaces, keys and values.

A key in a namespace we know must be a registered key with a valid value;
keys without a namespace, or in a namespace we do not know, pass as upstream.
"""

import re

from oslo_utils import strutils

from nova import exception

_BOOL = ('bool', None)


def _int(minimum=None):
    return ('int', minimum)


def _enum(*options):
    return ('enum', options)


_STR = ('str', None)
_PAGE_SIZE = ('regex', r'(large|small|any|\d+([kKMGT]i?)?(b|bit|B)?)')

# (key or key regex, value rule). Mirrors upstream's registry for the namespaces
# below; the libvirt driver here honours the hw:cpu_*, hw:numa_*, hw:mem_page_size,
# hw:boot_menu and hw_video:ram_max_mb ones.
_REGISTRY = [
    ('hw:cpu_policy', _enum('shared', 'dedicated', 'mixed')),
    ('hw:cpu_thread_policy', _enum('prefer', 'isolate', 'require')),
    ('hw:emulator_threads_policy', _enum('share', 'isolate')),
    ('hw:cpu_realtime', _BOOL),
    ('hw:cpu_realtime_mask', _STR),
    ('hw:cpu_dedicated_mask', _STR),
    ('hw:cpu_sockets', _int(1)), ('hw:cpu_cores', _int(1)), ('hw:cpu_threads', _int(1)),
    ('hw:cpu_max_sockets', _int(1)), ('hw:cpu_max_cores', _int(1)),
    ('hw:cpu_max_threads', _int(1)),
    ('hw:numa_nodes', _int(1)),
    (r'hw:numa_cpus\.\d+', _STR),
    (r'hw:numa_mem\.\d+', _int(0)),
    ('hw:mem_page_size', _PAGE_SIZE),
    ('hw:hide_hypervisor_id', _BOOL),
    ('hw:watchdog_action', _enum('none', 'pause', 'poweroff', 'reset', 'disabled')),
    ('hw:boot_menu', _BOOL),
    ('hw:mem_encryption', _BOOL),
    ('hw:pmem', _STR),
    ('hw:pmu', _BOOL),
    ('hw:serial_port_count', _int(0)),
    ('hw:tpm_version', _enum('1.2', '2.0')),
    ('hw:tpm_model', _enum('tpm-tis', 'tpm-crb')),
    ('hw:vif_multiqueue_enabled', _BOOL),
    ('hw:locked_memory', _BOOL),
    ('hw:virtio_packed_ring', _BOOL),
    ('hw:maxphysaddr_mode', _enum('emulate', 'passthrough')),
    ('hw:maxphysaddr_bits', _int(1)),
    ('hw:viommu_model', _enum('intel', 'smmuv3', 'virtio', 'auto')),
    ('hw:ephemeral_encryption', _BOOL),
    ('hw:ephemeral_encryption_format', _enum('luks', 'plain')),
    ('hw:sound_model', _STR),
    ('hw:usb_model', _STR),
    ('hw:redirected_usb_ports', _int(0)),
    ('hw:cpu_model', _STR),
    ('hw_rng:allowed', _BOOL),
    ('hw_rng:rate_bytes', _int(0)),
    ('hw_rng:rate_period', _int(0)),
    ('hw_video:ram_max_mb', _int(0)),
    ('os:secure_boot', _enum('required', 'disabled', 'optional')),
    ('os:monitors', _int(1)),
    ('accel:device_profile', _STR),
    ('quota:cpu_shares', _int(0)), ('quota:cpu_period', _int(0)),
    ('quota:cpu_quota', _int()), ('quota:cpu_limit', _int(0)),
    ('quota:cpu_reservation', _int(0)),
    ('quota:cpu_shares_level', _enum('custom', 'high', 'normal', 'low')),
    ('quota:cpu_shares_share', _int(0)),
    (r'quota:(memory|disk_io|vif)_(limit|reservation|shares_share)', _int(0)),
    (r'quota:(memory|disk_io|vif)_shares_level', _enum('custom', 'high', 'normal', 'low')),
    (r'quota:disk_(read|write|total)_(bytes|iops)_sec(_max|_max_length)?', _int(0)),
    ('quota:size_iops_sec', _int(0)),
    (r'quota:vif_(inbound|outbound)_(average|peak|burst)', _int(0)),
]
_NAMESPACES = ('hw', 'hw_rng', 'hw_video', 'os', 'quota', 'accel')


def _fail(message):
    raise exception.ValidationError(detail='Validation failed; ' + message)


def _check_value(name, value, rule):
    kind, arg = rule
    if kind == 'bool':
        if strutils.bool_from_string(value, default=None) is None:
            _fail("'%s' is not a valid boolean for extra spec '%s'." % (value, name))
    elif kind == 'int':
        try:
            number = int(value)
        except ValueError:
            _fail("'%s' is not a valid integer for extra spec '%s'." % (value, name))
        if arg is not None and number < arg:
            _fail("'%s' is less than the minimum (%d) for extra spec '%s'."
                  % (value, arg, name))
    elif kind == 'enum':
        if value not in arg:
            _fail("'%s' is not one of %s for extra spec '%s'." % (value, list(arg), name))
    elif kind == 'regex' and not re.fullmatch(arg, value):
        _fail("'%s' is not valid for extra spec '%s'." % (value, name))


def validate(name, value):
    """Raise ValidationError (400) for a bad known key or value; others pass."""
    value = str(value)
    for key, rule in _REGISTRY:
        if re.fullmatch(key, name):
            _check_value(name, value, rule)
            return
    if ':' in name and name.split(':', 1)[0] in _NAMESPACES:
        _fail("extra spec '%s' does not appear to be a valid extra spec." % name)
