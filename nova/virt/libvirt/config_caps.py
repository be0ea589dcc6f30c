"""libvirt capability XML read into objects: <capabilities> and <domainCapabilities>."""

from nova.virt.libvirt.config_base import ConfigObject, _int


class DomainCapabilities(ConfigObject):
    """<domainCapabilities>: the device enums the driver checks against.

    ``disk``: {'bus': (...), 'diskDevice': (...)} from devices/disk, None
    when the element is absent; ``video_models``: devices/video modelType
    values, None when not listed.
    """

    root_name = 'domainCapabilities'
    machine = None
    arch = None
    disk = None
    video_models = None

    def parse_dom(self, xmldoc):
        self.machine = xmldoc.findtext('machine')
        self.arch = xmldoc.findtext('arch')
        disk = xmldoc.find('devices/disk')
        if disk is not None:
            self.disk = {enum.get('name'): tuple(v.text for v in
                                                 enum.findall('value'))
                         for enum in disk.findall('enum')}
        values = xmldoc.findall("devices/video/enum[@name='modelType']/value")
        if values:
            self.video_models = frozenset(v.text for v in values)
        return self


class CapsNUMACell(ConfigObject):
    """<cell> of host/topology/cells: CPUs, memory, page pools."""

    root_name = 'cell'
    id = None
    memory_kib = 0
    cpus = ()                   # ((id, siblings text or None), ...)
    pages = ()                  # ((size KiB, count), ...)

    def parse_dom(self, xmldoc):
        self.id = int(xmldoc.get('id'))
        memory = xmldoc.find('memory')
        if memory is not None:
            self.memory_kib = int(memory.text) * _UNITS_KIB.get(
                memory.get('unit', 'KiB'), 1)
        self.pages = tuple((int(p.get('size')) * _UNITS_KIB.get(
            p.get('unit', 'KiB'), 1), int(p.text))
            for p in xmldoc.findall('pages'))
        self.cpus = tuple((int(c.get('id')), c.get('siblings'))
                          for c in xmldoc.findall('cpus/cpu'))
        return self


_UNITS_KIB = {'KiB': 1, 'MiB': 1024, 'GiB': 1024 * 1024}


class Capabilities(ConfigObject):
    """<capabilities>: host identity and CPU, NUMA cells and the guest
    domain types."""

    root_name = 'capabilities'
    host_uuid = None            # the daemon's host UUID (host/uuid)
    arch = None
    cpu_model = None
    cpu_vendor = None
    sockets = None
    cores = None
    threads = None
    features = ()
    numa_cells_num = None
    cells = ()                  # CapsNUMACell, one per host NUMA node
    page_sizes_kib = ()
    guest_domain_types = None   # {arch: (domain types)}
    machines = None             # {arch: {machine or alias: canonical machine}}

    def parse_dom(self, xmldoc):
        self.host_uuid = xmldoc.findtext('host/uuid')
        cpu = xmldoc.find('host/cpu')
        if cpu is not None:
            self.arch = cpu.findtext('arch')
            self.cpu_model = cpu.findtext('model')
            self.cpu_vendor = cpu.findtext('vendor')
            topo = cpu.find('topology')
            if topo is not None:
                self.sockets = _int(topo.get('sockets') or None)
                self.cores = _int(topo.get('cores') or None)
                self.threads = _int(topo.get('threads') or None)
            self.features = tuple(f.get('name')
                                  for f in cpu.findall('feature'))
            self.page_sizes_kib = tuple(int(p.get('size'))
                                        for p in cpu.findall('pages'))
        cells = xmldoc.find('host/topology/cells')
        if cells is not None:
            self.numa_cells_num = _int(cells.get('num') or None)
            self.cells = tuple(CapsNUMACell().parse_dom(cell)
                               for cell in cells.findall('cell'))
        guests, self.machines = {}, {}
        for arch in xmldoc.findall('guest/arch'):
            types = guests.setdefault(arch.get('name'), set())
            types.update(d.get('type') for d in arch.findall('domain'))
            names = self.machines.setdefault(arch.get('name'), {})
            for machine in arch.iter('machine'):
                if machine.text:
                    names[machine.text] = machine.get('canonical') or machine.text
        self.guest_domain_types = {k: tuple(sorted(v))
                                   for k, v in guests.items()}
        return self
