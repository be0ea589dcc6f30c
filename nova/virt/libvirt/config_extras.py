"""libvirt domain XML for optional hardware: watchdog, TPM, IOMMU, sound, features, metadata."""

import copy
from xml.etree import ElementTree as etree

from nova.virt.libvirt.config_base import ConfigObject, _sub
from nova.virt.libvirt.config_devices import GuestDevice

NOVA_NS = 'http://openstack.org/xmlns/libvirt/nova/1.1'


class GuestWatchdog(GuestDevice):
    """<watchdog model action/>."""

    root_name = 'watchdog'
    model = 'i6300esb'
    action = 'reset'

    def format_dom(self):
        dev = etree.Element('watchdog', model=self.model, action=self.action)
        self._format_alias(dev)
        self._format_address(dev)
        return dev


class GuestTPM(GuestDevice):
    """<tpm model><backend type='emulator' version/></tpm> (swtpm)."""

    root_name = 'tpm'
    model = 'tpm-tis'
    version = '2.0'

    def format_dom(self):
        dev = etree.Element('tpm', model=self.model)
        _sub(dev, 'backend', type='emulator', version=self.version)
        self._format_alias(dev)
        return dev


class GuestIOMMU(GuestDevice):
    """<iommu model><driver .../></iommu>; ``driver``: {attribute: value}."""

    root_name = 'iommu'
    model = 'virtio'
    driver = None

    def format_dom(self):
        dev = etree.Element('iommu', model=self.model)
        if self.driver:
            _sub(dev, 'driver', **self.driver)
        self._format_alias(dev)
        self._format_address(dev)
        return dev


class GuestSound(GuestDevice):
    """<sound model/>."""

    root_name = 'sound'
    model = 'ich9'

    def format_dom(self):
        dev = etree.Element('sound', model=self.model)
        self._format_alias(dev)
        self._format_address(dev)
        return dev


class GuestUSBRedir(GuestDevice):
    """<redirdev bus='usb' type='spicevmc'/>: a USB device a SPICE client lends."""

    root_name = 'redirdev'
    type = 'spicevmc'

    def format_dom(self):
        dev = etree.Element('redirdev', bus='usb', type=self.type)
        self._format_device(dev)
        return dev


class GuestFeatureState(ConfigObject):
    """A <features> child with a state: <pmu state='off'/>, <smm state='on'/>."""

    name = None
    state = True

    def format_dom(self):
        return etree.Element(self.name, state='on' if self.state else 'off')


class GuestFeatureIOAPIC(ConfigObject):
    """<ioapic driver='qemu'/>: the interrupt remapping an Intel IOMMU needs."""

    root_name = 'ioapic'
    driver = 'qemu'

    def format_dom(self):
        return etree.Element('ioapic', driver=self.driver)


class GuestFeatureKvmHidden(ConfigObject):
    """<kvm><hidden state='on'/></kvm>: no KVM signature in the guest's CPUID."""

    root_name = 'kvm'

    def format_dom(self):
        kvm = etree.Element('kvm')
        _sub(kvm, 'hidden', state='on')
        return kvm


class GuestFeatureHyperV(ConfigObject):
    """<hyperv>: the enlightenments Windows guests use; ``vendor_id``
    replaces the hypervisor vendor string (hidden hypervisor id)."""

    root_name = 'hyperv'
    features = ()               # names of simple <name state='on'/> children
    spinlock_retries = 8191
    vendor_id = None

    def format_dom(self):
        hv = etree.Element('hyperv')
        for name in self.features:
            if name == 'spinlocks':
                _sub(hv, name, state='on', retries=self.spinlock_retries)
            else:
                _sub(hv, name, state='on')
        if self.vendor_id:
            _sub(hv, 'vendor_id', state='on', value=self.vendor_id)
        return hv


class GuestVCPUSched(ConfigObject):
    """<vcpusched vcpus scheduler priority/> inside <cputune>."""

    root_name = 'vcpusched'
    vcpus = None                # '1-3'
    scheduler = 'fifo'
    priority = 1

    def format_dom(self):
        return etree.Element('vcpusched', vcpus=self.vcpus, scheduler=self.scheduler,
                             priority=str(self.priority))


class GuestNovaMetadata(ConfigObject):
    """<metadata><nova:instance>: who and what the guest is, as upstream
    writes it (namespace 1.1).  ``flavor``: {name, memory, disk, swap,
    ephemeral, vcpus}; ``owner``: (user id, user name, project id, project
    name); ``root``: (type, uuid); ``ports``: ((port id, ((ip type,
    address, version), ...)), ...), filled by the networking code."""

    root_name = 'metadata'
    name = None
    creation_time = None
    package = None
    flavor = None
    owner = None
    root = None
    ports = ()

    def format_dom(self):
        meta = etree.Element('metadata')
        # The prefix is written out, not left to ElementTree: libvirt keeps
        # the namespace declaration on the element it belongs to.
        inst = etree.SubElement(meta, 'nova:instance', {'xmlns:nova': NOVA_NS})

        def sub(parent, tag, text=None, **attrs):
            return _sub(parent, 'nova:' + tag, text, **attrs)

        if self.package:
            sub(inst, 'package', version=self.package)
        sub(inst, 'name', self.name)
        if self.creation_time:
            sub(inst, 'creationTime', self.creation_time)
        if self.flavor:
            flavor = sub(inst, 'flavor', name=self.flavor.get('name'))
            for key in ('memory', 'disk', 'swap', 'ephemeral', 'vcpus'):
                sub(flavor, key, self.flavor.get(key, 0))
        if self.owner:
            user_id, user_name, project_id, project_name = self.owner
            owner = sub(inst, 'owner')
            if user_id:
                sub(owner, 'user', user_name or user_id, uuid=user_id)
            if project_id:
                sub(owner, 'project', project_name or project_id, uuid=project_id)
        if self.root:
            sub(inst, 'root', type=self.root[0], uuid=self.root[1] or None)
        ports = sub(inst, 'ports')
        for port_id, ips in self.ports:
            port = sub(ports, 'port', uuid=port_id)
            for ip_type, address, version in ips:
                sub(port, 'ip', type=ip_type, address=address, ipVersion=version)
        return meta



def _prefixed(elem, prefixes):
    """``elem`` with its namespaced tags written as prefix:tag and the
    declaration on the element that first uses it (ElementTree would put
    ns0 declarations on the document root)."""
    declared = set()
    for node in elem.iter():
        if isinstance(node.tag, str) and node.tag.startswith('{'):
            uri, local = node.tag[1:].split('}', 1)
            prefix = prefixes.setdefault(uri, 'nova' if uri == NOVA_NS
                                         else 'ns%d' % len(prefixes))
            node.tag = '%s:%s' % (prefix, local)
            if uri not in declared:
                node.set('xmlns:' + prefix, uri)
                declared.add(uri)
    return elem


class GuestMetadataKept(ConfigObject):
    """A parsed <metadata>: kept as it was, namespaces on their elements."""

    root_name = 'metadata'
    element = None

    def parse_dom(self, xmldoc):
        self.element = copy.deepcopy(xmldoc)
        return self

    def format_dom(self):
        return _prefixed(copy.deepcopy(self.element), {})
