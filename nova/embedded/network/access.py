"""Who sees and changes what: Neutron's default policies for the resources served here.

Every resource has an owning project. Non-administrators see their own
resources and shared networks (with their subnets); administrators see
everything. A resource one may not see is reported as not found; one that
is visible but may not be changed gets Neutron's 403 naming the rules.
"""

from nova.embedded.network import errors


def owns(caller, record):
    return caller.is_admin or record.get('project_id') == caller.project_id


def network_visible(caller, network):
    return (owns(caller, network) or network.get('shared')
            or network.get('router:external'))


def network_owner(caller, network):
    """Admin or the network's project (Neutron's network_owner rule)."""
    return owns(caller, network)


def subnet_visible(caller, subnet, network):
    return owns(caller, subnet) or (network is not None and network_visible(caller, network))


def port_visible(caller, port, network):
    return owns(caller, port) or (network is not None
                                  and network.get('project_id') == caller.project_id)


def rule_visible(caller, rule, group):
    return owns(caller, rule) or (group is not None and owns(caller, group))


def explicitly_set(body, name, default):
    """Neutron applies an attribute's rule only when the request sets it to
    something other than its default."""
    return name in body and body[name] != default


def enforce(action, allowed, attribute_rules=()):
    """403 unless ``allowed`` and every ``(attribute, allowed)`` pair holds.

    The message lists the action's rule and the rule of every attribute
    checked, as Neutron's combined rule reads.
    """
    attribute_rules = list(attribute_rules)
    if allowed and all(ok for _name, ok in attribute_rules):
        return
    raise errors.policy([action] + ['%s:%s' % (action, name)
                                    for name, _ok in attribute_rules])
