"""Image metadata objects: ImageMeta and its typed properties, ImageMetaProps."""

import json
import re

from nova import exception
from nova.image import sysmeta
from nova.objects import base, fields

# Most guest NUMA nodes an image can describe with hw_numa_*.N keys.
NUMA_NODES_MAX = 128

TRAIT_PREFIX = 'trait:'
TRAIT_REQUIRED = 'required'

_NUMA_KEY_RE = re.compile(r'^(hw_numa_cpus|hw_numa_mem)\.(0|[1-9][0-9]*)$')
# Placement's trait name syntax; only checked when validating strictly.
_TRAIT_KEY_RE = re.compile(r'^trait:[A-Z0-9_]+$')
_CPU_RANGE_RE = re.compile(r'^(\^)?(\d+)(?:-(\d+))?$')

# Property names older images (and other clouds) use, mapped to the field
# that now holds the value. When both are given the field name wins.
LEGACY_ALIASES = {
    'architecture': 'hw_architecture',
    'auto_disk_config': 'hw_auto_disk_config',
    'bdm_v2': 'img_bdm_v2',
    'bittorrent': 'img_bittorrent',
    'block_device_mapping': 'img_block_device_mapping',
    'cache_in_nova': 'img_cache_in_nova',
    'hypervisor_type': 'img_hv_type',
    'hypervisor_version_requires': 'img_hv_requested_version',
    'ipxe_boot': 'hw_ipxe_boot',
    'mappings': 'img_mappings',
    'owner_id': 'img_owner_id',
    'root_device_name': 'img_root_device_name',
    'vm_mode': 'hw_vm_mode',
    'vmware_disktype': 'hw_disk_type',
    'vmware_image_version': 'img_version',
    'vmware_linked_clone': 'img_linked_clone',
    'vmware_ostype': 'os_distro',
    'xenapi_device_id': 'hw_device_id',
    'xenapi_image_compression_level': 'img_compression_level',
    'xenapi_skip_agent_inject_files_at_boot':
        'os_skip_agent_inject_files_at_boot',
    'xenapi_skip_agent_inject_ssh': 'os_skip_agent_inject_ssh',
    'xenapi_use_agent': 'img_use_agent',
    # The boot-time override spec names the kernel command line this way.
    'hw_os_command_line': 'os_command_line',
}

# Legacy VMware key that sets two fields at once (see _adapter_type_fields).
VMWARE_ADAPTER_TYPE = 'vmware_adaptertype'

_NUMA_FIELDS = ('hw_numa_cpus', 'hw_numa_mem')
_TRAITS_FIELD = 'traits_required'
# List fields that Glance spells as several keys; a plain string under the
# field's own name is a mistake worth explaining.
_PATTERN_ONLY = {
    'hw_numa_cpus': 'use hw_numa_cpus.N keys, one per NUMA node',
    'hw_numa_mem': 'use hw_numa_mem.N keys, one per NUMA node',
    'traits_required': 'use trait:NAME=required keys',
}
# Stored in Glance as JSON text, held here as lists of dicts.
_JSON_FIELDS = ('img_block_device_mapping', 'img_mappings')

_TYPE_REASONS = {
    fields.IntegerField: 'must be an integer',
    fields.ListOfDictOfNullableStringsField: 'must be a JSON list of objects',
    fields.VersionPredicateField: "must be a version predicate such as '>=2.6'",
}


def parse_cpu_spec(spec):
    """Parse a CPU list such as ``0-3,^2,5`` into a set of CPU numbers."""
    include, exclude = set(), set()
    for part in str(spec).split(','):
        match = _CPU_RANGE_RE.match(part.strip())
        if not match:
            raise ValueError('must be a CPU list such as 0-1,3')
        negate, first, last = match.groups()
        first = int(first)
        last = int(last) if last is not None else first
        if last < first:
            raise ValueError('must be a CPU list such as 0-1,3')
        (exclude if negate else include).update(range(first, last + 1))
    cpus = include - exclude
    if not cpus:
        raise ValueError('must name at least one CPU')
    return cpus


def format_cpu_spec(cpus):
    """Format a set of CPU numbers as a compact list such as ``0-1,3``."""
    parts = []
    ordered = sorted(cpus)
    start = prev = ordered[0]
    for cpu in ordered[1:] + [None]:
        if cpu is not None and cpu == prev + 1:
            prev = cpu
            continue
        parts.append(str(start) if start == prev else '%d-%d' % (start, prev))
        start = prev = cpu
    return ','.join(parts)


def _invalid(key, value, reason):
    return exception.InvalidImageProperty(key=key, value=value, reason=reason)


@base.NovaObjectRegistry.register
class ImageMetaProps(base.NovaObject):
    """Typed image properties.

    Prefixes: ``hw_`` shapes the guest's virtual hardware, ``img_`` how the
    compute host handles the image, ``os_`` the guest operating system.
    """

    # Version 1.0: Initial version: every property of upstream Nova's
    #              ImageMetaProps 1.41, plus hw_mem_encryption_model,
    #              hw_usb_model and hw_redirected_usb_ports.
    VERSION = '1.0'

    NUMA_NODES_MAX = NUMA_NODES_MAX

    fields = {
        # guest CPU architecture, e.g. x86_64, aarch64
        'hw_architecture': fields.ArchitectureField(),
        # architecture to emulate when it differs from the host's
        'hw_emulation_architecture': fields.ArchitectureField(),
        # whether to grow the root partition and filesystem to the disk size
        'hw_auto_disk_config': fields.StringField(),
        # show the firmware boot menu
        'hw_boot_menu': fields.FlexibleBooleanField(),
        'hw_cdrom_bus': fields.DiskBusField(),
        # preferred and maximum guest CPU topology
        'hw_cpu_cores': fields.IntegerField(),
        'hw_cpu_sockets': fields.IntegerField(),
        'hw_cpu_threads': fields.IntegerField(),
        'hw_cpu_max_cores': fields.IntegerField(),
        'hw_cpu_max_sockets': fields.IntegerField(),
        'hw_cpu_max_threads': fields.IntegerField(),
        'hw_cpu_policy': fields.CPUAllocationPolicyField(),
        'hw_cpu_thread_policy': fields.CPUThreadAllocationPolicyField(),
        # vCPUs with a realtime policy, e.g. ^0-1 for all but 0 and 1
        'hw_cpu_realtime_mask': fields.StringField(),
        # guest ABI version for Xen PV tools
        'hw_device_id': fields.IntegerField(),
        'hw_disk_bus': fields.DiskBusField(),
        # allocation mode such as 'preallocated'
        'hw_disk_type': fields.StringField(),
        'hw_ephemeral_encryption': fields.FlexibleBooleanField(),
        'hw_ephemeral_encryption_format':
            fields.BlockDeviceEncryptionFormatTypeField(),
        # key manager secret holding the passphrase of an encrypted image
        'hw_ephemeral_encryption_secret_uuid': fields.UUIDField(),
        'hw_firmware_stateless': fields.FlexibleBooleanField(),
        'hw_firmware_type': fields.FirmwareTypeField(),
        'hw_floppy_bus': fields.DiskBusField(),
        'hw_input_bus': fields.InputBusField(),
        # give the guest an iPXE network boot image
        'hw_ipxe_boot': fields.FlexibleBooleanField(),
        # lock guest memory so the host never swaps it out
        'hw_locked_memory': fields.FlexibleBooleanField(),
        # free-form: QEMU has too many machine types to enumerate
        'hw_machine_type': fields.StringField(),
        # physical address bits mode and width seen by the guest
        'hw_maxphysaddr_bits': fields.IntegerField(),
        'hw_maxphysaddr_mode': fields.MaxPhysAddrModeField(),
        'hw_mem_encryption': fields.FlexibleBooleanField(),
        'hw_mem_encryption_model': fields.MemEncryptionModelField(),
        # 'small', 'large', 'any' or a page size in KiB
        'hw_mem_page_size': fields.StringField(),
        'hw_numa_nodes': fields.IntegerField(),
        # one entry per guest NUMA node: its CPUs, and its memory in MiB;
        # stored in Glance as hw_numa_cpus.N / hw_numa_mem.N
        'hw_numa_cpus': fields.ListOfSetsOfIntegersField(),
        'hw_numa_mem': fields.ListOfIntegersField(),
        'hw_pci_numa_affinity_policy': fields.PCINUMAAffinityPolicyField(),
        'hw_pmu': fields.FlexibleBooleanField(),
        'hw_pointer_model': fields.PointerModelField(),
        'hw_qemu_guest_agent': fields.FlexibleBooleanField(),
        # number of USB redirection channels for SPICE clients
        'hw_redirected_usb_ports': fields.IntegerField(),
        # where stable-device rescue attaches the rescue image
        'hw_rescue_bus': fields.DiskBusField(),
        'hw_rescue_device': fields.BlockDeviceTypeField(),
        'hw_rng_model': fields.RNGModelField(),
        'hw_scsi_model': fields.SCSIModelField(),
        'hw_serial_port_count': fields.IntegerField(),
        'hw_sound_model': fields.SoundModelField(),
        'hw_time_hpet': fields.FlexibleBooleanField(),
        'hw_tpm_model': fields.TPMModelField(),
        'hw_tpm_secret_security': fields.TPMSecretSecurityField(),
        'hw_tpm_version': fields.TPMVersionField(),
        'hw_usb_model': fields.USBControllerModelField(),
        'hw_video_model': fields.VideoModelField(),
        # MiB of video RAM
        'hw_video_ram': fields.IntegerField(),
        'hw_vif_model': fields.VIFModelField(),
        'hw_vif_multiqueue_enabled': fields.FlexibleBooleanField(),
        'hw_viommu_model': fields.VIOMMUModelField(),
        'hw_virtio_packed_ring': fields.FlexibleBooleanField(),
        'hw_vm_mode': fields.VMModeField(),
        'hw_watchdog_action': fields.WatchdogActionField(),
        # whether img_block_device_mapping uses the v2 format
        'img_bdm_v2': fields.FlexibleBooleanField(),
        'img_bittorrent': fields.FlexibleBooleanField(),
        # block device mappings in one of two formats, hence untyped dicts
        'img_block_device_mapping': fields.ListOfDictOfNullableStringsField(),
        # with the "some" image cache policy: cache this image on the host
        'img_cache_in_nova': fields.FlexibleBooleanField(),
        'img_compression_level': fields.IntegerField(),
        'img_config_drive': fields.ConfigDrivePolicyField(),
        'img_hide_hypervisor_id': fields.FlexibleBooleanField(),
        # hypervisor version predicate, e.g. '>=2.6'
        'img_hv_requested_version': fields.VersionPredicateField(),
        'img_hv_type': fields.HVTypeField(),
        'img_linked_clone': fields.FlexibleBooleanField(),
        # virtual device names mapped to guest device names
        'img_mappings': fields.ListOfDictOfNullableStringsField(),
        # project that uploaded the image
        'img_owner_id': fields.StringField(),
        'img_root_device_name': fields.StringField(),
        # signature verification: signature, hash, key type, certificate
        'img_signature': fields.StringField(),
        'img_signature_certificate_uuid': fields.UUIDField(),
        'img_signature_hash_method': fields.ImageSignatureHashTypeField(),
        'img_signature_key_type': fields.ImageSignatureKeyTypeField(),
        'img_use_agent': fields.FlexibleBooleanField(),
        'img_version': fields.IntegerField(),
        'os_admin_user': fields.StringField(),
        # kernel command line for a kernel+initrd boot
        'os_command_line': fields.StringField(),
        # free-form: the list of distributions grows too fast for an enum
        'os_distro': fields.StringField(),
        # refuse snapshots unless the guest can quiesce its disks
        'os_require_quiesce': fields.FlexibleBooleanField(),
        'os_secure_boot': fields.SecureBootField(),
        'os_skip_agent_inject_files_at_boot': fields.FlexibleBooleanField(),
        'os_skip_agent_inject_ssh': fields.FlexibleBooleanField(),
        'os_type': fields.OSTypeField(),
        # traits the host must have; stored as trait:NAME=required keys
        'traits_required': fields.ListOfStringsField(),
    }

    @classmethod
    def valid_keys(cls):
        """Every property name accepted as a plain key, aliases included.

        The indexed NUMA keys and ``trait:`` keys are patterns; use
        :meth:`is_valid_key` for those.
        """
        return _VALID_KEYS

    @classmethod
    def is_valid_key(cls, key):
        """Whether ``key`` names an image property we understand."""
        if key in _VALID_KEYS or _TRAIT_KEY_RE.match(key):
            return True
        match = _NUMA_KEY_RE.match(key)
        return bool(match) and int(match.group(2)) < NUMA_NODES_MAX

    @classmethod
    def from_dict(cls, props, strict=False):
        """Build from Glance-style properties (strings or typed values).

        Legacy names map onto their field; a field's own name wins over an
        alias. Unknown keys are ignored unless ``strict``, because Glance
        images carry arbitrary properties. ``strict`` is True, or the keys
        held to it (a user's overrides among an image's properties). Raises
        InvalidImageProperty for a value that does not fit its field.
        """
        obj = cls()
        is_strict = _strictness(strict)
        scalars, numa, traits = _classify(props or {}, is_strict)
        for name, (key, value) in scalars.items():
            obj._set_field(name, key, value)
        for name, entries in numa.items():
            obj._set_numa(name, entries,
                          any(is_strict('%s.%d' % (name, i)) for i in entries))
        if traits:
            obj.traits_required = sorted(set(traits))
        return obj

    def to_dict(self):
        """Return the set properties as Glance-style strings under canonical keys.

        Booleans become 'True'/'False' (what str() and system metadata use),
        NUMA lists hw_numa_cpus.N / hw_numa_mem.N keys, required traits
        trait:NAME='required' keys and block device mappings JSON text.
        """
        result = {}
        for name in self.fields:
            if self.obj_attr_is_set(name):
                result.update(_serialize(name, getattr(self, name)))
        return result

    def get(self, name, default=None):
        """Return the property's value if set, else ``default``."""
        name = LEGACY_ALIASES.get(name, name)
        if name not in self.fields or not self.obj_attr_is_set(name):
            return default
        return getattr(self, name)

    def _set_field(self, name, key, value):
        if name in _JSON_FIELDS and isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                raise _invalid(key, value, _TYPE_REASONS[type(self.fields[name])])
        try:
            setattr(self, name, value)
        except (ValueError, TypeError) as e:
            reason = _TYPE_REASONS.get(type(self.fields[name]), str(e))
            raise _invalid(key, value, reason)

    def _set_numa(self, name, entries, strict):
        count = _contiguous_count(entries)
        if strict and count != len(entries):
            bad = min(i for i in entries if i >= count)
            raise _invalid('%s.%d' % (name, bad), entries[bad],
                           'NUMA node indices must count up from 0 without '
                           'gaps, at most %d nodes' % NUMA_NODES_MAX)
        parse = _parse_numa_cpus if name == 'hw_numa_cpus' else int
        values = []
        for index in range(count):
            try:
                values.append(parse(entries[index]))
            except (ValueError, TypeError) as e:
                reason = str(e) if name == 'hw_numa_cpus' else \
                    'must be an integer (MiB)'
                raise _invalid('%s.%d' % (name, index), entries[index], reason)
        if values:
            setattr(self, name, values)


# Plain (non-pattern) keys: the fields set from a key of their own name,
# the aliases, and the VMware adapter type.
_VALID_KEYS = frozenset(
    (set(ImageMetaProps.fields) - set(_NUMA_FIELDS) - {_TRAITS_FIELD})
    | set(LEGACY_ALIASES) | {VMWARE_ADAPTER_TYPE})


def _strictness(strict):
    """A test of whether a key is held strictly: ``strict`` is a bool or a set of keys."""
    if isinstance(strict, bool) or strict is None:
        return lambda _key: bool(strict)
    keys = frozenset(strict)
    return keys.__contains__


def _classify(props, is_strict):
    """Sort raw properties into per-field values, NUMA entries and traits.

    Returns ``(scalars, numa, traits)`` where ``scalars`` maps a field to
    the ``(given_key, value)`` that sets it. ``is_strict(key)``: whether an
    unknown or pattern-only key raises.
    """
    scalars = {}
    numa = {name: {} for name in _NUMA_FIELDS}
    traits = []
    fields_ = ImageMetaProps.fields
    # Aliases first, so a field's own name overwrites them.
    for key in sorted(props, key=lambda k: k in fields_):
        value = props[key]
        if value is None:
            continue
        if key in _PATTERN_ONLY and isinstance(value, str):
            if is_strict(key):
                raise _invalid(key, value, _PATTERN_ONLY[key])
        elif key in fields_:
            scalars[key] = (key, value)
        elif key in LEGACY_ALIASES:
            scalars[LEGACY_ALIASES[key]] = (key, value)
        elif key == VMWARE_ADAPTER_TYPE:
            scalars.update(_adapter_type_fields(value))
        elif _NUMA_KEY_RE.match(key):
            name, index = _NUMA_KEY_RE.match(key).groups()
            numa[name][int(index)] = value
        elif key.startswith(TRAIT_PREFIX):
            _classify_trait(key, value, is_strict(key), traits)
        elif is_strict(key):
            raise _invalid(key, value, 'unknown image property')
    return scalars, numa, traits


def _adapter_type_fields(value):
    # VMware named either the IDE bus or a SCSI controller model here.
    if not value:
        return {}
    key = VMWARE_ADAPTER_TYPE
    if value == 'ide':
        return {'hw_disk_bus': (key, 'ide')}
    return {'hw_disk_bus': (key, 'scsi'), 'hw_scsi_model': (key, value)}


def _classify_trait(key, value, strict, traits):
    if strict and not _TRAIT_KEY_RE.match(key):
        raise _invalid(key, value, 'trait names use only A-Z, 0-9 and _')
    if str(value) == TRAIT_REQUIRED:
        traits.append(key[len(TRAIT_PREFIX):])
    elif strict:
        raise _invalid(key, value, "the only supported value is 'required'")


def _contiguous_count(entries):
    count = 0
    while count in entries and count < NUMA_NODES_MAX:
        count += 1
    return count


def _parse_numa_cpus(value):
    if isinstance(value, str):
        return parse_cpu_spec(value)
    return {int(cpu) for cpu in value}


def _serialize(name, value):
    """Return the Glance-style key/value pairs for one set field."""
    if name == 'hw_numa_cpus':
        return {'%s.%d' % (name, i): format_cpu_spec(cpus)
                for i, cpus in enumerate(value)}
    if name == 'hw_numa_mem':
        return {'%s.%d' % (name, i): str(mem) for i, mem in enumerate(value)}
    if name == _TRAITS_FIELD:
        return {TRAIT_PREFIX + trait: TRAIT_REQUIRED for trait in value}
    if name in _JSON_FIELDS:
        return {name: json.dumps([dict(entry) for entry in value])}
    return {name: str(value)}


_UNSAFE_VALUE = re.compile('[\x00-\x1f\x7f"\'`\\\\]')


def check_user_values(props):
    """InvalidImageProperty unless every value a user gives is a plain string."""
    for key, value in props.items():
        if not isinstance(value, str):
            raise _invalid(key, value, 'value must be a string')
        if _UNSAFE_VALUE.search(value):
            # They end up in the guest's domain XML, config drive and command
            # lines on the host, where they fail after the API said yes.
            raise _invalid(key, value, 'control characters and quotes are not allowed')


def normalize_props(props, strict=True):
    """Validate user-supplied properties; return them as canonical strings.

    For nova-manage's property tools: every value must be a string, and
    (when ``strict``) every key a known property name or alias.
    """
    check_user_values(props)
    return ImageMetaProps.from_dict(props, strict=strict).to_dict()


@base.NovaObjectRegistry.register
class ImageMeta(base.NovaObject):
    """An image as the image service describes it, with typed properties."""

    # Version 1.0: Initial version: upstream Nova's ImageMeta 1.8 fields
    #              (nullable, as Glance returns null for many of them) plus
    #              os_hash_algo and os_hash_value.
    VERSION = '1.0'

    fields = {
        # A string, not a UUID field: the image service owns the format.
        'id': fields.StringField(nullable=True),
        'name': fields.StringField(nullable=True),
        'status': fields.StringField(nullable=True),
        'visibility': fields.StringField(nullable=True),
        'protected': fields.FlexibleBooleanField(nullable=True),
        'checksum': fields.StringField(nullable=True),
        'os_hash_algo': fields.StringField(nullable=True),
        'os_hash_value': fields.StringField(nullable=True),
        'owner': fields.StringField(nullable=True),
        'size': fields.IntegerField(nullable=True),
        'virtual_size': fields.IntegerField(nullable=True),
        'container_format': fields.StringField(nullable=True),
        'disk_format': fields.StringField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
        'tags': fields.ListOfStringsField(nullable=True),
        'direct_url': fields.StringField(nullable=True),
        'min_ram': fields.IntegerField(nullable=True),
        'min_disk': fields.IntegerField(nullable=True),
        'properties': fields.ObjectField('ImageMetaProps'),
    }

    @classmethod
    def from_dict(cls, image):
        """Build from a Glance v2 image or our internal form.

        Glance v2 puts custom properties beside the standard attributes;
        our internal form nests them under ``'properties'`` (which wins
        when both carry a key). Unknown keys are ignored.
        """
        image = image or {}
        properties = {}
        obj = cls()
        for key, value in image.items():
            if key == 'properties':
                continue
            if key in cls.fields:
                obj._set_field(key, value)
            else:
                properties[key] = value
        properties.update(image.get('properties') or {})
        obj.properties = ImageMetaProps.from_dict(properties)
        return obj

    @classmethod
    def from_instance(cls, instance):
        """Build from the ``image_*`` system metadata of an instance."""
        image = sysmeta.sysmeta_to_image(instance.system_metadata)
        # The image id is not kept in system metadata; the instance has it.
        if image.get('id') is None and instance.image_ref:
            image['id'] = instance.image_ref
        return cls.from_dict(image)

    def _set_field(self, name, value):
        try:
            setattr(self, name, value)
        except (ValueError, TypeError) as e:
            reason = _TYPE_REASONS.get(type(self.fields[name]), str(e))
            raise _invalid(name, value, reason)
