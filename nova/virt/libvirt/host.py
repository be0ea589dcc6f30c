"""The libvirt connection: opened lazily, shared by threads, host facts cached."""

import dataclasses
import threading

import libvirt

from nova import exception
from nova.virt.libvirt import config_caps, schema_check
from nova.virt.libvirt import guest as libvirt_guest

# URIs for each virt type when [libvirt]connection_uri is empty.
DEFAULT_URIS = {
    'qemu': 'qemu:///system',
    'kvm': 'qemu:///system',
    'lxc': 'lxc:///system',
}


def uri_for_virt_type(virt_type, connection_uri=''):
    return connection_uri or DEFAULT_URIS[virt_type]


_UNSET = object()


def _ignore_libvirt_error(_ctx, _err):
    """libvirt prints every error to stderr by default; we raise instead."""


@dataclasses.dataclass
class HostCapabilities:
    """The few facts from <capabilities> the driver uses."""

    arch: str
    host_uuid: str = None
    cpu_model: str = None
    cpu_vendor: str = None
    sockets: int = None
    cores: int = None
    threads: int = None
    features: tuple = ()
    numa_cells: int = 1
    page_sizes_kib: tuple = ()
    # {arch: (domain types)} from the <guest> entries
    guest_domain_types: dict = dataclasses.field(default_factory=dict)
    # {arch: {machine or alias: canonical}} QEMU offers per guest arch
    machines: dict = dataclasses.field(default_factory=dict)


def parse_capabilities(xml):
    """HostCapabilities out of virConnectGetCapabilities XML."""
    caps = config_caps.Capabilities.from_xml(xml)
    return HostCapabilities(
        arch=caps.arch, host_uuid=caps.host_uuid, cpu_model=caps.cpu_model,
        cpu_vendor=caps.cpu_vendor,
        sockets=caps.sockets, cores=caps.cores, threads=caps.threads,
        features=caps.features, numa_cells=caps.numa_cells_num or 1,
        page_sizes_kib=caps.page_sizes_kib,
        guest_domain_types=caps.guest_domain_types, machines=caps.machines)


class Host:
    """A libvirt connection that many threads share.

    libvirt connections are thread-safe; the lock only guards opening.
    Capabilities never change while libvirtd runs, so they are cached.
    """

    def __init__(self, uri):
        self.uri = uri
        self._conn = None
        self._lock = threading.Lock()
        self._caps = None
        self._domcaps = {}
        self._checker = _UNSET
        libvirt.registerErrorHandler(_ignore_libvirt_error, None)

    @property
    def is_test(self):
        """True for libvirt's in-process mock hypervisor (test:///...)."""
        return self.uri.startswith('test:')

    def _schema_checker(self):
        # Looked up once; None (libvirt checks in-process) unless test:///.
        if self._checker is _UNSET:
            self._checker = schema_check.domain_schema() if self.is_test else None
        return self._checker

    def get_connection(self):
        conn = self._conn
        if conn is not None and self._alive(conn):
            return conn
        with self._lock:
            if self._conn is None or not self._alive(self._conn):
                self._conn = self._open()
            return self._conn

    @staticmethod
    def _alive(conn):
        try:
            return conn.isAlive() == 1
        except libvirt.libvirtError:
            return False

    def _open(self):
        try:
            return libvirt.open(self.uri)
        except libvirt.libvirtError as exc:
            raise exception.HypervisorError(
                reason='cannot connect to libvirt at %s (is libvirtd running?): %s'
                       % (self.uri, exc.get_error_message()))

    def close(self):
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.close()
                except libvirt.libvirtError:
                    pass
                self._conn = None

    def _call(self, what, func, *args):
        try:
            return func(*args)
        except libvirt.libvirtError as exc:
            raise exception.HypervisorError(
                reason='%s failed: %s' % (what, exc.get_error_message()))

    # ------------------------------------------------------------ host facts
    def get_capabilities(self):
        if self._caps is None:
            conn = self.get_connection()
            self._caps = parse_capabilities(
                self._call('capabilities', conn.getCapabilities))
        return self._caps

    def get_domain_capabilities(self, virt_type, arch=None, machine=None):
        """config_caps.DomainCapabilities, or None if unsupported."""
        key = (virt_type, arch, machine)
        if key not in self._domcaps:
            conn = self.get_connection()
            try:
                xml = conn.getDomainCapabilities(None, arch, machine,
                                                 virt_type, 0)
                self._domcaps[key] = config_caps.DomainCapabilities.from_xml(
                    xml)
            except libvirt.libvirtError as exc:
                if exc.get_error_code() != libvirt.VIR_ERR_NO_SUPPORT:
                    raise exception.HypervisorError(
                        reason='domain capabilities failed: %s'
                               % exc.get_error_message())
                self._domcaps[key] = None
        return self._domcaps[key]

    def get_node_info(self):
        """virNodeGetInfo: [model, memory_mb, cpus, mhz, nodes, sockets,
        cores, threads]."""
        conn = self.get_connection()
        return self._call('node info', conn.getInfo)

    def get_hypervisor_type(self):
        return self._call('type', self.get_connection().getType)

    def get_hypervisor_version(self):
        return self._call('version', self.get_connection().getVersion)

    def get_hostname(self):
        return self._call('hostname', self.get_connection().getHostname)

    def get_memory_stats_kib(self):
        """{'total','free','buffers','cached'} in KiB, or None if the
        driver cannot tell (test:///)."""
        conn = self.get_connection()
        try:
            return conn.getMemoryStats(libvirt.VIR_NODE_MEMORY_STATS_ALL_CELLS,
                                       0)
        except libvirt.libvirtError as exc:
            if exc.get_error_code() == libvirt.VIR_ERR_NO_SUPPORT:
                return None
            raise exception.HypervisorError(
                reason='memory stats failed: %s' % exc.get_error_message())

    # --------------------------------------------------------------- guests
    def get_guest(self, uuid):
        """Guest for an instance UUID; InstanceNotFound if undefined."""
        conn = self.get_connection()
        try:
            return libvirt_guest.Guest(conn.lookupByUUIDString(uuid))
        except libvirt.libvirtError as exc:
            if exc.get_error_code() == libvirt.VIR_ERR_NO_DOMAIN:
                raise exception.InstanceNotFound(instance_id=uuid)
            raise exception.HypervisorError(
                reason='lookup of %s failed: %s'
                       % (uuid, exc.get_error_message()))

    def get_domain(self, uuid):
        return self.get_guest(uuid).domain

    def list_guests(self, only_running=False):
        conn = self.get_connection()
        flags = libvirt.VIR_CONNECT_LIST_DOMAINS_ACTIVE if only_running else 0
        domains = self._call('list domains', conn.listAllDomains, flags)
        return [libvirt_guest.Guest(dom) for dom in domains]

    def list_instance_uuids(self):
        return [g.uuid for g in self.list_guests()]

    def list_instance_names(self):
        return [g.name for g in self.list_guests()]

    def define_guest(self, xml, validate=True):
        """Define (or redefine) a persistent domain from XML, checked
        against libvirt's schema first (a bad element fails here with a
        clear message, not later at start). ``validate=False`` is for XML
        libvirt itself wrote (a saved definition): the schema check costs
        about 12 ms per define and cannot fail on it."""
        conn = self.get_connection()
        flags = libvirt.VIR_DOMAIN_DEFINE_VALIDATE if validate else 0
        checker = self._schema_checker() if validate else None
        if checker:
            # The in-process test driver: the same check, in a child.
            message = schema_check.errors(xml, checker)
            if message:
                raise exception.HypervisorError(
                    reason='defining the domain failed: %s' % message)
            flags = 0
        try:
            return libvirt_guest.Guest(conn.defineXMLFlags(xml, flags))
        except libvirt.libvirtError as exc:
            raise exception.HypervisorError(
                reason='defining the domain failed: %s'
                       % exc.get_error_message())
