"""LibvirtDriver volume family: hot-plug, unplug, next device name, root snapshot."""

import logging
import os
import time

from nova import exception, failpoint
from nova.virt import bus_table
from nova.virt.libvirt import blockinfo, imagebackend
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import volume as libvirt_volume
from nova.virt.libvirt.guest_config import instance_image_props

LOG = logging.getLogger(__name__)


def read_domains(*xmls):
    """config.GuestDomain for each domain XML text given (None stays None)."""
    return [vconfig.GuestDomain.from_xml(xml) if xml else None for xml in xmls]


def domain_targets(*xmls):
    """Every disk target name in the given domain XML texts."""
    return {disk.target_dev for guest in read_domains(*xmls) if guest
            for disk in guest.get_disks()}


def find_disk(xml, dev=None, serial=None):
    """The config.GuestDisk with target ``dev`` (or ``serial``), or None."""
    if not xml:
        return None
    for disk in vconfig.GuestDomain.from_xml(xml).get_disks():
        if dev and disk.target_dev == dev:
            return disk
        if not dev and serial and disk.serial == serial:
            return disk
    return None


def controller_model(xml, bus):
    """Model of the controller (index 0) a disk on ``bus`` sits on in a
    domain XML (libvirt's implicit one when unnamed), or None if absent."""
    rule = bus_table.RULES[bus]
    ctrl = vconfig.GuestDomain.from_xml(xml).get_controller(rule.controller, 0)
    if ctrl is None:
        return None
    return ctrl.model or rule.implicit_model


class LibvirtVolumes:
    """Volume attach and detach (persistent and hot-plug), the next device
    name, and the root disk snapshot."""

    def __init__(self, core):
        self._core = core

    def _domain_xmls(self, guest):
        """(persistent XML, live XML or None when stopped)."""
        conf_xml = guest.get_xml_desc(inactive=True)
        live_xml = guest.get_xml_desc() if guest.is_active() else None
        return conf_xml, live_xml

    def guest_volume_disks(self, instance):
        """{volume id (disk serial): '/dev/<target>'} of the persistent and live domain."""
        found = {}
        for guest in read_domains(*self._domain_xmls(self._core.guest(instance))):
            for disk in guest.get_disks() if guest else ():
                if disk.serial:
                    found[disk.serial] = blockinfo.prepend_dev(disk.target_dev)
        return found

    @staticmethod
    def _machine_type(xml):
        guest = vconfig.GuestDomain.from_xml(xml)
        return guest.os.machine if guest.os is not None else None

    def _volume_bus(self, props, dev, bus, device_type, machine):
        return blockinfo.get_volume_bus(self._core.virt_type, props, dev, bus,
                                        device_type, machine,
                                        self._core.settings.arch)

    def get_next_volume_device(self, instance, image_meta=None, bus=None,
                               device_type='disk', requested=None, in_use=()):
        """'/dev/<name>' the next volume on ``bus`` gets (``requested``
        when it is free and fits the bus; Invalid when taken).  The
        persistent domain (plus the live one) is the source of names in
        use, so names stay stable across reboots."""
        guest = self._core.guest(instance)
        conf_xml, live_xml = self._domain_xmls(guest)
        props = (image_meta.properties if image_meta is not None
                 else instance_image_props(instance))
        dev = blockinfo.strip_dev(requested)
        if dev and dev.startswith('xvd'):
            # A Xen name (upstream accepts it): libvirt guests have no such
            # devices, so upstream's driver picks the next name itself, as here.
            dev = None
        bus = self._volume_bus(props, dev, bus, device_type,
                               self._machine_type(conf_xml))
        # ``in_use``: names given to volumes not attached yet.
        used = set(domain_targets(conf_xml, live_xml)) | {
            blockinfo.strip_dev(name) for name in in_use}
        # One more device than the host allows: refused before any name is given.
        blockinfo.check_device_count(len(used) + 1,
                                     self._core.conf.compute.max_disk_devices_to_attach)
        if dev:
            if dev in used:
                raise exception.Invalid(
                    reason='device /dev/%s is already in use on instance %s'
                           % (dev, instance.uuid))
            return blockinfo.prepend_dev(dev)
        return blockinfo.prepend_dev(blockinfo.get_next_device_name(used,
                                                                    bus))

    def attach_volume(self, context, connection_info, instance, mountpoint,
                      disk_bus=None, device_type=None, encryption=None):
        """Attach to the persistent domain, and hot-plug when running.

        Returns the device name used ('/dev/vdb'), for the manager to
        store in the block device mapping.
        """
        guest = self._core.guest(instance)
        conf_xml, live_xml = self._domain_xmls(guest)
        running = live_xml is not None
        device_type = device_type or 'disk'
        dev = blockinfo.strip_dev(mountpoint)
        machine = self._machine_type(conf_xml)
        bus = self._volume_bus(instance_image_props(instance), dev,
                               disk_bus, device_type, machine)
        used = domain_targets(conf_xml, live_xml)
        if dev and dev in used:
            raise exception.Invalid(
                reason='device /dev/%s is already in use on instance %s'
                       % (dev, instance.uuid))
        if not dev:
            dev = blockinfo.get_next_device_name(used, bus)
        if running and not bus_table.RULES[bus].hotplug:
            raise exception.Invalid(
                reason='the %s bus cannot take a disk while the instance '
                       'runs (hot-plug works on: %s); stop it first'
                       % (bus, ', '.join(bus_table.HOTPLUG_BUSES)))
        driver = libvirt_volume.get_volume_driver(connection_info)
        info = blockinfo.disk_info(bus, dev, device_type)
        disk = driver.get_config(connection_info, info,
                                 self._core.settings.disk_cachemode)
        driver.connect_volume(connection_info, instance)
        try:
            if bus_table.RULES[bus].controller:
                disk.address = self._controller_address(guest, conf_xml, running,
                                                        bus, dev)
            guest.attach_device(disk.to_xml(), live=running, config=True)
        except Exception:
            driver.disconnect_volume(connection_info, instance)
            raise
        LOG.info('Attached volume %s to %s at /dev/%s',
                 libvirt_volume.volume_id(connection_info), instance.uuid,
                 dev)
        return blockinfo.prepend_dev(dev)

    def _controller_address(self, guest, conf_xml, running, bus, dev):
        """Make sure the bus's controller 0 exists (the table's model when we
        add it: virtio-scsi) and return the disk's address on it, if the
        driver writes one."""
        model = controller_model(conf_xml, bus)
        if model is None:
            rule = bus_table.RULES[bus]
            model = rule.controller_model
            ctrl = vconfig.GuestController(type=rule.controller, index=0, model=model)
            guest.attach_device(ctrl.to_xml(), live=running, config=True)
        return blockinfo.drive_address(blockinfo.disk_info(bus, dev), model)

    def detach_volume(self, context, connection_info, instance, mountpoint,
                      encryption=None):
        """Remove from the persistent domain and unplug from the running
        guest, waiting up to [libvirt]device_detach_timeout for it."""
        guest = self._core.guest(instance)
        conf_xml, live_xml = self._domain_xmls(guest)
        dev = blockinfo.strip_dev(mountpoint)
        serial = libvirt_volume.volume_id(connection_info or {})
        conf_disk = find_disk(conf_xml, dev, serial)
        live_disk = find_disk(live_xml, dev, serial)
        if conf_disk is None and live_disk is None:
            raise exception.NotFound(
                'No disk at %s (volume %s) on instance %s'
                % (mountpoint, serial, instance.uuid))
        if conf_disk is not None:
            guest.detach_device(conf_disk.to_xml(), live=False, config=True)
        if live_disk is not None:
            target = live_disk.target_dev
            guest.detach_device(live_disk.to_xml(), live=True, config=False)
            try:
                self._wait_for_unplug(guest, target)
            except exception.HypervisorError:
                # The guest kept the disk: put it back in the persistent
                # definition so the next boot matches what the API reports.
                if conf_disk is not None:
                    guest.attach_device(conf_disk.to_xml(), live=False,
                                        config=True)
                raise
        if connection_info:
            libvirt_volume.get_volume_driver(
                connection_info).disconnect_volume(connection_info, instance)
        LOG.info('Detached volume %s from %s', serial, instance.uuid)

    def _wait_for_unplug(self, guest, dev):
        deadline = time.monotonic() + self._core.conf.libvirt.device_detach_timeout
        while True:
            if not guest.is_active() or dev not in domain_targets(
                    guest.get_xml_desc()):
                return
            if time.monotonic() >= deadline:
                raise exception.HypervisorError(
                    reason='the guest did not release /dev/%s within %ss; the '
                           'volume stays attached' % (
                               dev, self._core.conf.libvirt.device_detach_timeout))
            time.sleep(0.05)

    # ------------------------------------------------------------ snapshot
    def _root_disk_source(self, guest, instance):
        """(path, format) of the root disk: the image overlay, else the
        boot-order-1 disk of the persistent domain (a file volume)."""
        path = self._core.instance_disk_path(instance)
        if os.path.exists(path):
            return path, 'qcow2'
        domain = vconfig.GuestDomain.from_xml(guest.get_xml_desc(inactive=True))
        for disk in domain.get_disks():
            if disk.boot_order == 1:
                return disk.source_path, disk.driver_format
        raise exception.NotFound('instance %s has no root disk file'
                                 % instance.uuid)

    def snapshot(self, context, instance, dest_path):
        """Write the root disk to ``dest_path`` as a standalone qcow2.

        A running guest is paused for the copy (QEMU keeps the file open:
        qemu-img reads with force-share), so the copy is crash-consistent.
        Returns {'path', 'disk_format', 'container_format', 'size'} for the
        manager's upload.
        """
        guest = self._core.guest(instance)
        src, fmt = self._root_disk_source(guest, instance)
        running = guest.is_active()
        paused = False
        try:
            if running:
                guest.pause()
                paused = True
                failpoint.hit('snapshot.guest_paused')
            imagebackend.convert_to_qcow2(src, fmt, dest_path,
                                          force_share=running)
        except imagebackend.ProcessError as exc:
            raise exception.HypervisorError(reason=exc.format_message())
        finally:
            if paused:
                guest.resume()
        return {'path': dest_path, 'disk_format': 'qcow2',
                'container_format': 'bare',
                'size': os.path.getsize(dest_path)}
