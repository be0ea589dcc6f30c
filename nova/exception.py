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
class QuotaError(NovaException):
    msg_fmt = "Quota exceeded: code=%(code)s"
    code = 403


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


# Networking (nova/network): upstream's messages. Each code is what upstream's
# server create answers; os-interface answers PortNotFound/NetworkNotFound with
# 404 and FixedIpAlreadyInUse/PortInUse with 409 (see nova/network/__init__.py).
class NetworkServiceError(NovaException):
    """Neutron could not be reached, or failed (5xx): the callers' 503 or fault."""
    msg_fmt = "Network service error: %(reason)s"
    code = 503


class Unauthorized(NovaException):
    msg_fmt = "Not authorized."
    code = 401


class NeutronAdminCredentialConfigurationInvalid(Invalid):
    msg_fmt = "Networking client is experiencing an unauthorized exception."
    code = 500


class NetworkNotFound(NotFound):
    msg_fmt = "Network %(network_id)s could not be found."
    code = 400


class NetworkNotFoundForInstance(NetworkNotFound):
    msg_fmt = "Network could not be found for instance %(instance_id)s."


class NetworkRequiresSubnet(Invalid):
    msg_fmt = "Network %(network_uuid)s requires a subnet in order to boot instances on."


class NetworkAmbiguous(Invalid):
    msg_fmt = ("More than one possible network found. Specify network ID(s) to select "
               "which one(s) to connect to.")
    code = 409


class ExternalNetworkAttachForbidden(Forbidden):
    msg_fmt = "It is not allowed to create an interface on external network %(network_uuid)s"


class UnableToAutoAllocateNetwork(Invalid):
    msg_fmt = "Unable to automatically allocate a network for project %(project_id)s"


class InterfaceAttachFailedNoNetwork(Invalid):
    msg_fmt = ("No specific network was requested and none are available for project "
               "'%(project_id)s'.")


class InterfaceAttachFailed(Invalid):
    msg_fmt = "Failed to attach network adapter device to %(instance_uuid)s"


class InterfaceDetachFailed(Invalid):
    msg_fmt = "Failed to detach network adapter device from %(instance_uuid)s"


class NetworksWithQoSPolicyNotSupported(Invalid):
    msg_fmt = ("Using networks with QoS policy is not supported for instance "
               "%(instance_uuid)s. (Network ID is %(network_id)s)")


class PortNotFound(NotFound):
    msg_fmt = "Port id %(port_id)s could not be found."
    code = 400


class PortInUse(Invalid):
    msg_fmt = "Port %(port_id)s is still in use."
    code = 409


class PortNotUsable(Invalid):
    msg_fmt = "Port %(port_id)s not usable for instance %(instance)s."


class PortNotUsableDNS(Invalid):
    msg_fmt = ("Port %(port_id)s not usable for instance %(instance)s. Value %(value)s "
               "assigned to dns_name attribute does not match instance's hostname "
               "%(hostname)s")


class PortRequiresFixedIP(Invalid):
    msg_fmt = "Port %(port_id)s requires a FixedIP in order to be used."


class PortBindingFailed(Invalid):
    msg_fmt = ("Binding failed for port %(port_id)s, please check neutron logs for more "
               "information.")
    code = 500


class PortBindingDeletionFailed(NovaException):
    msg_fmt = ("Failed to delete binding for port(s) %(port_id)s on host %(host)s; please "
               "check neutron logs for more information")


class PortBindingActivationFailed(NovaException):
    msg_fmt = ("Failed to activate binding for port %(port_id)s on host %(host)s; please "
               "check neutron logs for more information")


class PortUpdateFailed(Invalid):
    msg_fmt = "Port update failed for port %(port_id)s: %(reason)s"
    code = 500


class FixedIpInvalidOnHost(Invalid):
    msg_fmt = ("The fixed IP associated with port %(port_id)s is not compatible with the "
               "host.")


class PortLimitExceeded(QuotaError):
    msg_fmt = "Maximum number of ports exceeded"


class MultiplePortsNotApplicable(Invalid):
    msg_fmt = "Failed to launch instances: %(reason)s"


class InvalidFixedIpAndMaxCountRequest(Invalid):
    msg_fmt = "Failed to launch instances: %(reason)s"


class FixedIpInvalid(Invalid):
    msg_fmt = "Fixed IP address %(address)s is invalid."


class FixedIpAlreadyInUse(NovaException):
    msg_fmt = "Fixed IP address %(address)s is already in use on instance %(instance_uuid)s."
    code = 400


class NoMoreFixedIps(NovaException):
    msg_fmt = "No fixed IP addresses available for network: %(net)s"
    code = 400


class FixedIpNotFoundForAddress(NotFound):
    msg_fmt = "Fixed IP not found for address %(address)s."


class FixedIpNotFoundForSpecificInstance(NotFound):
    msg_fmt = "Instance %(instance_uuid)s doesn't have fixed IP '%(ip)s'."


class FloatingIpNotFound(NotFound):
    msg_fmt = "Floating IP not found for ID %(id)s."


class FloatingIpNotFoundForAddress(FloatingIpNotFound):
    msg_fmt = "Floating IP not found for address %(address)s."


class FloatingIpMultipleFoundForAddress(NovaException):
    msg_fmt = "Multiple floating IPs are found for address %(address)s."
    code = 409


class FloatingIpPoolNotFound(NotFound):
    msg_fmt = "Floating IP pool not found."


class NoMoreFloatingIps(FloatingIpNotFound):
    msg_fmt = "Zero floating IPs available."


class FloatingIpAssociated(Conflict):
    msg_fmt = "Floating IP %(address)s is associated."


class FloatingIpNotAssociated(Invalid):
    msg_fmt = "Floating IP %(address)s is not associated."


class FloatingIpAssociateFailed(NovaException):
    msg_fmt = "Floating IP %(address)s association has failed."


class FloatingIpBadRequest(Invalid):
    msg_fmt = "The floating IP request failed with a BadRequest"


class FloatingIpLimitExceeded(QuotaError):
    msg_fmt = "Maximum number of floating IPs exceeded"


class SecurityGroupNotFound(NotFound):
    msg_fmt = "Security group %(security_group_id)s not found."


class SecurityGroupNotFoundForProject(SecurityGroupNotFound):
    """A security group a server create names: the request is at fault (400)."""
    msg_fmt = "Security group %(security_group_id)s not found for project %(project_id)s."
    code = 400


class SecurityGroupCannotBeApplied(Invalid):
    msg_fmt = ("Network requires port_security_enabled and subnet associated in order to "
               "apply security groups.")


class SecurityGroupLimitExceeded(QuotaError):
    msg_fmt = "Maximum number of security groups or rules exceeded"


class SecurityGroupRuleExists(Invalid):
    msg_fmt = "Rule already exists in group: %(rule)s"


class InvalidPortRange(Invalid):
    msg_fmt = "Invalid port range %(from_port)s:%(to_port)s. %(msg)s"


class InvalidIpProtocol(Invalid):
    msg_fmt = "Invalid IP protocol %(protocol)s."


class InvalidCidr(Invalid):
    msg_fmt = "%(cidr)s is not a valid IP network."


class NoUniqueMatch(NovaException):
    msg_fmt = "No Unique Match Found."
    code = 409


class VirtualInterfaceCreateException(NovaException):
    msg_fmt = "Virtual Interface creation failed"


class VirtualInterfacePlugException(NovaException):
    msg_fmt = "Failed to plug virtual interface: %(reason)s"


class VirtualInterfacePlugTimeout(VirtualInterfaceCreateException):
    msg_fmt = ("Network ports %(ports)s of %(instance_uuid)s were not reported plugged "
               "within %(timeout)d s (network-vif-plugged)")


class VirtualInterfacePlugFailed(VirtualInterfaceCreateException):
    msg_fmt = "The network service failed to plug ports %(ports)s of %(instance_uuid)s"
