"""The guest NUMA topology a defined domain carries, as the record the topology API shows."""

from xml.etree import ElementTree as etree

from nova.objects import image_meta as image_meta_obj
from nova.virt import hardware
from nova.virt.guest_request import validate_image_request


def _cpus(text):
    return sorted(hardware.parse_cpu_spec(text or ''))


def _kib_to_mib(value, unit):
    scale = {'b': 1 / 1024, 'bytes': 1 / 1024, 'k': 1, 'kib': 1, 'm': 1024, 'mib': 1024,
             'g': 1024 ** 2, 'gib': 1024 ** 2}.get((unit or 'KiB').lower(), 1)
    return int(int(value) * scale) // 1024


def from_domain_xml(xml, dedicated):
    """``{'cells': [...], 'pagesize_kb': int|None}`` or None (a guest without NUMA cells).

    Read from what the driver wrote (guestfeatures.apply_topology): the guest
    cells of <cpu><numa>, the host node of each from <numatune><memnode>, the
    pins of <cputune> (a vCPU's own host CPU only when ``dedicated``), the
    huge page size of <memoryBacking>, and thread siblings from <cpu><topology>.
    Each cell: id (guest node), host_node (None when not placed on a host
    node), memory_mb, vcpus, cpu_pinning {vCPU: host CPU}, siblings.
    """
    dom = etree.fromstring(xml.encode() if isinstance(xml, str) else xml)
    cells = dom.findall('./cpu/numa/cell')
    if not cells:
        return None
    host_nodes = {int(m.get('cellid')): _cpus(m.get('nodeset'))
                  for m in dom.findall('./numatune/memnode')}
    pins = {int(p.get('vcpu')): _cpus(p.get('cpuset'))
            for p in dom.findall('./cputune/vcpupin')}
    topology = dom.find('./cpu/topology')
    threads = int(topology.get('threads') or 1) if topology is not None else 1
    pages = [int(p.get('size')) for p in dom.findall('./memoryBacking/hugepages/page')]
    record = []
    for cell in cells:
        cell_id = int(cell.get('id'))
        vcpus = _cpus(cell.get('cpus'))
        nodes = host_nodes.get(cell_id) or []
        pinning = {str(v): pins[v][0] for v in vcpus
                   if dedicated and len(pins.get(v) or ()) == 1}
        siblings = [vcpus[i:i + threads] for i in range(0, len(vcpus), threads)] \
            if threads > 1 else []
        record.append({'id': cell_id, 'host_node': nodes[0] if len(nodes) == 1 else None,
                       'memory_mb': _kib_to_mib(cell.get('memory'), cell.get('unit')),
                       'vcpus': vcpus, 'cpu_pinning': pinning, 'siblings': siblings})
    return {'cells': record, 'pagesize_kb': max(pages) if pages else None}


def of_guest(guest, instance):
    """The record for a defined guest of ``instance`` (a libvirt Guest), or None."""
    props = image_meta_obj.ImageMeta.from_instance(instance).properties
    request = validate_image_request(instance.flavor, props)
    return from_domain_xml(guest.get_xml_desc(), request.topology.dedicated)
