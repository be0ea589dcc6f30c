"""libvirt domain XML character devices: serial ports, consoles and virtio-serial channels."""

from xml.etree import ElementTree as etree

from nova.virt.libvirt.config_base import ExtraAttrs, _int, _sub
from nova.virt.libvirt.config_devices import GuestDevice


class GuestCharDevice(GuestDevice):
    """Shared shape of <serial> and <console>: a typed source + target."""

    path_fields = ('source_path', 'log_file')
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
        more = self.extra_attrs or ExtraAttrs()
        if self.source_path is not None:
            append = None
            if self.source_append is not None:
                append = 'on' if self.source_append else 'off'
            more.put('source', _sub(dev, 'source', path=self.source_path,
                                    append=append))
        if self.source_service is not None:
            more.put('source', _sub(
                dev, 'source', mode=self.source_mode, host=self.source_host,
                service=self.source_service))
        if self.protocol_type is not None:
            _sub(dev, 'protocol', type=self.protocol_type)
        if self.target_type is not None or self.target_port is not None:
            _sub(dev, 'target', type=self.target_type, port=self.target_port)
        if self.log_file is not None:
            append = None
            if self.log_append is not None:
                append = 'on' if self.log_append else 'off'
            _sub(dev, 'log', file=self.log_file, append=append)
        if self.extra_attrs is not None:
            self.extra_attrs.put('', dev)
        self._format_alias(dev)
        self._format_address(dev)
        return self._append_extra(dev)

    def parse_dom(self, xmldoc):
        self._start_parse(xmldoc)
        self.type = xmldoc.get('type')
        self.extra_attrs.take('', xmldoc, ('type',))
        for child in xmldoc:
            if self._parse_device(child):
                continue
            if child.tag == 'source' and not len(child) and (
                    'path' in child.attrib) != ('service' in child.attrib):
                self.source_path = child.get('path')
                self.source_append = _on_off(child.get('append'))
                self.source_mode = child.get('mode')
                self.source_host = child.get('host')
                self.source_service = child.get('service')
                self.extra_attrs.take('source', child, (
                    'path', 'append', 'mode', 'host', 'service'))
            elif child.tag == 'protocol' and self._simple(child, ('type',)):
                self.protocol_type = child.get('type')
            elif child.tag == 'target' and self._simple(child, ('type',
                                                              'port')):
                self.target_type = child.get('type')
                self.target_port = _int(child.get('port'))
            elif child.tag == 'log' and self._simple(child, ('file',
                                                           'append')):
                self.log_file = child.get('file')
                self.log_append = _on_off(child.get('append'))
            else:
                self._keep(child)
        return self


def _on_off(value):
    return None if value is None else value == 'on'


class GuestSerial(GuestCharDevice):
    """<serial>: COM ports; type='file' captures guest output to disk."""

    root_name = 'serial'


class GuestConsole(GuestCharDevice):
    """<console>: target_type 'serial' aliases serial port N."""

    root_name = 'console'


class GuestChannel(GuestDevice):
    """<channel>: a virtio-serial port, e.g. the QEMU guest agent's;
    ``target_state`` is what live XML says of the guest's end
    ('connected' / 'disconnected'; None when libvirt does not know)."""

    root_name = 'channel'
    type = 'unix'
    target_type = 'virtio'
    target_name = None
    target_state = None

    def format_dom(self):
        dev = etree.Element('channel', type=self.type)
        if self.extra_attrs is not None:
            self.extra_attrs.put('', dev)
        # No <source> of our own: libvirt picks the socket path itself (a
        # parsed channel keeps the one it had).
        target = _sub(dev, 'target', type=self.target_type,
                      name=self.target_name, state=self.target_state)
        if self.extra_attrs is not None:
            self.extra_attrs.put('target', target)
        self._format_alias(dev)
        self._format_address(dev)
        return self._append_extra(dev)

    def parse_dom(self, xmldoc):
        self._start_parse(xmldoc)
        self.type = xmldoc.get('type')
        self.extra_attrs.take('', xmldoc, ('type',))
        self.target_type = None
        for child in xmldoc:
            if self._parse_device(child):
                continue
            if child.tag == 'target' and not len(child):
                self.target_type = child.get('type')
                self.target_name = child.get('name')
                self.target_state = child.get('state')
                self.extra_attrs.take('target', child,
                                      ('type', 'name', 'state'))
            else:
                self._keep(child)
        return self
