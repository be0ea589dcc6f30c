"""Compute manager: set the admin password through the driver (the QEMU guest agent)."""

import logging

import oslo_messaging as messaging

from nova import exception
from nova.compute import manager_core

LOG = logging.getLogger(__name__)


class PasswordManager:
    """The guest's admin password, set through the driver."""

    target = manager_core.RPC_TARGET

    def __init__(self, core):
        self.core = core
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host

    @messaging.expected_exceptions(exception.Conflict, NotImplementedError)
    def set_admin_password(self, context, instance, new_pass):
        with self.core.lock(instance.uuid):
            try:
                with self.core.event(context, instance.uuid,
                                   'compute_set_admin_password', host=self.host):
                    self._set_admin_password(instance, new_pass)
            finally:
                try:
                    self.conductor_db.instance_update(instance.uuid, {'task_state': None},
                                                      expected_task_state=['updating_password'])
                except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
                    pass

    def _set_admin_password(self, instance, new_pass):
        setter = getattr(self.driver, 'set_admin_password', None)
        if setter is None:
            raise NotImplementedError('set_admin_password is not implemented by this '
                                      'driver or guest instance.')
        try:
            setter(instance, new_pass)
        except exception.InstanceAgentNotEnabled as exc:
            raise exception.InstancePasswordSetFailed(instance=instance.uuid,
                                                      reason=exc.format_message())
        except (NotImplementedError, exception.InstancePasswordSetFailed):
            raise
        except Exception:  # noqa: BLE001 - never echo what might hold the password.
            LOG.exception('Setting the admin password of %s failed', instance.uuid)
            raise exception.InstancePasswordSetFailed(instance=instance.uuid,
                                                      reason='error setting admin password')
