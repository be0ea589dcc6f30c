"""Libvirt driver: power a guest off and on, reboot, pause, suspend, and read its state."""

import logging
import time

from nova import exception, power_state
from nova.virt import driver

LOG = logging.getLogger(__name__)


class LibvirtPower:
    """Power calls on an instance's guest.

    ``build`` (LibvirtBuild) defines the guest again when its domain is
    gone (power on, reboot); ``soft_reboot_wait``: seconds a soft reboot
    waits for the guest to shut down before it reboots hard;
    ``shutdown_poll_interval``: how often the power state is read meanwhile;
    ``vifs`` (vif.LibvirtVifs) plugs the ports again before a start (a tap
    lost with a host reboot is made again; a plugged one stays as it is).
    """

    def __init__(self, core, build, vifs, soft_reboot_wait=120, shutdown_poll_interval=0.1):
        self._core = core
        self._build = build
        self._vifs = vifs
        self._soft_reboot_wait = soft_reboot_wait
        self._shutdown_poll_interval = shutdown_poll_interval

    def _wait_for_state(self, guest, state, timeout):
        """Poll until the guest reaches ``state``; False on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            if guest.get_power_state() == state:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(self._shutdown_poll_interval)

    def clean_shutdown(self, guest, timeout, retry_interval):
        """ACPI shutdown, re-sent every retry_interval; True if it worked."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if guest.get_power_state() != power_state.RUNNING:
                return guest.get_power_state() == power_state.SHUTDOWN
            try:
                guest.shutdown()
            except exception.HypervisorError:
                # Raced with the guest stopping by itself.
                pass
            wait = min(retry_interval or timeout,
                       max(0, deadline - time.monotonic()))
            if self._wait_for_state(guest, power_state.SHUTDOWN, wait):
                return True
        return guest.get_power_state() == power_state.SHUTDOWN

    def power_off(self, instance, timeout=0, retry_interval=0):
        try:
            guest = self._core.guest(instance)
        except exception.InstanceNotFound:
            return   # no domain is as off as it gets (upstream's _destroy)
        if timeout and self.clean_shutdown(guest, timeout, retry_interval):
            return
        guest.poweroff()

    def power_on(self, context, instance, network_info,
                 block_device_info=None, accel_info=None):
        guest = self._build.guest_or_recreate(context, instance, block_device_info)
        if not guest.is_active():
            self._vifs.plug(instance, self._vifs.network_info(instance, network_info))
            guest.launch()

    def reboot(self, context, instance, network_info, reboot_type,
               block_device_info=None, bad_volumes_callback=None,
               accel_info=None):
        # A missing domain makes any reboot a hard one, as upstream.
        guest = self._build.guest_or_recreate(context, instance, block_device_info)
        if reboot_type == 'SOFT' and guest.is_active():
            if self.clean_shutdown(guest, self._soft_reboot_wait, 0):
                guest.launch()
                return
            LOG.info('Soft reboot of %s timed out; rebooting hard',
                     instance.uuid)
        guest.poweroff()
        self._vifs.plug(instance, self._vifs.network_info(instance, network_info))
        guest.launch()

    def pause(self, instance):
        self._core.guest(instance).pause()

    def unpause(self, instance):
        self._core.guest(instance).resume()

    def suspend(self, context, instance):
        self._core.guest(instance).save_memory_state()

    def resume(self, context, instance, network_info,
               block_device_info=None):
        guest = self._core.guest(instance)
        if not guest.is_active():
            self._vifs.plug(instance, self._vifs.network_info(instance, network_info))
            guest.launch()

    def get_info(self, instance, use_cache=True):
        guest = self._core.guest(instance)
        return driver.InstanceInfo(state=guest.get_power_state(),
                                   internal_id=guest.id)
