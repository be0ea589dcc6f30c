"""libvirt domain XML: one small class per element; they format and parse, never decide."""

# Devices live in config_devices, config_interfaces and config_chardev, the base class in
# config_base, snapshots in config_snapshot; all are re-exported here so
# callers name one module.

from xml.etree import ElementTree as etree

from nova.virt.libvirt.config_base import (  # noqa: F401 - re-exported
    ConfigObject,
    ExtraAttrs,
    RawElement,
    _bool_attr,
    _cpus,
    _int,
    _sub,
    _yes_no,
)
from nova.virt.libvirt.config_chardev import (  # noqa: F401 - re-exported
    GuestChannel,
    GuestCharDevice,
    GuestConsole,
    GuestSerial,
)
from nova.virt.libvirt.config_devices import (  # noqa: F401 - re-exported
    GuestCarriedDevice,
    GuestController,
    GuestDevice,
    GuestDeviceAddress,
    GuestDeviceAddressDrive,
    GuestDeviceAddressPCI,
    GuestDisk,
    GuestDiskBackingStore,
    GuestFilesystem,
    GuestGraphics,
    GuestHostdev,
    GuestInput,
    GuestMemBalloon,
    GuestRedirdev,
    GuestRng,
    GuestVideo,
    parse_address,
)
from nova.virt.libvirt.config_extras import (  # noqa: F401 - re-exported
    GuestFeatureHyperV,
    GuestFeatureIOAPIC,
    GuestFeatureKvmHidden,
    GuestFeatureState,
    GuestIOMMU,
    GuestMetadataKept,
    GuestNovaMetadata,
    GuestSound,
    GuestTPM,
    GuestUSBRedir,
    GuestVCPUSched,
    GuestWatchdog,
)
from nova.virt.libvirt.config_interfaces import GuestInterface  # noqa: F401 - re-exported
from nova.virt.libvirt.config_snapshot import (  # noqa: F401 - re-exported
    GuestSnapshot,
    GuestSnapshotDisk,
)

# ------------------------------------------------------------ os, cpu, memory

class GuestOS(ConfigObject):
    """<os>: type/machine, firmware, direct kernel boot, <boot dev>."""

    root_name = 'os'
    # Direct kernel boot files live in the instance directory.
    path_fields = ('kernel', 'initrd')
    type = 'hvm'
    arch = None
    machine = None
    firmware = None             # 'efi' | 'bios': libvirt auto-selection
    loader_path = None          # explicit firmware, e.g. OVMF_CODE.fd
    loader_type = None          # rom | pflash
    loader_readonly = None
    loader_secure = None
    loader_stateless = None
    nvram_path = None
    nvram_template = None
    kernel = None
    initrd = None
    cmdline = None
    boot_devs = ()              # ['hd', 'cdrom']; never with <boot order>
    bootmenu = None             # True/False/None
    extra_attrs = None          # ExtraAttrs of a parsed <os>

    def format_dom(self):
        os_ = etree.Element('os')
        if self.firmware:
            os_.set('firmware', self.firmware)
        _sub(os_, 'type', self.type, arch=self.arch, machine=self.machine)
        if self.loader_path:
            _sub(os_, 'loader', self.loader_path, type=self.loader_type,
                 readonly=(None if self.loader_readonly is None
                           else _yes_no(self.loader_readonly)),
                 secure=(None if self.loader_secure is None
                         else _yes_no(self.loader_secure)),
                stateless=(None if self.loader_stateless is None
                           else _yes_no(self.loader_stateless)))
        if self.nvram_path or self.nvram_template:
            _sub(os_, 'nvram', self.nvram_path, template=self.nvram_template)
        if self.kernel:
            _sub(os_, 'kernel', self.kernel)
        if self.initrd:
            _sub(os_, 'initrd', self.initrd)
        if self.cmdline:
            _sub(os_, 'cmdline', self.cmdline)
        for dev in self.boot_devs:
            _sub(os_, 'boot', dev=dev)
        if self.bootmenu is not None:
            _sub(os_, 'bootmenu', enable=_yes_no(self.bootmenu))
        if self.extra_attrs is not None:
            for key in ('', 'type', 'loader', 'nvram'):
                elem = os_ if not key else os_.find(key)
                if elem is not None:
                    self.extra_attrs.put(key, elem)
        return self._append_extra(os_)

    def parse_dom(self, xmldoc):
        more = self.extra_attrs = ExtraAttrs()
        self._start_parse(xmldoc)
        self.firmware = xmldoc.get('firmware')
        more.take('', xmldoc, ('firmware',))
        self.boot_devs = []
        for child in xmldoc:
            if child.tag == 'type':
                self.type = child.text
                self.arch = child.get('arch')
                self.machine = child.get('machine')
                more.take('type', child, ('arch', 'machine'))
            elif child.tag == 'loader':
                self.loader_path = child.text
                self.loader_type = child.get('type')
                self.loader_readonly = _bool_attr(child.get('readonly'))
                self.loader_secure = _bool_attr(child.get('secure'))
                more.take('loader', child, ('type', 'readonly', 'secure'))
            elif child.tag == 'nvram' and not len(child):
                self.nvram_path = child.text
                self.nvram_template = child.get('template')
                more.take('nvram', child, ('template',))
            elif child.tag in ('kernel', 'initrd', 'cmdline'):
                setattr(self, child.tag, child.text)
            elif child.tag == 'boot' and set(child.attrib) == {'dev'}:
                self.boot_devs.append(child.get('dev'))
            elif child.tag == 'bootmenu' and set(child.attrib) == {'enable'}:
                self.bootmenu = _bool_attr(child.get('enable'))
            else:
                self._keep(child)
        return self


class GuestNUMACell(ConfigObject):
    """<cell id cpus memory unit='KiB'> inside <cpu><numa>."""

    root_name = 'cell'
    id = None
    cpus = None                 # set of ints or '0-1'
    memory_kib = None
    mem_access = None           # shared | private

    def format_dom(self):
        return etree.Element('cell', {k: str(v) for k, v in (
            ('id', self.id), ('cpus', _cpus(self.cpus)),
            ('memory', self.memory_kib), ('unit', 'KiB'),
            ('memAccess', self.mem_access)) if v is not None})


class GuestCPUFeature(ConfigObject):
    """<feature policy='require' name='...'/> inside <cpu>."""

    root_name = 'feature'
    name = None
    policy = 'require'

    def format_dom(self):
        return etree.Element('feature', policy=self.policy, name=self.name)


class GuestCPU(ConfigObject):
    """<cpu>: mode/model, topology, features and guest NUMA cells."""

    root_name = 'cpu'
    mode = None                 # host-model | host-passthrough | custom
    match = None
    check = None
    model = None
    fallback = None
    sockets = None
    dies = None
    cores = None
    threads = None
    features = ()
    numa_cells = ()
    maxphysaddr_mode = None     # passthrough | emulate
    maxphysaddr_bits = None

    def format_dom(self):
        cpu = etree.Element('cpu')
        for key in ('mode', 'match', 'check'):
            if getattr(self, key) is not None:
                cpu.set(key, getattr(self, key))
        if self.model:
            _sub(cpu, 'model', self.model, fallback=self.fallback)
        if self.sockets or self.cores or self.threads:
            _sub(cpu, 'topology', sockets=self.sockets, dies=self.dies,
                 cores=self.cores, threads=self.threads)
        if self.maxphysaddr_mode:
            _sub(cpu, 'maxphysaddr', mode=self.maxphysaddr_mode,
                 bits=self.maxphysaddr_bits)
        for feature in self.features:
            cpu.append(feature.format_dom())
        if self.numa_cells:
            numa = _sub(cpu, 'numa')
            for cell in self.numa_cells:
                numa.append(cell.format_dom())
        return cpu


class GuestVCPUPin(ConfigObject):
    """<vcpupin vcpu=N cpuset=...> inside <cputune>."""

    root_name = 'vcpupin'
    vcpu = None
    cpuset = None

    def format_dom(self):
        return etree.Element('vcpupin', vcpu=str(self.vcpu),
                             cpuset=_cpus(self.cpuset))

    def parse_dom(self, xmldoc):
        self.vcpu = _int(xmldoc.get('vcpu'))
        self.cpuset = xmldoc.get('cpuset')
        return self


class GuestCPUTune(ConfigObject):
    """<cputune>: shares, vcpu pins, emulator pin."""

    root_name = 'cputune'
    shares = None
    period = None
    quota = None
    vcpupins = ()
    emulatorpin_cpuset = None
    vcpuscheds = ()

    def format_dom(self):
        tune = etree.Element('cputune')
        for child in ('shares', 'period', 'quota'):
            if getattr(self, child) is not None:
                _sub(tune, child, getattr(self, child))
        for pin in self.vcpupins:
            tune.append(pin.format_dom())
        if self.emulatorpin_cpuset is not None:
            _sub(tune, 'emulatorpin', cpuset=_cpus(self.emulatorpin_cpuset))
        for sched in self.vcpuscheds:
            tune.append(sched.format_dom())
        return self._append_extra(tune)

    def parse_dom(self, xmldoc):
        self._start_parse(xmldoc)
        self.vcpupins = []
        for child in xmldoc:
            if child.tag == 'shares' and not child.attrib:
                self.shares = _int(child.text)
            elif child.tag == 'vcpupin' and set(child.attrib) == {
                    'vcpu', 'cpuset'}:
                self.vcpupins.append(GuestVCPUPin().parse_dom(child))
            elif child.tag == 'emulatorpin' and set(child.attrib) == {
                    'cpuset'}:
                self.emulatorpin_cpuset = child.get('cpuset')
            else:
                self._keep(child)
        return self


class GuestNUMATuneMemNode(ConfigObject):
    """<memnode cellid mode nodeset> inside <numatune>."""

    root_name = 'memnode'
    cellid = None
    mode = 'strict'
    nodeset = None

    def format_dom(self):
        return etree.Element('memnode', cellid=str(self.cellid),
                             mode=self.mode, nodeset=_cpus(self.nodeset))


class GuestNUMATune(ConfigObject):
    """<numatune>: global <memory> policy plus per-cell <memnode>s."""

    root_name = 'numatune'
    memory_mode = None
    memory_nodeset = None
    memnodes = ()

    def format_dom(self):
        tune = etree.Element('numatune')
        if self.memory_mode or self.memory_nodeset is not None:
            _sub(tune, 'memory', mode=self.memory_mode,
                 nodeset=_cpus(self.memory_nodeset))
        for node in self.memnodes:
            tune.append(node.format_dom())
        return tune


class GuestHugepage(ConfigObject):
    """<page size unit='KiB' nodeset>: one hugepage size, maybe per node."""

    root_name = 'page'
    size_kib = None
    nodeset = None

    def format_dom(self):
        return etree.Element('page', {k: v for k, v in (
            ('size', str(self.size_kib)), ('unit', 'KiB'),
            ('nodeset', _cpus(self.nodeset))) if v is not None})


class GuestMemoryBacking(ConfigObject):
    """<memoryBacking>: hugepages, locked, shared access."""

    root_name = 'memoryBacking'
    hugepages = ()
    nosharepages = False
    locked = False
    access_mode = None          # shared | private

    def format_dom(self):
        backing = etree.Element('memoryBacking')
        if self.hugepages:
            pages = _sub(backing, 'hugepages')
            for page in self.hugepages:
                pages.append(page.format_dom())
        if self.nosharepages:
            _sub(backing, 'nosharepages')
        if self.locked:
            _sub(backing, 'locked')
        if self.access_mode:
            _sub(backing, 'access', mode=self.access_mode)
        return backing


class GuestFeature(ConfigObject):
    """An empty element inside <features>, e.g. <acpi/>, <apic/>."""

    root_name = None
    name = None

    def format_dom(self):
        return etree.Element(self.name or self.root_name)


class GuestFeatureACPI(GuestFeature):
    root_name = 'acpi'


class GuestFeatureAPIC(GuestFeature):
    root_name = 'apic'


class GuestTimer(ConfigObject):
    """<timer name tickpolicy present> inside <clock>."""

    root_name = 'timer'
    name = None
    tickpolicy = None
    present = None

    def format_dom(self):
        return etree.Element('timer', {k: v for k, v in (
            ('name', self.name), ('tickpolicy', self.tickpolicy),
            ('present', None if self.present is None
             else _yes_no(self.present))) if v is not None})


class GuestClock(ConfigObject):
    """<clock offset=...> with optional timers."""

    root_name = 'clock'
    offset = 'utc'
    timers = ()

    def format_dom(self):
        clock = etree.Element('clock', offset=self.offset)
        for timer in self.timers:
            clock.append(timer.format_dom())
        return clock


# --------------------------------------------------------------------- domain

class GuestDomain(ConfigObject):
    """<domain>: the whole guest; children come from the classes above.

    A parsed domain models its name, memory, vcpus, <os>, <cputune>,
    lifecycle actions and, among the devices, disks, controllers, serial
    ports, consoles, channels, graphics, NICs and every other device that
    can carry a boot order (host devices, redirected devices,
    filesystems); every other device is a RawElement and every other
    child of <domain> stays in ``extra``, so a domain read from libvirt
    formats back to the same definition.
    """

    root_name = 'domain'
    virt_type = 'qemu'          # qemu | kvm | lxc | test
    name = None
    uuid = None
    description = None
    memory_kib = None
    vcpus = 1
    cpuset = None
    os = None                   # GuestOS
    features = ()
    cpu = None                  # GuestCPU
    cputune = None
    numatune = None
    memory_backing = None
    clock = None
    on_poweroff = 'destroy'
    on_reboot = 'restart'
    on_crash = 'destroy'
    devices = ()
    metadata = None             # GuestNovaMetadata
    extra_attrs = None

    def format_dom(self):
        dom = etree.Element('domain', type=self.virt_type)
        if self.extra_attrs is not None:
            self.extra_attrs.put('', dom)
        _sub(dom, 'name', self.name)
        if self.uuid is not None:
            _sub(dom, 'uuid', self.uuid)
        if self.description:
            _sub(dom, 'description', self.description)
        if self.metadata is not None:
            dom.append(self.metadata.format_dom())
        if self.memory_kib is not None:
            _sub(dom, 'memory', self.memory_kib, unit='KiB')
        if self.vcpus is not None:
            vcpu = _sub(dom, 'vcpu', self.vcpus, cpuset=_cpus(self.cpuset))
            if self.extra_attrs is not None:
                self.extra_attrs.put('vcpu', vcpu)
        for child in (self.memory_backing, self.cputune, self.numatune,
                      self.os):
            if child is not None:
                dom.append(child.format_dom())
        if self.features:
            feats = _sub(dom, 'features')
            for feature in self.features:
                feats.append(feature.format_dom())
        if self.cpu is not None:
            dom.append(self.cpu.format_dom())
        if self.clock is not None:
            dom.append(self.clock.format_dom())
        for action in ('on_poweroff', 'on_reboot', 'on_crash'):
            if getattr(self, action) is not None:
                _sub(dom, action, getattr(self, action))
        devs = _sub(dom, 'devices')
        for dev in self.devices:
            devs.append(dev.format_dom())
        return self._append_extra(dom)

    def parse_dom(self, xmldoc):
        self.extra_attrs = ExtraAttrs()
        self.virt_type = xmldoc.get('type')
        self.extra_attrs.take('', xmldoc, ('type',))
        self.on_poweroff = self.on_reboot = self.on_crash = None
        self.uuid = self.memory_kib = self.vcpus = None
        self._start_parse(xmldoc)
        for child in xmldoc:
            parse = self._PARSERS.get(child.tag)
            if parse is None:
                self._keep(child)
            else:
                parse(self, child)
        return self

    def _parse_text(self, elem):
        setattr(self, elem.tag, elem.text)

    def _parse_memory(self, elem):
        self.memory_kib = _to_kib(int(elem.text), elem.get('unit', 'KiB'))

    def _parse_vcpu(self, elem):
        self.vcpus = int(elem.text)
        self.cpuset = elem.get('cpuset')
        self.extra_attrs.take('vcpu', elem, ('cpuset',))

    def _parse_metadata(self, elem):
        self.metadata = GuestMetadataKept().parse_dom(elem)

    def _parse_os(self, elem):
        self.os = GuestOS().parse_dom(elem)

    def _parse_cputune(self, elem):
        self.cputune = GuestCPUTune().parse_dom(elem)

    def _parse_devices(self, elem):
        self.devices = [_DEVICE_PARSERS.get(dev.tag, RawElement)().parse_dom(
            dev) for dev in elem if isinstance(dev.tag, str)]

    _PARSERS = {'name': _parse_text, 'uuid': _parse_text,
                'description': _parse_text, 'memory': _parse_memory,
                'vcpu': _parse_vcpu, 'os': _parse_os, 'metadata': _parse_metadata,
                'cputune': _parse_cputune,
                'on_poweroff': _parse_text, 'on_reboot': _parse_text,
                'on_crash': _parse_text, 'devices': _parse_devices}

    def _parts(self):
        return [self.os, self.cputune] + list(self.devices)

    # ------------------------------------------------------ device views
    def get_disks(self):
        """The GuestDisk devices, in XML order."""
        return [dev for dev in self.devices if isinstance(dev, GuestDisk)]

    def get_devices(self, cls):
        """The devices of one config class, in XML order."""
        return [dev for dev in self.devices if isinstance(dev, cls)]

    def get_controller(self, type_, index=0):
        for dev in self.devices:
            if (isinstance(dev, GuestController) and dev.type == type_ and
                    (dev.index or 0) == index):
                return dev
        return None


_DEVICE_PARSERS = {cls.root_name: cls for cls in (
    GuestDisk, GuestController, GuestSerial, GuestConsole, GuestChannel,
    GuestGraphics, GuestInterface, GuestHostdev, GuestRedirdev,
    GuestFilesystem)}

_UNIT_KIB = {'b': 1 / 1024, 'bytes': 1 / 1024, 'KiB': 1, 'k': 1,
             'MiB': 1024, 'M': 1024, 'GiB': 1024 ** 2, 'G': 1024 ** 2,
             'TiB': 1024 ** 3, 'T': 1024 ** 3}


def _to_kib(value, unit):
    return int(value * _UNIT_KIB[unit])
