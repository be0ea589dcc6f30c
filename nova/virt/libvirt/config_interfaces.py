"""libvirt domain XML: <interface>, a guest's NIC (the vif.py decisions land here)."""

from xml.etree import ElementTree as etree

from nova.virt.libvirt.config_base import _int, _sub, _yes_no
from nova.virt.libvirt.config_devices import GuestDevice


class GuestInterface(GuestDevice):
    """<interface>: bridge/network/ethernet NIC with a MAC, model and queues.

    ``target_managed`` False writes ``<target dev=... managed='no'/>``: the
    tap exists before the guest starts and libvirt must neither create nor
    delete it.  ``driver_*`` become ``<driver name queues rx_queue_size
    tx_queue_size>``; ``host_csum`` False adds ``<host csum='off'/>`` there
    (QEMU's ``csum=off``).  ``virtualport_type``/``virtualport_interfaceid``
    give ``<virtualport type='openvswitch'><parameters interfaceid/>``.
    ``bandwidth``: {'inbound'|'outbound': {'average'|'peak'|'burst': int}}
    gives ``<bandwidth><inbound average peak burst/>...`` (KiB/s and KiB).
    """

    root_name = 'interface'
    type = 'bridge'             # bridge | network | ethernet | user
    mac_addr = None
    model = 'virtio'
    source_bridge = None
    source_network = None
    target_dev = None
    target_managed = None       # None: not written; False: managed='no'
    mtu = None
    driver_name = None
    driver_queues = None
    rx_queue_size = None
    tx_queue_size = None
    host_csum = None            # None: not written; False: <host csum='off'/>
    virtualport_type = None
    virtualport_interfaceid = None
    vhostuser_path = None       # type vhostuser: <source type='unix' path mode>
    vhostuser_mode = None       # client | server (QEMU's side)
    bandwidth = None            # {direction: {average, peak, burst}}

    def _has_driver(self):
        return any(v is not None for v in (self.driver_name, self.driver_queues,
                                           self.rx_queue_size, self.tx_queue_size,
                                           self.host_csum))

    def format_dom(self):
        dev = etree.Element('interface', type=self.type)
        if self.extra_attrs is not None:
            self.extra_attrs.put('', dev)
        if self.mac_addr:
            _sub(dev, 'mac', address=self.mac_addr)
        if self.source_bridge:
            _sub(dev, 'source', bridge=self.source_bridge)
        elif self.source_network:
            _sub(dev, 'source', network=self.source_network)
        elif self.vhostuser_path:
            _sub(dev, 'source', type='unix', path=self.vhostuser_path,
                 mode=self.vhostuser_mode)
        if self.virtualport_type:
            port = _sub(dev, 'virtualport', type=self.virtualport_type)
            if self.virtualport_interfaceid:
                _sub(port, 'parameters', interfaceid=self.virtualport_interfaceid)
        if self.target_dev:
            managed = None if self.target_managed is None else _yes_no(self.target_managed)
            _sub(dev, 'target', dev=self.target_dev, managed=managed)
        if self.model:
            _sub(dev, 'model', type=self.model)
        if self._has_driver():
            driver = _sub(dev, 'driver', name=self.driver_name, queues=self.driver_queues,
                          rx_queue_size=self.rx_queue_size, tx_queue_size=self.tx_queue_size)
            if self.host_csum is not None:
                _sub(driver, 'host', csum='on' if self.host_csum else 'off')
        if self.bandwidth:
            limits = _sub(dev, 'bandwidth')
            for direction in ('inbound', 'outbound'):
                values = self.bandwidth.get(direction)
                if values:
                    _sub(limits, direction, **{k: str(values[k]) for k in
                                               ('average', 'peak', 'burst') if k in values})
        if self.mtu:
            _sub(dev, 'mtu', size=self.mtu)
        self._format_device(dev)
        return self._append_extra(dev)

    def _parse_driver(self, child):
        """Model a <driver> with only the attributes and <host csum> this class
        knows; True if so (anything else is kept as is)."""
        known = ('name', 'queues', 'rx_queue_size', 'tx_queue_size')
        if set(child.attrib) - set(known):
            return False
        host = list(child)
        if host and (len(host) > 1 or host[0].tag != 'host' or set(host[0].attrib) != {'csum'}
                     or len(host[0])):
            return False
        self.driver_name = child.get('name')
        self.driver_queues = _int(child.get('queues'))
        self.rx_queue_size = _int(child.get('rx_queue_size'))
        self.tx_queue_size = _int(child.get('tx_queue_size'))
        if host:
            self.host_csum = host[0].get('csum') == 'on'
        return True

    def _parse_virtualport(self, child):
        params = list(child)
        if set(child.attrib) != {'type'} or len(params) > 1 or (params and (
                params[0].tag != 'parameters' or set(params[0].attrib) != {'interfaceid'}
                or len(params[0]))):
            return False
        self.virtualport_type = child.get('type')
        if params:
            self.virtualport_interfaceid = params[0].get('interfaceid')
        return True

    def _parse_bandwidth(self, child):
        known = {'average', 'peak', 'burst'}
        if child.attrib or any(c.tag not in ('inbound', 'outbound') or len(c)
                               or set(c.attrib) - known for c in child):
            return False
        self.bandwidth = {c.tag: {k: int(v) for k, v in c.attrib.items()} for c in child}
        return True

    def parse_dom(self, xmldoc):
        self._start_parse(xmldoc)
        self.type = xmldoc.get('type')
        self.model = None
        self.extra_attrs.take('', xmldoc, ('type',))
        for child in xmldoc:
            one = dict(child.attrib)
            if self._parse_device(child):
                continue
            if child.tag == 'driver' and self._parse_driver(child):
                continue
            if child.tag == 'virtualport' and self._parse_virtualport(child):
                continue
            if child.tag == 'bandwidth' and self._parse_bandwidth(child):
                continue
            if child.tag == 'source' and not len(child) and one.get('type') == 'unix' and \
                    set(one) <= {'type', 'path', 'mode'}:
                self.vhostuser_path, self.vhostuser_mode = one.get('path'), one.get('mode')
                continue
            if child.tag == 'target' and not len(child) and 'dev' in one and \
                    set(one) <= {'dev', 'managed'}:
                self.target_dev = one['dev']
                if 'managed' in one:
                    self.target_managed = one['managed'] == 'yes'
                continue
            if len(child) or len(one) != 1:
                self._keep(child)
            elif child.tag == 'mac' and 'address' in one:
                self.mac_addr = one['address']
            elif child.tag == 'source' and 'bridge' in one:
                self.source_bridge = one['bridge']
            elif child.tag == 'source' and 'network' in one:
                self.source_network = one['network']
            elif child.tag == 'model' and 'type' in one:
                self.model = one['type']
            elif child.tag == 'mtu' and 'size' in one:
                self.mtu = int(one['size'])
            else:
                self._keep(child)
        return self
