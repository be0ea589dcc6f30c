"""Flavor extra specs + image properties -> guest NUMA, pinning, huge pages, video, boot menu."""

import dataclasses

from nova import exception
from nova.virt import hardware, numa_fit
from nova.virt.guest_request import validate_image_request
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import config_caps, guest_devices

# What a guest gets when it asks for video RAM but names no model.
DEFAULT_VIDEO_MODEL = 'virtio'


@dataclasses.dataclass(frozen=True)
class HostInfo:
    """Host facts the decisions need; the driver reads them from libvirt.

    ``cells``: numa_fit.HostCell per host NUMA node.  ``pinned_cpus``: host
    CPUs that other guests have pinned.  ``video_models``: models domain
    capabilities list, None when unknown (test:///, no domcaps).
    """

    cells: tuple = ()
    pinned_cpus: frozenset = frozenset()
    video_models: frozenset = None


# -------------------------------------------------------------- host facts

def _parsed(cls, xml):
    """``xml`` as a ``cls`` object (XML text, a parsed XML element, or one already)."""
    return xml if isinstance(xml, cls) else cls.from_xml(xml)


def host_cells_from_capabilities(caps_xml, free_pages=None):
    """numa_fit.HostCell per <cell> of virConnectGetCapabilities XML (or a
    config_caps.Capabilities).

    ``free_pages``: {cell id: {size KiB: free count}} (virNodeGetFreePages)
    to use instead of the page totals capabilities report.
    """
    caps = _parsed(config_caps.Capabilities, caps_xml)
    cells = []
    for cell in caps.cells:
        pages = dict(cell.pages)
        pages.update((free_pages or {}).get(cell.id, {}))
        siblings = {frozenset(hardware.parse_cpu_spec(sib))
                    for _cpu, sib in cell.cpus if sib}
        cells.append(numa_fit.HostCell(
            id=cell.id,
            cpus=frozenset(cpu for cpu, _sib in cell.cpus),
            memory_kib=cell.memory_kib,
            pages=tuple(sorted(pages.items())),
            siblings=tuple(sorted(siblings, key=min))))
    return tuple(cells)


def video_models_from_domain_caps(domcaps_xml):
    """Video models <domainCapabilities> lists, or None if it says nothing."""
    if domcaps_xml is None:
        return None
    return _parsed(config_caps.DomainCapabilities, domcaps_xml).video_models


def pinned_host_cpus(domain_xmls):
    """Host CPUs other guests pin a vCPU to exclusively (a one-CPU cpuset).

    Shared NUMA guests pin vCPUs to whole host nodes; those do not own
    the CPUs, so only single-CPU pins count.
    """
    taken = set()
    for xml in domain_xmls:
        tune = vconfig.GuestDomain.from_xml(xml).cputune
        for pin in tune.vcpupins if tune is not None else ():
            cpus = hardware.parse_cpu_spec(_cpus_text(pin.cpuset))
            if len(cpus) == 1:
                taken |= cpus
    return frozenset(taken)


def _cpus_text(cpuset):
    if cpuset is None or isinstance(cpuset, str):
        return cpuset or ''
    return hardware.format_cpu_spec(cpuset)


def host_info_from_capabilities(caps_xml, domcaps_xml=None, pinned_cpus=(),
                                free_pages=None):
    """HostInfo from capabilities (+ domain capabilities) XML text."""
    return HostInfo(cells=host_cells_from_capabilities(caps_xml, free_pages),
                    pinned_cpus=frozenset(pinned_cpus),
                    video_models=video_models_from_domain_caps(domcaps_xml))


# -------------------------------------------------------------- the guest

def _no_host_facts(what):
    return exception.HypervisorError(
        reason='%s needs the host\'s NUMA topology, which the driver did not '
               'provide' % what)


def _placements(topology, host_info):
    """Host placement of each guest node, or () when host facts are absent
    and the request needs none (the guest still gets its topology)."""
    if host_info is not None and host_info.cells:
        return numa_fit.fit_guest_to_host(topology, host_info.cells,
                                          host_info.pinned_cpus)
    if topology.dedicated:
        raise _no_host_facts('hw_cpu_policy=dedicated')
    if topology.page_size == hardware.PAGE_LARGE:
        raise _no_host_facts('hw_mem_page_size=large')
    return ()


def _page_sizes(topology, placements):
    """{page size KiB: guest node ids} for the nodes on huge pages."""
    if placements:
        sizes = {}
        for place in placements:
            if place.page_size_kib is not None:
                sizes.setdefault(place.page_size_kib, set()).add(
                    place.guest_cell)
        return sizes
    if isinstance(topology.page_size, int):
        return {topology.page_size: {cell.id for cell in topology.cells}}
    return {}


def _cpu_topology(cpu, topology, placements):
    """Sockets = guest nodes when nodes are equal, contiguous vCPU ranges,
    so the guest's cores and threads line up with its NUMA nodes and, with
    'require', its thread siblings are host thread siblings."""
    cells = topology.cells
    per = len(cells[0].cpus)
    threads = {place.threads for place in placements}
    if len(threads) != 1:
        return
    threads = threads.pop()
    for cell in cells:
        if cell.cpus != frozenset(range(cell.id * per, (cell.id + 1) * per)):
            return
    if per % threads:
        return
    cpu.sockets, cpu.cores, cpu.threads = len(cells), per // threads, threads


def apply_topology(guest, topology, host_info):
    """<cpu><numa>, <memoryBacking><hugepages>, <cputune>, <numatune>."""
    if not topology.cells:
        return
    placements = _placements(topology, host_info)
    cpu = guest.cpu if guest.cpu is not None else vconfig.GuestCPU()
    cpu.numa_cells = [vconfig.GuestNUMACell(id=cell.id, cpus=cell.cpus,
                                            memory_kib=cell.memory_mb * 1024)
                      for cell in topology.cells]
    guest.cpu = cpu

    sizes = _page_sizes(topology, placements)
    if sizes:
        backing = guest.memory_backing or vconfig.GuestMemoryBacking()
        backing.hugepages = [vconfig.GuestHugepage(size_kib=size,
                                                   nodeset=nodes)
                             for size, nodes in sorted(sizes.items())]
        guest.memory_backing = backing
    if not placements:
        return

    pins = []
    for place in placements:
        if place.pinning:
            pins.extend(vconfig.GuestVCPUPin(vcpu=vcpu, cpuset={host})
                        for vcpu, host in place.pinning)
        else:
            # Shared vCPUs float, but only over their host node's CPUs.
            cell = topology.cells[place.guest_cell]
            pins.extend(vconfig.GuestVCPUPin(vcpu=vcpu,
                                             cpuset=place.host_cpus)
                        for vcpu in sorted(cell.cpus))
    pins.sort(key=lambda pin: pin.vcpu)
    # Extend what the driver may already have set (e.g. <shares>).
    tune = guest.cputune or vconfig.GuestCPUTune()
    tune.vcpupins = pins
    # QEMU's own threads stay on the guest's CPUs, off other guests' ones.
    tune.emulatorpin_cpuset = frozenset().union(*(p.host_cpus
                                                  for p in placements))
    guest.cputune = tune
    # Memory comes strictly from the host node each guest node sits on.
    guest.numatune = vconfig.GuestNUMATune(
        memory_mode='strict',
        memory_nodeset={p.host_cell for p in placements},
        memnodes=[vconfig.GuestNUMATuneMemNode(cellid=p.guest_cell,
                                               mode='strict',
                                               nodeset={p.host_cell})
                  for p in placements])
    if topology.dedicated:
        _cpu_topology(cpu, topology, placements)


def apply_video(guest, model, ram_mb, host_info):
    """One <video> device with the model (and vram) asked for."""
    if model is None and ram_mb is None:
        return
    # A video device the driver already added (QXL for SPICE) is reshaped,
    # not doubled: QEMU would show the guest two cards. Video RAM alone
    # keeps its model, as upstream.
    added = next((dev for dev in guest.devices if isinstance(dev, vconfig.GuestVideo)),
                 None)
    checked = model is not None or added is None
    model = model or (added.model if added is not None else DEFAULT_VIDEO_MODEL)
    supported = host_info.video_models if host_info is not None else None
    if checked and supported is not None and model not in supported:
        raise exception.Invalid(
            reason='image property hw_video_model=%s is not supported by '
                   'this host (it offers: %s)'
                   % (model, ', '.join(sorted(supported))))
    vram = ram_mb * 1024 if ram_mb else None
    if added is not None:
        added.model, added.vram = model, vram
    else:
        guest.devices = list(guest.devices) + [vconfig.GuestVideo(model=model, vram=vram)]


def apply(guest, settings, instance, image_meta, host_info=None, log_path=None):
    """Add what the flavor and image properties ask for to ``guest``.

    Pure: ``host_info`` (HostInfo or None) carries the host facts; without
    it the guest still gets its NUMA cells, explicit page sizes, video and
    boot menu, but pinning and 'large' pages raise HypervisorError.
    Request conflicts raise Invalid, host misfits Invalid naming the host
    node and the shortage.  Returns ``guest``.
    """
    request = validate_image_request(instance.flavor, image_meta.properties)
    if settings.domain_type == 'lxc':
        # Containers have no firmware, guest NUMA or video card.
        return guest
    apply_topology(guest, request.topology, host_info)
    if request.boot_menu is not None and guest.os is not None:
        guest.os.bootmenu = request.boot_menu
    apply_video(guest, request.video_model, request.video_ram_mb, host_info)
    # CPU model and topology, firmware, clock, features and the optional
    # devices: guest_devices (the serial port log is ``log_path``).
    guest_devices.apply(guest, settings, instance, request,
                        guest.os.machine if guest.os is not None else None, log_path)
    return guest
