"""Flavor + image properties -> what the guest asks for, checked without a hypervisor."""

# Driver-neutral, so the compute API refuses a conflicting request with a 400
# before anything exists; the libvirt driver builds the guest from the same
# GuestRequest.

import dataclasses

from oslo_utils import strutils

from nova import exception
from nova.objects import image_meta as image_meta_obj
from nova.virt import cpu_topology, hardware, hw_constraints, property_registry

SPEC_BOOT_MENU = 'hw:boot_menu'
SPEC_VIDEO_RAM_MAX = 'hw_video:ram_max_mb'   # upstream's (odd) key


@dataclasses.dataclass(frozen=True)
class GuestRequest:
    """Everything a flavor + image ask of the guest, already checked."""

    topology: hardware.GuestTopology
    boot_menu: bool = None
    video_model: str = None
    video_ram_mb: int = None
    cpu: cpu_topology.TopologyRequest = None
    devices: hw_constraints.DeviceRequest = hw_constraints.DeviceRequest()


# ------------------------------------------------------------------ inputs

def typed_props(props):
    """ImageMetaProps as is; a Glance-style dict coerced (bad values raise)."""
    if props is None:
        return image_meta_obj.ImageMetaProps()
    if isinstance(props, image_meta_obj.ImageMetaProps):
        return props
    return image_meta_obj.ImageMetaProps.from_dict(dict(props))


def _flavor_value(flavor, name):
    # The API holds flavors as dicts, the compute side as objects.
    if isinstance(flavor, dict):
        return flavor.get(name)
    return getattr(flavor, name, None)


def boot_menu_request(extra_specs, props):
    """True/False/None: the image's hw_boot_menu wins over hw:boot_menu."""
    image = props.get('hw_boot_menu')
    if image is not None:
        return image
    raw = extra_specs.get(SPEC_BOOT_MENU)
    if raw is None:
        return None
    try:
        return strutils.bool_from_string(raw, strict=True)
    except ValueError:
        raise exception.Invalid(
            reason='flavor extra spec %s=%r must be a boolean'
                   % (SPEC_BOOT_MENU, raw))


def video_request(extra_specs, props):
    """(model, ram MiB): the RAM must fit the flavor's hw_video:ram_max_mb."""
    model = props.get('hw_video_model')
    ram = props.get('hw_video_ram')
    if ram is None:
        return model, None
    if ram < 1:
        raise exception.Invalid(
            reason='image property hw_video_ram=%d must be a positive '
                   'number of MiB' % ram)
    if model == 'none':
        raise exception.Invalid(
            reason='image property hw_video_ram needs a video device, but '
                   'hw_video_model=none')
    raw_max = extra_specs.get(SPEC_VIDEO_RAM_MAX)
    try:
        max_mb = int(raw_max) if raw_max is not None else 0
    except ValueError:
        raise exception.Invalid(
            reason='flavor extra spec %s=%r must be an integer'
                   % (SPEC_VIDEO_RAM_MAX, raw_max))
    if ram > max_mb:
        raise exception.Invalid(
            reason='image property hw_video_ram=%d MiB exceeds the '
                   'flavor\'s %s=%s' % (ram, SPEC_VIDEO_RAM_MAX,
                                        raw_max if raw_max is not None
                                        else '(unset, i.e. 0)'))
    return model, ram


def vm_mode_request(props):
    mode = props.get('hw_vm_mode')
    if mode not in (None, 'hvm'):
        raise exception.Invalid(
            reason='image property hw_vm_mode=%s is not supported: the libvirt driver '
                   'runs hvm guests' % mode)


def emulator_threads_request(extra_specs, cpu_policy):
    policy = extra_specs.get(hw_constraints.EMULATOR_THREADS)
    if policy is None:
        return
    if cpu_policy != hardware.CPU_DEDICATED:
        raise exception.Invalid(
            reason='flavor extra spec %s needs dedicated CPUs (hw:cpu_policy=dedicated)'
                   % hw_constraints.EMULATOR_THREADS)
    if policy != 'share':
        raise exception.Invalid(
            reason='flavor extra spec %s=%s is not supported: no host CPU is set aside '
                   'for emulator threads (share runs them on the guest\'s CPUs)'
                   % (hw_constraints.EMULATOR_THREADS, policy))


def validate_image_request(flavor, image_props):
    """Check a flavor + image properties combination; return the request.

    For the API, before anything is created: ``flavor`` is a dict or an
    object with vcpus, memory_mb and extra_specs; ``image_props`` the
    merged image properties (Glance-style dict, boot-time overrides
    applied) or an ImageMetaProps.  Raises exception.Invalid (HTTP 400)
    with a message naming the property and the rule it breaks.
    """
    props = typed_props(image_props)
    extra_specs = _flavor_value(flavor, 'extra_specs') or {}
    vcpus = _flavor_value(flavor, 'vcpus')
    property_registry.check_refused(extra_specs, props)
    vm_mode_request(props)
    topology = hardware.get_guest_topology(
        vcpus, _flavor_value(flavor, 'memory_mb'), extra_specs, props)
    emulator_threads_request(extra_specs, topology.cpu_policy)
    model, ram = video_request(extra_specs, props)
    return GuestRequest(topology=topology,
                        boot_menu=boot_menu_request(extra_specs, props),
                        video_model=model, video_ram_mb=ram,
                        cpu=cpu_topology.get_topology_request(
                            vcpus, extra_specs, props),
                        devices=hw_constraints.device_request(
                            vcpus, extra_specs, props, topology))
