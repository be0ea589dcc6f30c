"""libvirt driver: set a guest user's password through the QEMU guest agent."""

import time

import libvirt

from nova import exception
from nova.objects import image_meta as image_meta_obj
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import consoles

# How often the agent channel's state is read while a guest boots.
AGENT_POLL_INTERVAL = 0.25


def agent_channel_state(domain_xml):
    """'connected', 'disconnected', or None when libvirt reports no state."""
    for channel in vconfig.GuestDomain.from_xml(domain_xml).get_devices(vconfig.GuestChannel):
        if channel.target_name == consoles.AGENT_CHANNEL:
            return channel.target_state
    return None


class LibvirtPassword:
    """set_admin_password through the QEMU guest agent."""

    def __init__(self, core):
        self._core = core

    def set_admin_password(self, instance, new_pass):
        props = image_meta_obj.ImageMeta.from_instance(instance).properties
        if not consoles.agent_enabled(props):
            # Only images with hw_qemu_guest_agent=yes have the agent channel.
            raise exception.InstanceAgentNotEnabled()
        user = props.get('os_admin_user') or (
            'Administrator' if props.get('os_type') == 'windows' else 'root')
        guest = self._core.guest(instance)
        self._wait_for_agent(guest, self._core.conf.libvirt.agent_connect_timeout)
        try:
            guest.domain.setUserPassword(user, new_pass, 0)
        except libvirt.libvirtError as exc:
            if exc.get_error_code() == libvirt.VIR_ERR_AGENT_UNRESPONSIVE:
                # As upstream: no agent answers in the guest -> 501.
                raise NotImplementedError('the QEMU guest agent did not answer') from None
            raise exception.InstancePasswordSetFailed(
                instance=instance.uuid,
                reason='libvirt error %s' % exc.get_error_code()) from None

    @staticmethod
    def _wait_for_agent(guest, timeout):
        """Wait while the agent channel reads 'disconnected' (a guest still
        booting), at most ``timeout`` seconds; the caller then tries anyway,
        so an agent that never comes still gets upstream's answer."""
        deadline = time.monotonic() + timeout
        while agent_channel_state(guest.get_xml_desc()) == 'disconnected':
            if time.monotonic() >= deadline:
                return False
            time.sleep(AGENT_POLL_INTERVAL)
        return True
