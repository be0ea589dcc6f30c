"""Libvirt driver: a guest's definition, from disk mapping and host facts to a defined domain."""

import contextlib

from nova import exception
from nova.virt.libvirt import (
    blockinfo,
    config_caps,
    guest_config,
    guest_devices,
    guestfeatures,
    vtpm,
)
from nova.virt.libvirt import config as vconfig


def free_pages(conn, caps):
    """{cell: {size KiB: free}} for the huge page sizes the host has (``caps``:
    a config_caps.Capabilities), or None."""
    sizes = sorted((set(caps.page_sizes_kib) | {
        size for cell in caps.cells for size, _count in cell.pages}) - {4})
    if not caps.cells or not sizes:
        return None
    try:
        return conn.getFreePages(sizes, 0, len(caps.cells), 0)
    except Exception:  # noqa: BLE001 - page counts from capabilities still apply.
        return None


class LibvirtDefinition:
    """Disk mapping, domain XML and the define of a guest.

    ``disks`` (LibvirtDisks) fetches the kernel and ramdisk a definition
    names; ``consoles`` (LibvirtConsoles) picks the serial console port;
    ``placement_lock`` is shared by the drivers of one libvirtd: host CPUs
    and pages are picked, and the guest started, by one spawn at a time;
    ``vifs`` (vif.LibvirtVifs) makes the interfaces from the network info.
    """

    def __init__(self, core, disks, consoles, placement_lock, vifs):
        self._core = core
        self._disks = disks
        self._consoles = consoles
        self._placement_lock = placement_lock
        self._vifs = vifs

    def disk_mapping(self, instance, image_meta, block_device_info=None):
        """The guest's disks; TooManyDiskDevices past [compute]
        max_disk_devices_to_attach (before anything is made)."""
        mapping = guest_config.get_disk_mapping(self._core.virt_type, self._core.settings,
                                                instance, image_meta, block_device_info)
        blockinfo.check_device_count(len({info['dev'] for info in mapping.values()}),
                                     self._core.conf.compute.max_disk_devices_to_attach)
        return mapping

    def device_names(self, instance, image_meta, block_device_info=None):
        """Device names spawn will use, to store back into the BDMs
        (blockinfo.get_device_names shape); raises Invalid on conflicts,
        without touching anything."""
        return blockinfo.get_device_names(
            self.disk_mapping(instance, image_meta, block_device_info))

    def guest_xml(self, instance, image_meta, disk_mapping=None, boot_files=None,
                  block_device_info=None, host_info=None, network_info=None):
        """``network_info`` None: the instance's network info cache."""
        if disk_mapping is None:
            disk_mapping = self.disk_mapping(instance, image_meta, block_device_info)
        network_info = self._vifs.network_info(instance, network_info)
        guest = guest_config.get_guest_config(
            self._core.settings, instance, image_meta, disk_mapping, boot_files,
            block_device_info, host_info,
            serial_port=self._consoles.serial_port_for(instance),
            interfaces=self._vifs.interfaces(instance, image_meta.properties,
                                             network_info),
            ports=guest_devices.metadata_ports(network_info))
        if guest.get_devices(vconfig.GuestTPM) and not self._core.host.is_test:
            settings = self._core.settings
            vtpm.link_state(self._core.instance_dir(instance), instance.uuid,
                            user=settings.swtpm_user, group=settings.swtpm_group)
        return guest.to_xml()

    def _running_xmls(self):
        """Domain XML of running guests; one may vanish while we look (a
        concurrent delete), which must not fail this spawn."""
        xmls = []
        for guest in self._core.host.list_guests(True):
            try:
                xmls.append(guest.get_xml_desc())
            except exception.NotFound:
                continue
        return xmls

    def host_info(self):
        """Host facts for NUMA/pinning/huge pages, read fresh at each spawn
        (CPUs pinned by other guests and free pages change over time)."""
        host = self._core.host
        if host.is_test:
            return None
        conn = host.get_connection()
        # One parse feeds both the host cells and the page sizes to count.
        caps = config_caps.Capabilities.from_xml(conn.getCapabilities())
        return guestfeatures.host_info_from_capabilities(
            caps, host.get_domain_capabilities(self._core.domain_type),
            pinned_cpus=guestfeatures.pinned_host_cpus(self._running_xmls()),
            free_pages=free_pages(conn, caps))

    @contextlib.contextmanager
    def placement(self):
        """Held while a guest's host CPUs and pages are picked and it is
        defined (and, for a spawn, started): two guests cannot pin one CPU."""
        with self._placement_lock:
            yield

    def define(self, context, instance, image_meta, block_device_info, disk_mapping=None):
        """Define (not start) the guest as the instance is now: flavor,
        image properties, block device mappings; returns the guest.Guest."""
        if disk_mapping is None:
            disk_mapping = self.disk_mapping(instance, image_meta, block_device_info)
        boot_files = self._disks.fetch_boot_files(context, instance, image_meta,
                                                  disk_mapping)
        with self.placement():
            xml = self.guest_xml(instance, image_meta, disk_mapping, boot_files,
                                 block_device_info, host_info=self.host_info())
            return self._core.host.define_guest(xml)

