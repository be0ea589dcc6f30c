"""The NUMA parts of a domain's XML read back as plain objects (what numa_record reports)."""

import dataclasses
from xml.etree import ElementTree as etree

from nova.virt import hardware

_UNIT_KIB = {'b': 1 / 1024, 'bytes': 1 / 1024, 'k': 1, 'kib': 1, 'm': 1024, 'mib': 1024,
             'g': 1024 ** 2, 'gib': 1024 ** 2}


def _cpus(text):
    return tuple(sorted(hardware.parse_cpu_spec(text or '')))


@dataclasses.dataclass(frozen=True)
class DomainNUMA:
    """<cpu><numa><cell>s, <cpu><topology threads>, <cputune><vcpupin>s,
    <numatune><memnode>s and <memoryBacking><hugepages><page> sizes.

    ``cells``: ((id, vCPUs, memory KiB), ...); ``memnodes``: {cell id: host
    nodes}; ``pins``: {vCPU: host CPUs}; ``page_sizes_kib``: huge page sizes.
    """

    cells: tuple = ()
    threads: int = 1
    pins: dict = dataclasses.field(default_factory=dict)
    memnodes: dict = dataclasses.field(default_factory=dict)
    page_sizes_kib: tuple = ()

    @classmethod
    def from_xml(cls, xml):
        dom = etree.fromstring(xml.encode() if isinstance(xml, str) else xml)
        cells = tuple((int(c.get('id')), _cpus(c.get('cpus')),
                       int(int(c.get('memory')) * _UNIT_KIB.get(
                           (c.get('unit') or 'KiB').lower(), 1)))
                      for c in dom.findall('./cpu/numa/cell'))
        topology = dom.find('./cpu/topology')
        threads = int(topology.get('threads') or 1) if topology is not None else 1
        return cls(cells=cells, threads=threads,
                   pins={int(p.get('vcpu')): _cpus(p.get('cpuset'))
                         for p in dom.findall('./cputune/vcpupin')},
                   memnodes={int(m.get('cellid')): _cpus(m.get('nodeset'))
                             for m in dom.findall('./numatune/memnode')},
                   page_sizes_kib=tuple(int(p.get('size')) for p in
                                        dom.findall('./memoryBacking/hugepages/page')))
