"""Exceptions shared by every layer; each carries the HTTP code the API maps it to."""


class NovaException(Exception):
    """Base exception: ``msg_fmt`` is formatted with the keyword arguments."""

    msg_fmt = "An unknown exception occurred."
    code = 500

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError, ValueError):
                message = self.msg_fmt
        self.message = str(message)
        super().__init__(self.message)

    def format_message(self):
        return self.message


class Invalid(NovaException):
    msg_fmt = "%(reason)s"
    code = 400


class ValidationError(Invalid):
    msg_fmt = "%(detail)s"


class InvalidImageProperty(Invalid):
    msg_fmt = "Invalid image property %(key)s=%(value)s: %(reason)s"


class Forbidden(NovaException):
    msg_fmt = "Policy doesn't allow %(action)s to be performed."
    code = 403


class PolicyNotAuthorized(Forbidden):
    pass


class NotFound(NovaException):
    msg_fmt = "Resource could not be found."
    code = 404


class InstanceNotFound(NotFound):
    msg_fmt = "Instance %(instance_id)s could not be found."


class FlavorNotFound(NotFound):
    msg_fmt = "Flavor %(flavor_id)s could not be found."


class ImageNotFound(NotFound):
    msg_fmt = "Image %(image_id)s could not be found."


class VolumeNotFound(NotFound):
    msg_fmt = "Volume %(volume_id)s could not be found."


class Conflict(NovaException):
    msg_fmt = "Conflict: %(reason)s"
    code = 409


class FlavorExists(Conflict):
    msg_fmt = "Flavor with %(key)s %(value)s already exists."


class InstanceInvalidState(Conflict):
    msg_fmt = ("Cannot '%(action)s' instance %(instance_uuid)s while it is "
               "in %(attr)s %(state)s")


class InstanceLocked(Conflict):
    msg_fmt = "Instance %(instance_uuid)s is locked"


class UnexpectedTaskStateError(Conflict):
    msg_fmt = ("Conflict updating instance %(instance_uuid)s. "
               "Expected: %(expected)s. Actual: %(actual)s")


class NoValidHost(NovaException):
    msg_fmt = "No valid host was found. %(reason)s"


class ImageUnacceptable(Invalid):
    msg_fmt = "Image %(image_id)s is unacceptable: %(reason)s"


class ImageServiceError(NovaException):
    msg_fmt = "Image service error: %(reason)s"
    code = 503


class HypervisorError(NovaException):
    msg_fmt = "Hypervisor error: %(reason)s"


class InstanceDeployFailure(NovaException):
    msg_fmt = "Failed to deploy instance: %(reason)s"


class InstanceNotReady(Conflict):
    msg_fmt = "Instance %(instance_id)s is not ready"


class ConsoleNotAvailable(Conflict):
    msg_fmt = "Guest does not have a console available."


class VolumeServiceError(NovaException):
    msg_fmt = "Volume service error: %(reason)s"
    code = 503


class InvalidVolume(Invalid):
    msg_fmt = "Invalid volume: %(reason)s"


# The 404s below subclass VolumeNotFound so that a caller catching it
# covers every "gone from the volume service" case.
class VolumeAttachmentNotFound(VolumeNotFound):
    msg_fmt = "Volume attachment %(attachment_id)s could not be found."


class VolumeSnapshotNotFound(VolumeNotFound):
    msg_fmt = "Volume snapshot %(snapshot_id)s could not be found."


class VolumeNotReady(NovaException):
    msg_fmt = "Volume %(volume_id)s is not ready: %(reason)s"


class UnsupportedRescue(Invalid):
    msg_fmt = "Rescue is not possible: %(reason)s"


class UnsupportedRescueBus(UnsupportedRescue):
    msg_fmt = "Rescue bus %(bus)r is not supported: %(reason)s"


class UnsupportedRescueDevice(UnsupportedRescue):
    msg_fmt = "Rescue device %(device)r is not supported: %(reason)s"


class UnsupportedRescueImage(UnsupportedRescue):
    msg_fmt = "Rescue image is not supported: %(reason)s"


class InstanceGroupNotFound(NotFound):
    msg_fmt = "Instance group %(group_uuid)s could not be found."
