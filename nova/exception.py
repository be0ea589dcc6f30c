"""Exceptions shared by every layer; each carries the HTTP code the API maps it to."""

# The bases and the networking exceptions are defined in modules of their own.
from nova.exception_base import (  # noqa: F401 - names of this module too
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    NovaException,
    QuotaError,
)
from nova.exception_network import *  # noqa: F403


class ValidationError(Invalid):
    msg_fmt = "%(detail)s"


class InvalidImageProperty(Invalid):
    msg_fmt = "Invalid image property %(key)s=%(value)s: %(reason)s"




class PolicyNotAuthorized(Forbidden):
    pass


class TooManyDiskDevices(Forbidden):
    msg_fmt = ("The maximum allowed number of disk devices (%(maximum)d) to attach to a "
               "single instance has been exceeded.")


class HostNotAuthorized(Forbidden):
    """A compute host asked the conductor for a row that is not its own."""
    msg_fmt = "Host %(host)s may not %(operation)s %(target)s: it is not that host's."


class HostNotAuthenticated(HostNotAuthorized):
    """A call to the conductor names a host whose key did not sign it."""
    msg_fmt = "The %(operation)s call naming host %(host)s carries %(reason)s."


class RPCVersionPinned(NovaException):
    msg_fmt = ("%(what)s needs %(topic)s RPC %(needed)s, but [upgrade_levels] %(topic)s "
               "pins it to %(pin)s: upgrade every %(topic)s service, then lift the pin.")




class InstanceNotFound(NotFound):
    msg_fmt = "Instance %(instance_id)s could not be found."


class FlavorNotFound(NotFound):
    msg_fmt = "Flavor %(flavor_id)s could not be found."


class ImageNotFound(NotFound):
    msg_fmt = "Image %(image_id)s could not be found."


class VolumeNotFound(NotFound):
    msg_fmt = "Volume %(volume_id)s could not be found."




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


class MigrationError(NovaException):
    msg_fmt = "Migration error: %(reason)s"


class MigrationPreCheckError(MigrationError):
    msg_fmt = "Migration pre-check error: %(reason)s"
    code = 400


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


class VolumeBDMNotFound(NotFound):
    msg_fmt = "No volume Block Device Mapping with id %(volume_id)s."


class MultiattachNotSupportedOldMicroversion(Invalid):
    msg_fmt = ("Multiattach volumes are only supported starting with compute API "
               "version 2.60.")


class MultiattachToShelvedNotSupported(Invalid):
    msg_fmt = ("Attaching multiattach volumes is not supported for shelved-offloaded "
               "instances.")


class MultiattachSwapVolumeNotSupported(Invalid):
    msg_fmt = ("Swapping multi-attach volumes with more than one read/write attachment "
               "is not supported.")


class VolumeBDMIsMultiAttach(Invalid):
    msg_fmt = ("Block Device Mapping %(volume_id)s is a multi-attach volume and is not "
               "valid for this operation.")


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


# Key pairs, flavor access, services, hypervisors and aggregates (upstream's messages).
class KeypairNotFound(NotFound):
    msg_fmt = "Keypair %(name)s not found for user %(user_id)s"


class KeyPairExists(Conflict):
    msg_fmt = "Key pair '%(key_name)s' already exists."


class InvalidKeypair(Invalid):
    msg_fmt = "Keypair data is invalid: %(reason)s"


class KeypairLimitExceeded(Forbidden):
    msg_fmt = "Quota exceeded, too many key pairs."


class FlavorAccessExists(Conflict):
    msg_fmt = ("Flavor access already exists for flavor %(flavor_id)s and project "
               "%(project_id)s combination.")


class FlavorAccessNotFound(NotFound):
    msg_fmt = "Flavor access not found for %(flavor_id)s / %(project_id)s combination."


class FlavorExtraSpecsNotFound(NotFound):
    msg_fmt = "Flavor %(flavor_id)s has no extra specs with key %(extra_specs_key)s."


class ServiceNotFound(NotFound):
    msg_fmt = "Service %(service_id)s could not be found."


class HostBinaryNotFound(NotFound):
    msg_fmt = "Could not find binary %(binary)s on host %(host)s."


class ComputeHostNotFound(NotFound):
    msg_fmt = "Compute host %(host)s could not be found."


class HostNotFound(NotFound):
    msg_fmt = "Host %(host)s could not be found."


class HypervisorNotFound(NotFound):
    msg_fmt = "Hypervisor with ID '%(hypervisor_id)s' could not be found."


class AggregateNotFound(NotFound):
    msg_fmt = "Aggregate %(aggregate_id)s could not be found."


class AggregateNameExists(Conflict):
    msg_fmt = "Aggregate %(aggregate_name)s already exists."


class AggregateHostNotFound(NotFound):
    msg_fmt = "Aggregate %(aggregate_id)s has no host %(host)s."


class AggregateHostExists(Conflict):
    msg_fmt = "Aggregate %(aggregate_id)s already has host %(host)s."


class AggregateMetadataNotFound(NotFound):
    msg_fmt = "Aggregate %(aggregate_id)s has no metadata with key %(metadata_key)s."


class InvalidAggregateAction(Invalid):
    msg_fmt = ("Unacceptable parameters. Cannot perform action '%(action)s' on aggregate "
               "%(aggregate_id)s. Reason: %(reason)s.")


class AggregateActionConflict(Conflict):
    msg_fmt = "Cannot %(action)s aggregate %(aggregate_id)s. Reason: %(reason)s."


# Upstream's refusals of an aggregate action, one message per action (the
# delete one names host removal, as upstream's does).
class InvalidAggregateActionDelete(InvalidAggregateAction):
    msg_fmt = "Cannot remove host from aggregate %(aggregate_id)s. Reason: %(reason)s."


class InvalidAggregateActionUpdate(InvalidAggregateAction):
    msg_fmt = "Cannot update aggregate %(aggregate_id)s. Reason: %(reason)s."


class InvalidAggregateActionUpdateMeta(InvalidAggregateAction):
    msg_fmt = "Cannot update metadata of aggregate %(aggregate_id)s. Reason: %(reason)s."


class AvailabilityZoneNotFound(NotFound):
    msg_fmt = "Availability zone %(zone)s could not be found."


class MarkerNotFound(Invalid):
    msg_fmt = "Marker %(marker)s could not be found."


# Quota refusals are 403s at the API, with upstream's messages.


class TooManyInstances(QuotaError):
    msg_fmt = ("Quota exceeded for %(overs)s: Requested %(req)s, but already used "
               "%(used)s of %(allowed)s %(overs)s")


class MetadataLimitExceeded(QuotaError):
    msg_fmt = "Maximum number of metadata items exceeds %(allowed)d"


class OverQuota(QuotaError):
    """Raised by nova.quota checks; kwargs carry overs, quotas and usages."""

    msg_fmt = "Quota exceeded for resources: %(overs)s"


class QuotaResourceUnknown(Invalid):
    msg_fmt = "Unknown quota resources %(unknown)s."


class InstanceGroupNotFound(NotFound):
    msg_fmt = "Instance group %(group_uuid)s could not be found."


class ServerGroupLimitExceeded(QuotaError):
    msg_fmt = "Quota exceeded, too many server groups."


class GroupMemberLimitExceeded(QuotaError):
    msg_fmt = "Quota exceeded, too many servers in group"


class ConsoleTypeUnavailable(Invalid):
    msg_fmt = "Unavailable console type %(console_type)s."


class ConsoleTypeInvalid(Invalid):
    msg_fmt = "Invalid console type %(console_type)s"


class SocketPortRangeExhausted(Invalid):
    msg_fmt = "Not able to acquire a free port for %(host)s"


class InvalidToken(NotFound):
    msg_fmt = "The token '%(token)s' is invalid or has expired"


class InstanceAgentNotEnabled(Conflict):
    msg_fmt = "Guest agent is not enabled for the instance"


class InstancePasswordSetFailed(Conflict):
    msg_fmt = "Failed to set admin password on %(instance)s because %(reason)s"


class SignatureVerificationError(NovaException):
    msg_fmt = "Signature verification for the image failed: %(reason)s."


class CertificateValidationFailed(NovaException):
    msg_fmt = ("Image certificate validation failed for certificate: %(cert_uuid)s. "
               "%(reason)s")
