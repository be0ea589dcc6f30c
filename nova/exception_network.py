"""The networking exceptions (nova/network); callers use them as nova.exception.<Name>."""

from nova.exception_base import Conflict, Forbidden, Invalid, NotFound, NovaException, QuotaError


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


# Remote callers rebuild an exception from its module and name (oslo.messaging
# allows nova.exception only): each class answers to the module that exports it.
for _cls in [v for v in dict(globals()).values()
             if isinstance(v, type) and v.__module__ == __name__]:
    _cls.__module__ = 'nova.exception'
