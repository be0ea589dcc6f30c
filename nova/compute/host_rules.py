"""Static host rules the API applies before accepting a request (no driver imports)."""

from nova import exception
from nova.db import api as db_api
from nova.virt import disk_buses, guest_request


def _listed(caps, key):
    value = caps.get(key)
    return None if value is None else set(filter(None, str(value).split(',')))


def hardware_requirements(image, flavor):
    """What the image (and flavor) need of a host, as (what, check(caps))
    pairs; ``check`` says why a host's node record cannot, or None."""
    props = guest_request.typed_props((image or {}).get('properties') or {})
    specs = (flavor or {}).get('extra_specs') or {}
    needs = []
    machine = props.get('hw_machine_type')

    def machine_of(caps):
        return machine or caps.get('machine_type') or 'pc'

    if machine:
        def known(caps):
            names = _listed(caps, 'machine_types')
            if names is not None and machine not in names:
                return "QEMU here knows no machine type %r" % machine
        needs.append(known)
    arch = props.get('hw_emulation_architecture')
    if arch:
        def emulates(caps):
            arches = _listed(caps, 'guest_arches')
            if arches is not None and arch not in arches:
                return 'no QEMU for %s guests is installed (it runs: %s)' % (
                    arch, ', '.join(sorted(arches)))
        needs.append(emulates)
    if props.get('hw_tpm_version') or specs.get('hw:tpm_version'):
        def tpm(caps):
            if caps.get('vtpm') is False:
                return 'no vTPM: %s' % (
                    caps.get('vtpm_reason') or '[libvirt]swtpm_enabled is off or swtpm is missing')
        needs.append(tpm)
    if props.get('hw_mem_encryption') or str(specs.get('hw:mem_encryption', '')).lower() in (
            'true', 'yes', '1', 'on'):
        def sev(caps):
            if not caps.get('sev'):
                return 'no AMD SEV memory encryption'
        needs.append(sev)
    if props.get('hw_firmware_type') == 'uefi':
        secure = (props.get('os_secure_boot') or specs.get('os:secure_boot')) == 'required'
        key = 'secure_boot_machines' if secure else 'uefi_machines'

        def uefi(caps):
            names = _listed(caps, key)
            if names is not None and machine_of(caps) not in names:
                return 'no UEFI firmware%s for machine type %s (it has one for: %s)' % (
                    ' with secure boot' if secure else '', machine_of(caps),
                    ', '.join(sorted(n for n in names if '-' not in n)) or 'none')
        needs.append(uefi)
    return needs


def check_buses_somewhere(conf, db, image, flavor=None):
    """Invalid (400) when no live compute host could honour the image's
    disk buses and hardware (machine type, emulated architecture, vTPM,
    SEV, UEFI and secure boot).

    Each host reports its virt type, default machine type and what its
    QEMU and firmware offer in its node record; a request that no reporting
    host can do (``hw_disk_bus=xen`` on qemu/kvm, ``ide`` on q35, a machine
    type QEMU does not know) would otherwise be accepted and fail on the
    host. Hosts that report nothing are not judged.
    """
    props = image.get('properties') or {}
    buses = any(props.get(p) for p in disk_buses.BUS_PROPERTY.values())
    needs = hardware_requirements(image, flavor)
    if not buses and not needs:
        return
    up_since = db_api.utcnow_minus(conf.service_down_time)
    first_error = None
    for node in db.compute_nodes_with_room(0, 0, 0, up_since):
        caps = node.get('capabilities') or {}
        if not caps.get('virt_type'):
            continue
        try:
            if buses:
                disk_buses.check_image_buses(caps['virt_type'], props, caps.get('machine_type'))
            for need in needs:
                reason = need(caps)
                if reason:
                    raise exception.Invalid(reason=reason)
            return
        except exception.Invalid as exc:
            first_error = first_error or exc
    if first_error is not None:
        raise exception.Invalid(reason='No compute host can honour the image properties: %s'
                                % first_error.format_message())
