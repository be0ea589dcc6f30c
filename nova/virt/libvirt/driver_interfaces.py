"""Libvirt driver: a NIC hot-plugged into a guest (os-interface attach) and taken out again."""

import logging
import time

from nova import exception
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import vif as vif_mod

LOG = logging.getLogger(__name__)


class LibvirtInterfaces:
    """attach_interface / detach_interface on a guest, running or not.

    ``vifs`` (vif.LibvirtVifs) plugs the port and makes its interface;
    ``detach_timeout``: seconds a running guest gets to let go of the NIC
    (it answers the ACPI unplug request itself).
    """

    def __init__(self, core, vifs, detach_timeout=20, poll_interval=0.2):
        self._core = core
        self._vifs = vifs
        self._detach_timeout = detach_timeout
        self._poll_interval = poll_interval

    def attach_interface(self, context, instance, image_meta, vif):
        """Plug ``vif`` (a model.py VIF) and add its NIC to the definition and,
        when the guest runs, to the guest; on a failure the plug is undone."""
        guest = self._core.guest(instance)
        nic = self._vifs.interface(instance, image_meta.properties, vif)
        self._vifs.plug_vif(instance, vif)
        try:
            guest.attach_device(nic.to_xml(), live=guest.is_active(), config=True)
        except Exception:
            self._vifs.unplug(instance, [vif])
            raise
        LOG.info('Attached port %s to %s', vif['id'], instance.uuid)

    def detach_interface(self, context, instance, vif):
        """Take ``vif``'s NIC out of the definition and the running guest (found
        by its MAC), then unplug the port. A NIC already gone is fine."""
        guest = self._core.guest(instance)
        mac = vif.get('address')
        persistent = vif_mod.find_interface(vconfig.GuestDomain.from_xml(
            guest.get_xml_desc(inactive=True)), mac)
        if persistent is not None:
            guest.detach_device(persistent.to_xml(), live=False, config=True)
        if guest.is_active():
            live = self._live_interface(guest, mac)
            if live is not None:
                guest.detach_device(live.to_xml(), live=True, config=False)
                self._wait_gone(guest, instance, mac)
        self._vifs.unplug(instance, [vif])
        LOG.info('Detached port %s from %s', vif['id'], instance.uuid)

    @staticmethod
    def _live_interface(guest, mac):
        return vif_mod.find_interface(vconfig.GuestDomain.from_xml(guest.get_xml_desc()), mac)

    def _wait_gone(self, guest, instance, mac):
        deadline = time.monotonic() + self._detach_timeout
        while self._live_interface(guest, mac) is not None:
            if time.monotonic() >= deadline:
                raise exception.InterfaceDetachFailed(instance_uuid=instance.uuid)
            time.sleep(self._poll_interval)
