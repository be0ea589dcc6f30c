"""The guest NUMA topology a defined domain carries, as the record the topology API shows."""

from nova.objects import image_meta as image_meta_obj
from nova.virt.guest_request import validate_image_request
from nova.virt.libvirt.config_numa import DomainNUMA


def from_domain_xml(xml, dedicated):
    """``{'cells': [...], 'pagesize_kb': int|None}`` or None (a guest without NUMA cells).

    Read from what the driver wrote (guestfeatures.apply_topology): the guest
    cells of <cpu><numa>, the host node of each from <numatune><memnode>, the
    pins of <cputune> (a vCPU's own host CPU only when ``dedicated``), the
    huge page size of <memoryBacking>, and thread siblings from <cpu><topology>.
    Each cell: id (guest node), host_node (None when not placed on a host
    node), memory_mb, vcpus, cpu_pinning {vCPU: host CPU}, siblings.
    """
    numa = DomainNUMA.from_xml(xml)
    if not numa.cells:
        return None
    threads = numa.threads
    record = []
    for cell_id, vcpus, memory_kib in numa.cells:
        vcpus = list(vcpus)
        nodes = numa.memnodes.get(cell_id) or ()
        pinning = {str(v): numa.pins[v][0] for v in vcpus
                   if dedicated and len(numa.pins.get(v) or ()) == 1}
        siblings = [vcpus[i:i + threads] for i in range(0, len(vcpus), threads)] \
            if threads > 1 else []
        record.append({'id': cell_id, 'host_node': nodes[0] if len(nodes) == 1 else None,
                       'memory_mb': memory_kib // 1024, 'vcpus': vcpus,
                       'cpu_pinning': pinning, 'siblings': siblings})
    pages = numa.page_sizes_kib
    return {'cells': record, 'pagesize_kb': max(pages) if pages else None}


def of_guest(guest, instance):
    """The record for a defined guest of ``instance`` (a libvirt Guest), or None."""
    props = image_meta_obj.ImageMeta.from_instance(instance).properties
    request = validate_image_request(instance.flavor, props)
    return from_domain_xml(guest.get_xml_desc(), request.topology.dedicated)
