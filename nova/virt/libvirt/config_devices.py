"""libvirt domain XML devices: addresses, disks, controllers and the rest."""

from xml.etree import ElementTree as etree

from nova.virt.libvirt.config_base import (
    ConfigObject,
    ExtraAttrs,
    _int,
    _sub,
    _yes_no,
)

# ---------------------------------------------------------------- addresses

class GuestDeviceAddress(ConfigObject):
    """<address> of a type the driver only carries along (usb, ccw...)."""

    root_name = 'address'
    type = None
    attrs = None                # {name: value} besides type

    def format_dom(self):
        elem = etree.Element('address', type=self.type)
        for name, value in (self.attrs or {}).items():
            elem.set(name, value)
        return elem

    def parse_dom(self, xmldoc):
        self.type = xmldoc.get('type')
        self.attrs = {k: v for k, v in xmldoc.attrib.items() if k != 'type'}
        return self


class GuestDeviceAddressDrive(ConfigObject):
    """<address type='drive'>: where a disk sits on an IDE/SATA/SCSI bus."""

    root_name = 'address'
    _fields = ('controller', 'bus', 'target', 'unit')
    controller = None
    bus = None
    target = None
    unit = None

    def format_dom(self):
        return etree.Element('address', {k: str(v) for k, v in (
            ('type', 'drive'), ('controller', self.controller),
            ('bus', self.bus), ('target', self.target),
            ('unit', self.unit)) if v is not None})

    def parse_dom(self, xmldoc):
        for name in self._fields:
            setattr(self, name, _int(xmldoc.get(name)))
        return self


class GuestDeviceAddressPCI(ConfigObject):
    """<address type='pci'>: domain/bus/slot/function, hex strings."""

    root_name = 'address'
    _fields = ('domain', 'bus', 'slot', 'function')
    domain = None
    bus = None
    slot = None
    function = None

    def format_dom(self):
        return etree.Element('address', {k: str(v) for k, v in (
            ('type', 'pci'), ('domain', self.domain), ('bus', self.bus),
            ('slot', self.slot), ('function', self.function))
            if v is not None})

    def parse_dom(self, xmldoc):
        for name in self._fields:
            setattr(self, name, xmldoc.get(name))
        return self


_ADDRESS_TYPES = {'drive': GuestDeviceAddressDrive,
                  'pci': GuestDeviceAddressPCI}


def parse_address(xmldoc):
    """The address class for ``<address>``: drive and pci ones modelled,
    any other (or one with attributes the class lacks) kept as is."""
    cls = _ADDRESS_TYPES.get(xmldoc.get('type'))
    if cls is None or set(xmldoc.attrib) - {'type'} - set(cls._fields):
        return GuestDeviceAddress().parse_dom(xmldoc)
    return cls().parse_dom(xmldoc)


# -------------------------------------------------------------------- devices

class GuestDevice(ConfigObject):
    """Base of the elements under <devices>: what any of them may carry.

    ``address`` (where the guest sees it), ``alias`` (libvirt's or the
    user's name for it) and ``boot_order`` (<boot order=N>: libvirt's
    schema allows it on disks, interfaces, host devices, redirected devices
    and filesystems, and refuses two devices with one order).  Subclasses
    format them with ``_format_boot``/``_format_alias``/``_format_address``
    where the element has them and parse them with ``_parse_device``.
    """

    boot_order = None
    address = None              # a GuestDeviceAddress* or None
    alias = None
    extra_attrs = None          # ExtraAttrs of a parsed device

    def _start_parse(self, xmldoc):
        super()._start_parse(xmldoc)
        self.extra_attrs = ExtraAttrs()

    def _format_boot(self, dev):
        if self.boot_order is not None:
            boot = _sub(dev, 'boot', order=self.boot_order)
            if self.extra_attrs is not None:
                self.extra_attrs.put('boot', boot)   # e.g. s390's loadparm

    def _format_alias(self, dev):
        if self.alias:
            _sub(dev, 'alias', name=self.alias)

    def _format_address(self, dev):
        if self.address is not None:
            dev.append(self.address.format_dom())

    def _format_device(self, dev):
        self._format_boot(dev)
        self._format_alias(dev)
        self._format_address(dev)

    def _parse_device(self, child):
        """Model ``child`` when it is <boot>, <alias> or <address>; True if so."""
        if child.tag == 'boot' and not len(child) and 'order' in child.attrib:
            self.boot_order = _int(child.get('order'))
            self.extra_attrs.take('boot', child, ('order',))
            return True
        if child.tag == 'alias' and self._simple(child, ('name',)):
            self.alias = child.get('name')
            return True
        if child.tag == 'address' and not len(child):
            self.address = parse_address(child)
            return True
        return False


class GuestDiskBackingStore(ConfigObject):
    """<backingStore> of a disk in live XML: one image of its backing chain
    (type, index, format, source) with the next one inside; an empty
    element (``<backingStore/>``) marks the end of the chain."""

    root_name = 'backingStore'
    path_fields = ('source_path',)
    type = None                 # file | block | network
    index = None
    format = None
    source_path = None          # <source file=...> or <source dev=...>
    backing_store = None        # the next GuestDiskBackingStore down
    extra_attrs = None

    def format_dom(self):
        more = self.extra_attrs or ExtraAttrs()
        elem = etree.Element('backingStore')
        if self.type is not None:
            elem.set('type', self.type)
        if self.index is not None:
            elem.set('index', str(self.index))
        more.put('', elem)
        if self.format is not None:
            more.put('format', _sub(elem, 'format', type=self.format))
        if self.source_path is not None:
            attr = 'dev' if self.type == 'block' else 'file'
            more.put('source', _sub(elem, 'source', **{attr: self.source_path}))
        if self.backing_store is not None:
            elem.append(self.backing_store.format_dom())
        return self._append_extra(elem)

    def parse_dom(self, xmldoc):
        self._start_parse(xmldoc)
        more = self.extra_attrs = ExtraAttrs()
        self.type = xmldoc.get('type')
        self.index = _int(xmldoc.get('index'))
        more.take('', xmldoc, ('type', 'index'))
        for child in xmldoc:
            if child.tag == 'format' and not len(child) and 'type' in child.attrib:
                self.format = child.get('type')
                more.take('format', child, ('type',))
            elif (child.tag == 'source' and not len(child) and
                    ('file' in child.attrib) != ('dev' in child.attrib)):
                self.source_path = child.get('file') or child.get('dev')
                more.take('source', child, ('file', 'dev'))
            elif child.tag == 'backingStore':
                self.backing_store = GuestDiskBackingStore().parse_dom(child)
            else:
                self._keep(child)
        return self

    def _parts(self):
        return (self.backing_store,)


class GuestDisk(GuestDevice):
    """<disk>: file/block source, target dev+bus, per-device boot order."""

    root_name = 'disk'
    path_fields = ('source_path',)
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
    backing_store = None        # GuestDiskBackingStore (live XML)
    target_dev = None
    target_bus = None
    serial = None
    readonly = False
    shareable = False
    driver_packed = None        # True: packed virtqueues (virtio bus)
    iotune = ()                 # ((child, value), ...): <iotune> limits

    def format_dom(self):
        more = self.extra_attrs or ExtraAttrs()
        dev = more.put('', etree.Element('disk', type=self.source_type,
                                         device=self.source_device))
        if self.driver_name or self.driver_format or self.driver_cache:
            more.put('driver', _sub(
                dev, 'driver', name=self.driver_name,
                type=self.driver_format, cache=self.driver_cache,
                discard=self.driver_discard, io=self.driver_io,
                packed=None if self.driver_packed is None else
                ('on' if self.driver_packed else 'off')))
        self._format_source(dev, more)
        if self.backing_store is not None:
            dev.append(self.backing_store.format_dom())
        more.put('target', _sub(dev, 'target', dev=self.target_dev,
                                bus=self.target_bus))
        self._format_boot(dev)
        if self.readonly:
            _sub(dev, 'readonly')
        if self.shareable:
            _sub(dev, 'shareable')
        if self.serial:
            _sub(dev, 'serial', self.serial)
        if self.iotune:
            tune = _sub(dev, 'iotune')
            for child, value in self.iotune:
                _sub(tune, child, value)
        self._format_alias(dev)
        self._format_address(dev)
        return self._append_extra(dev)

    def _format_source(self, dev, more):
        src = None
        if self.source_type == 'file' and self.source_path:
            src = _sub(dev, 'source', file=self.source_path)
        elif self.source_type == 'block' and self.source_path:
            src = _sub(dev, 'source', dev=self.source_path)
        elif self.source_type == 'network' and self.source_protocol:
            src = _sub(dev, 'source', protocol=self.source_protocol,
                       name=self.source_name)
            for name, port in self.source_hosts:
                _sub(src, 'host', name=name, port=port)
        if src is not None:
            more.put('source', src)

    def parse_dom(self, xmldoc):
        self._start_parse(xmldoc)
        more = self.extra_attrs
        self.source_type = xmldoc.get('type')
        self.source_device = xmldoc.get('device', 'disk')
        more.take('', xmldoc, ('type', 'device'))
        self.driver_name = None
        for child in xmldoc:
            parse = self._PARSERS.get(child.tag)
            if parse is not None:
                parse(self, child, more)
            elif not self._parse_device(child):
                self._keep(child)
        return self

    def _parts(self):
        return (self.backing_store,)

    def backing_chain(self):
        """The files below the active one, top down (known from live XML)."""
        chain, node = [], self.backing_store
        while node is not None and node.source_path is not None:
            chain.append(node.source_path)
            node = node.backing_store
        return chain

    def _parse_driver(self, elem, more):
        self.driver_name = elem.get('name')
        self.driver_format = elem.get('type')
        self.driver_cache = elem.get('cache')
        self.driver_discard = elem.get('discard')
        self.driver_io = elem.get('io')
        more.take('driver', elem, ('name', 'type', 'cache', 'discard', 'io'))

    def _parse_source(self, elem, more):
        if len(elem):
            self._keep(elem)        # seclabel, auth...: not modelled
            return
        self.source_path = elem.get('file') or elem.get('dev')
        self.source_protocol = elem.get('protocol')
        self.source_name = elem.get('name')
        more.take('source', elem, ('file', 'dev', 'protocol', 'name'))

    def _parse_backing_store(self, elem, more):
        self.backing_store = GuestDiskBackingStore().parse_dom(elem)

    def _parse_target(self, elem, more):
        self.target_dev = elem.get('dev')
        self.target_bus = elem.get('bus')
        more.take('target', elem, ('dev', 'bus'))

    def _parse_flag(self, elem, more):
        setattr(self, elem.tag, True)

    def _parse_serial(self, elem, more):
        self.serial = elem.text

    _PARSERS = {'driver': _parse_driver, 'source': _parse_source,
                'backingStore': _parse_backing_store,
                'target': _parse_target,
                'readonly': _parse_flag, 'shareable': _parse_flag,
                'serial': _parse_serial}


class GuestVideo(GuestDevice):
    """<video><model type=.../></video>."""

    root_name = 'video'
    model = 'virtio'            # virtio | vga | cirrus | qxl | bochs | none
    vram = None
    heads = None

    def format_dom(self):
        dev = etree.Element('video')
        _sub(dev, 'model', type=self.model, vram=self.vram, heads=self.heads)
        self._format_alias(dev)
        self._format_address(dev)
        return dev


class GuestGraphics(ConfigObject):
    """<graphics> (vnc/spice) with an address listen; ``port`` (and, for
    SPICE with TLS, ``tls_port``) the one libvirt chose (live XML of a
    running guest)."""

    root_name = 'graphics'
    type = 'vnc'
    autoport = True
    port = None
    tls_port = None
    listen = None
    keymap = None
    extra_attrs = None

    def format_dom(self):
        dev = etree.Element('graphics', type=self.type)
        if self.port is not None:
            dev.set('port', str(self.port))
        if self.tls_port is not None:
            dev.set('tlsPort', str(self.tls_port))
        if self.autoport is not None:
            dev.set('autoport', _yes_no(self.autoport))
        if self.keymap:
            dev.set('keymap', self.keymap)
        if self.extra_attrs is not None:
            self.extra_attrs.put('', dev)
        if self.listen:
            _sub(dev, 'listen', type='address', address=self.listen)
        return self._append_extra(dev)

    def parse_dom(self, xmldoc):
        self._start_parse(xmldoc)
        self.type = xmldoc.get('type')
        self.port = _int(xmldoc.get('port'))
        self.tls_port = _int(xmldoc.get('tlsPort'))
        autoport = xmldoc.get('autoport')
        self.autoport = None if autoport is None else autoport == 'yes'
        self.keymap = xmldoc.get('keymap')
        self.extra_attrs = ExtraAttrs()
        self.extra_attrs.take('', xmldoc, ('type', 'port', 'tlsPort', 'autoport',
                                           'keymap'))
        for child in xmldoc:
            if (child.tag == 'listen' and self.listen is None and
                    self._simple(child, ('type', 'address')) and
                    child.get('type') == 'address' and child.get('address')):
                self.listen = child.get('address')
            else:
                self._keep(child)
        return self


class GuestController(GuestDevice):
    """<controller type=... index=... model=...> (virtio-scsi, usb, pci)."""

    root_name = 'controller'
    type = None                 # scsi | usb | pci | sata | ide | virtio-serial
    index = None
    model = None                # virtio-scsi | qemu-xhci | pcie-root | ...

    def format_dom(self):
        dev = etree.Element('controller', type=self.type)
        if self.index is not None:
            dev.set('index', str(self.index))
        if self.model is not None:
            dev.set('model', self.model)
        if self.extra_attrs is not None:
            self.extra_attrs.put('', dev)
        self._format_alias(dev)
        self._format_address(dev)
        return self._append_extra(dev)

    def parse_dom(self, xmldoc):
        self._start_parse(xmldoc)
        self.type = xmldoc.get('type')
        self.index = _int(xmldoc.get('index'))
        self.model = xmldoc.get('model')
        self.extra_attrs.take('', xmldoc, ('type', 'index', 'model'))
        for child in xmldoc:
            if not self._parse_device(child):
                self._keep(child)
        return self


class GuestInput(GuestDevice):
    """<input type='tablet' bus='usb'/>."""

    root_name = 'input'
    type = 'tablet'             # tablet | mouse | keyboard
    bus = 'usb'                 # usb | virtio | ps2

    def format_dom(self):
        dev = etree.Element('input', type=self.type, bus=self.bus)
        self._format_alias(dev)
        self._format_address(dev)
        return dev


class GuestMemBalloon(GuestDevice):
    """<memballoon model=...> with an optional stats period (seconds)."""

    root_name = 'memballoon'
    model = 'virtio'            # virtio | none
    period = None

    def format_dom(self):
        dev = etree.Element('memballoon', model=self.model)
        if self.period is not None:
            _sub(dev, 'stats', period=self.period)
        self._format_alias(dev)
        self._format_address(dev)
        return dev


class GuestRng(GuestDevice):
    """<rng model='virtio'> fed by a host random device."""

    root_name = 'rng'
    model = 'virtio'
    backend = '/dev/urandom'
    rate_bytes = None
    rate_period = None          # ms

    def format_dom(self):
        dev = etree.Element('rng', model=self.model)
        if self.rate_bytes:
            _sub(dev, 'rate', bytes=self.rate_bytes, period=self.rate_period)
        _sub(dev, 'backend', self.backend, model='random')
        self._format_alias(dev)
        self._format_address(dev)
        return dev


class GuestCarriedDevice(GuestDevice):
    """A device the driver carries along but for its boot order, alias and
    address: its own attributes and children are kept as they were."""

    type = None

    def format_dom(self):
        dev = etree.Element(self.root_name)
        if self.type is not None:
            dev.set('type', self.type)
        if self.extra_attrs is not None:
            self.extra_attrs.put('', dev)
        self._format_device(dev)
        return self._append_extra(dev)

    def parse_dom(self, xmldoc):
        self._start_parse(xmldoc)
        self.type = xmldoc.get('type')
        self.extra_attrs.take('', xmldoc, ('type',))
        for child in xmldoc:
            if not self._parse_device(child):
                self._keep(child)
        return self


class GuestHostdev(GuestCarriedDevice):
    """<hostdev>: a host PCI/USB/SCSI device passed through to the guest."""

    root_name = 'hostdev'


class GuestRedirdev(GuestCarriedDevice):
    """<redirdev>: a USB device redirected from a client (SPICE)."""

    root_name = 'redirdev'


class GuestFilesystem(GuestCarriedDevice):
    """<filesystem>: a host directory shared with the guest (virtiofs)."""

    root_name = 'filesystem'
