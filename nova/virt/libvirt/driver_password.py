"""libvirt driver: set a guest user's password through the QEMU guest agent."""

import libvirt

from nova import exception
from nova.objects import image_meta as image_meta_obj
from nova.virt.libvirt import consoles


class PasswordMixin:
    """Mixed into LibvirtDriver."""

    def set_admin_password(self, instance, new_pass):
        props = image_meta_obj.ImageMeta.from_instance(instance).properties
        if not consoles.agent_enabled(props):
            # Only images with hw_qemu_guest_agent=yes have the agent channel.
            raise exception.InstanceAgentNotEnabled()
        user = props.get('os_admin_user') or (
            'Administrator' if props.get('os_type') == 'windows' else 'root')
        domain = self._guest(instance).domain
        try:
            domain.setUserPassword(user, new_pass, 0)
        except libvirt.libvirtError as exc:
            if exc.get_error_code() == libvirt.VIR_ERR_AGENT_UNRESPONSIVE:
                # As upstream: no agent answers in the guest -> 501.
                raise NotImplementedError('the QEMU guest agent did not answer') from None
            raise exception.InstancePasswordSetFailed(
                instance=instance.uuid,
                reason='libvirt error %s' % exc.get_error_code()) from None
