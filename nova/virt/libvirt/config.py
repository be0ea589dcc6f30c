"""libvirt domain XML: one small class per element; they format, never decide."""

from lxml import etree

from nova.virt import hardware


def _yes_no(flag):
    return 'yes' if flag else 'no'


def _sub(parent, tag, text=None, **attrs):
    """Append <tag> with the attributes that are not None."""
    elem = etree.SubElement(parent, tag, {k: str(v) for k, v in attrs.items()
                                          if v is not None})
    if text is not None:
        elem.text = str(text)
    return elem


def _cpus(value):
    """Accept '0-3' or {0, 1, 2, 3}; the XML wants the string form."""
    if value is None or isinstance(value, str):
        return value
    return hardware.format_cpu_spec(value)


class ConfigObject:
    """Base: subclasses set ``root_name`` and extend ``format_dom``."""

    root_name = None

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            if not hasattr(self, key):
                raise TypeError('%s has no attribute %r'
                                % (type(self).__name__, key))
            setattr(self, key, value)

    def format_dom(self):
        return etree.Element(self.root_name)

    def to_xml(self, pretty_print=True):
        return etree.tostring(self.format_dom(), encoding='unicode',
                              pretty_print=pretty_print)


# ---------------------------------------------------------------- addresses

class GuestDeviceAddressDrive(ConfigObject):
    """<address type='drive'>: where a disk sits on an IDE/SATA/SCSI bus."""

    root_name = 'address'
    controller = None
    bus = None
    target = None
    unit = None

    def format_dom(self):
        return etree.Element('address', {k: str(v) for k, v in (
            ('type', 'drive'), ('controller', self.controller),
            ('bus', self.bus), ('target', self.target),
            ('unit', self.unit)) if v is not None})


class GuestDeviceAddressPCI(ConfigObject):
    """<address type='pci'>: domain/bus/slot/function, hex strings."""

    root_name = 'address'
    domain = None
    bus = None
    slot = None
    function = None

    def format_dom(self):
        return etree.Element('address', {k: str(v) for k, v in (
            ('type', 'pci'), ('domain', self.domain), ('bus', self.bus),
            ('slot', self.slot), ('function', self.function))
            if v is not None})


# -------------------------------------------------------------------- devices

class GuestDisk(ConfigObject):
    """<disk>: file/block source, target dev+bus, per-device boot order."""

    root_name = 'disk'
    source_type = 'file'        # file | block | network
    source_device = 'disk'      # disk | cdrom | floppy | lun
    driver_name = 'qemu'
    driver_format = None        # qcow2 | raw
    driver_cache = None         # none | writeback | ...
    driver_discard = None
    driver_io = None
    source_path = None          # file path or block device path
    source_protocol = None      # network disks: rbd, iscsi, ...
    source_name = None
    source_hosts = ()           # [(name, port)] for network disks
    target_dev = None
    target_bus = None
    serial = None
    readonly = False
    shareable = False
    boot_order = None
    address = None              # a GuestDeviceAddress* or None
    alias = None

    def format_dom(self):
        dev = etree.Element('disk', type=self.source_type,
                            device=self.source_device)
        if self.driver_name or self.driver_format or self.driver_cache:
            _sub(dev, 'driver', name=self.driver_name,
                 type=self.driver_format, cache=self.driver_cache,
                 discard=self.driver_discard, io=self.driver_io)
        self._format_source(dev)
        _sub(dev, 'target', dev=self.target_dev, bus=self.target_bus)
        if self.boot_order is not None:
            _sub(dev, 'boot', order=self.boot_order)
        if self.readonly:
            _sub(dev, 'readonly')
        if self.shareable:
            _sub(dev, 'shareable')
        if self.serial:
            _sub(dev, 'serial', self.serial)
        if self.alias:
            _sub(dev, 'alias', name=self.alias)
        if self.address is not None:
            dev.append(self.address.format_dom())
        return dev

    def _format_source(self, dev):
        if self.source_type == 'file' and self.source_path:
            _sub(dev, 'source', file=self.source_path)
        elif self.source_type == 'block' and self.source_path:
            _sub(dev, 'source', dev=self.source_path)
        elif self.source_type == 'network' and self.source_protocol:
            src = _sub(dev, 'source', protocol=self.source_protocol,
                       name=self.source_name)
            for name, port in self.source_hosts:
                _sub(src, 'host', name=name, port=port)


class GuestCharDevice(ConfigObject):
    """Shared shape of <serial> and <console>: a typed source + target."""

    type = 'pty'                # file | pty | unix | tcp | null
    source_path = None
    source_append = None        # file sources: True/False/None (default)
    source_mode = None          # tcp sources: bind | connect
    source_host = None
    source_service = None       # tcp sources: the port
    protocol_type = None        # tcp sources: raw | telnet
    target_type = None
    target_port = None
    log_file = None
    log_append = None

    def format_dom(self):
        dev = etree.Element(self.root_name, type=self.type)
        if self.source_path is not None:
            append = None
            if self.source_append is not None:
                append = 'on' if self.source_append else 'off'
            _sub(dev, 'source', path=self.source_path, append=append)
        if self.source_service is not None:
            _sub(dev, 'source', mode=self.source_mode, host=self.source_host,
                 service=self.source_service)
        if self.protocol_type is not None:
            _sub(dev, 'protocol', type=self.protocol_type)
        if self.target_type is not None or self.target_port is not None:
            _sub(dev, 'target', type=self.target_type, port=self.target_port)
        if self.log_file is not None:
            append = None
            if self.log_append is not None:
                append = 'on' if self.log_append else 'off'
            _sub(dev, 'log', file=self.log_file, append=append)
        return dev


class GuestSerial(GuestCharDevice):
    """<serial>: COM ports; type='file' captures guest output to disk."""

    root_name = 'serial'


class GuestConsole(GuestCharDevice):
    """<console>: target_type 'serial' aliases serial port N."""

    root_name = 'console'


class GuestChannel(ConfigObject):
    """<channel>: a virtio-serial port, e.g. the QEMU guest agent's."""

    root_name = 'channel'
    type = 'unix'
    target_type = 'virtio'
    target_name = None

    def format_dom(self):
        dev = etree.Element('channel', type=self.type)
        # No <source>: libvirt picks the socket path itself.
        _sub(dev, 'target', type=self.target_type, name=self.target_name)
        return dev


class GuestVideo(ConfigObject):
    """<video><model type=.../></video>."""

    root_name = 'video'
    model = 'virtio'            # virtio | vga | cirrus | qxl | bochs | none
    vram = None
    heads = None

    def format_dom(self):
        dev = etree.Element('video')
        _sub(dev, 'model', type=self.model, vram=self.vram, heads=self.heads)
        return dev


class GuestGraphics(ConfigObject):
    """<graphics> (vnc/spice) with an address listen."""

    root_name = 'graphics'
    type = 'vnc'
    autoport = True
    listen = None
    keymap = None

    def format_dom(self):
        dev = etree.Element('graphics', type=self.type,
                            autoport=_yes_no(self.autoport))
        if self.keymap:
            dev.set('keymap', self.keymap)
        if self.listen:
            _sub(dev, 'listen', type='address', address=self.listen)
        return dev


class GuestController(ConfigObject):
    """<controller type=... index=... model=...> (virtio-scsi, usb, pci)."""

    root_name = 'controller'
    type = None                 # scsi | usb | pci | sata | ide | virtio-serial
    index = None
    model = None                # virtio-scsi | qemu-xhci | pcie-root | ...
    address = None

    def format_dom(self):
        dev = etree.Element('controller', type=self.type)
        if self.index is not None:
            dev.set('index', str(self.index))
        if self.model is not None:
            dev.set('model', self.model)
        if self.address is not None:
            dev.append(self.address.format_dom())
        return dev


class GuestInput(ConfigObject):
    """<input type='tablet' bus='usb'/>."""

    root_name = 'input'
    type = 'tablet'             # tablet | mouse | keyboard
    bus = 'usb'                 # usb | virtio | ps2

    def format_dom(self):
        return etree.Element('input', type=self.type, bus=self.bus)


class GuestMemBalloon(ConfigObject):
    """<memballoon model=...> with an optional stats period (seconds)."""

    root_name = 'memballoon'
    model = 'virtio'            # virtio | none
    period = None

    def format_dom(self):
        dev = etree.Element('memballoon', model=self.model)
        if self.period is not None:
            _sub(dev, 'stats', period=self.period)
        return dev


class GuestRng(ConfigObject):
    """<rng model='virtio'> fed by a host random device."""

    root_name = 'rng'
    model = 'virtio'
    backend = '/dev/urandom'

    def format_dom(self):
        dev = etree.Element('rng', model=self.model)
        _sub(dev, 'backend', self.backend, model='random')
        return dev


class GuestInterface(ConfigObject):
    """<interface>: bridge/network/ethernet NIC with a MAC and model."""

    root_name = 'interface'
    type = 'bridge'             # bridge | network | ethernet | user
    mac_addr = None
    model = 'virtio'
    source_bridge = None
    source_network = None
    target_dev = None
    mtu = None

    def format_dom(self):
        dev = etree.Element('interface', type=self.type)
        if self.mac_addr:
            _sub(dev, 'mac', address=self.mac_addr)
        if self.source_bridge:
            _sub(dev, 'source', bridge=self.source_bridge)
        elif self.source_network:
            _sub(dev, 'source', network=self.source_network)
        if self.target_dev:
            _sub(dev, 'target', dev=self.target_dev)
        if self.model:
            _sub(dev, 'model', type=self.model)
        if self.mtu:
            _sub(dev, 'mtu', size=self.mtu)
        return dev


# ------------------------------------------------------------ os, cpu, memory

class GuestOS(ConfigObject):
    """<os>: type/machine, firmware, direct kernel boot, <boot dev>."""

    root_name = 'os'
    type = 'hvm'
    arch = None
    machine = None
    firmware = None             # 'efi' | 'bios': libvirt auto-selection
    loader_path = None          # explicit firmware, e.g. OVMF_CODE.fd
    loader_type = None          # rom | pflash
    loader_readonly = None
    loader_secure = None
    nvram_path = None
    nvram_template = None
    kernel = None
    initrd = None
    cmdline = None
    boot_devs = ()              # ['hd', 'cdrom']; never with <boot order>
    bootmenu = None             # True/False/None

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
                         else _yes_no(self.loader_secure)))
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
        return os_


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


class GuestCPUTune(ConfigObject):
    """<cputune>: shares, vcpu pins, emulator pin."""

    root_name = 'cputune'
    shares = None
    vcpupins = ()
    emulatorpin_cpuset = None

    def format_dom(self):
        tune = etree.Element('cputune')
        if self.shares is not None:
            _sub(tune, 'shares', self.shares)
        for pin in self.vcpupins:
            tune.append(pin.format_dom())
        if self.emulatorpin_cpuset is not None:
            _sub(tune, 'emulatorpin', cpuset=_cpus(self.emulatorpin_cpuset))
        return tune


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
    locked = False
    access_mode = None          # shared | private

    def format_dom(self):
        backing = etree.Element('memoryBacking')
        if self.hugepages:
            pages = _sub(backing, 'hugepages')
            for page in self.hugepages:
                pages.append(page.format_dom())
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

class Guest(ConfigObject):
    """<domain>: the whole guest; children come from the classes above."""

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

    def format_dom(self):
        dom = etree.Element('domain', type=self.virt_type)
        _sub(dom, 'name', self.name)
        _sub(dom, 'uuid', self.uuid)
        if self.description:
            _sub(dom, 'description', self.description)
        _sub(dom, 'memory', self.memory_kib, unit='KiB')
        _sub(dom, 'vcpu', self.vcpus, cpuset=_cpus(self.cpuset))
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
        _sub(dom, 'on_poweroff', self.on_poweroff)
        _sub(dom, 'on_reboot', self.on_reboot)
        _sub(dom, 'on_crash', self.on_crash)
        devs = _sub(dom, 'devices')
        for dev in self.devices:
            devs.append(dev.format_dom())
        return dom
