"""Servers' networking with Neutron: the client, the network info model, and the port steps.

Entry point: nova.network.neutron.NetworkAPI (its docstring lists the
interface); the model is nova.network.model. Exceptions come from
nova.exception; each one's ``code`` is what upstream's server create
answers. Other endpoints answer some differently, as upstream does:
os-interface attach gives 404 for PortNotFound/NetworkNotFound and 409 for
PortInUse/FixedIpAlreadyInUse; os-networks show gives 404 for
NetworkNotFound; os-security-groups gives 404 for SecurityGroupNotFound
(server create's SecurityGroupNotFoundForProject is 400).
"""
