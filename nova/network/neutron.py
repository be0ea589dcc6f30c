"""NetworkAPI: the composition root of the Neutron parts the API, conductor and compute host call.

Build one per process with ``NetworkAPI(conf)`` (or ``NetworkAPI.from_conf``)
when :func:`configured` says Neutron is configured; a deployment without
it runs networkless (servers get ``network_info == []``). Callers use the
parts, each documented in its module::

    api.validation       NetworkRequestValidator  (API, before the 202)
        .validate_networks(ctx, requested, max_count, instance_uuid=None) -> int
    api.security_groups  NeutronSecurityGroups    (API and compute)
        .validate_for_create(ctx, names) -> ids ('default' kept)
        .add_to_instance / .remove_from_instance(ctx, instance, name)
        .instances_security_groups(ctx, instances, detailed=False) -> {uuid: [...]}
        .list / .get / .create / .update / .destroy / .add_rules / .get_rule / .remove_rule
    api.floating_ips     NeutronFloatingIPs       (API proxies below 2.36)
        .list / .get / .get_by_address / .pools / .allocate(ctx, pool) / .release
        .associate(ctx, instance, floating, fixed) -> previous device id / .disassociate
    api.fixed_ips        NeutronFixedIPs          (addFixedIp/removeFixedIp below 2.44)
    api.networks         NeutronNetworks          (os-networks, os-tenant-networks,
        .list / .get / .list_ports / .show_port    os-interface list/show)
    api.ports            PortAllocator            (compute host)
        .allocate_for_instance(ctx, instance, requested, security_groups, bind_host_id)
            -> network_info
        .deallocate_for_instance(ctx, instance, requested_networks=None)
        .allocate_port_for_instance(ctx, instance, port_id|network_id, requested_ip, tag,
            bind_host_id) -> (network_info, vif)
        .deallocate_port_for_instance(ctx, instance, port_id) -> network_info
    api.info             NetworkInfoBuilder       (compute host: refresh / network-changed)
        .build(ctx, instance, port_ids=None, preserved=(), tags=None) -> network_info
    api.bindings         PortBindings             (conductor and compute host: migrations)
    api.healer           InfoCacheHealer          (compute host periodic task)
    api.extensions       NeutronExtensions        (the cached extension list)

``instance`` is an Instance object (or a dict with its fields); each call
that answers a network info leaves saving it as ``instance.network_info``
to the caller (compute hosts save through the conductor).
"""

import nova.conf
from nova import service_client
from nova.network import (
    allocation,
    bindings,
    client,
    fixed_ips,
    floating_ips,
    heal,
    info,
    networks,
    security_groups,
    validation,
)


def configured(conf):
    """Whether this deployment talks to a Networking service: a [neutron]
    section (or OS_NEUTRON__* variables) or an embedded network endpoint."""
    return (service_client.embedded_url(conf, client.GROUP) is not None
            or nova.conf.client_opts_configured(conf, client.GROUP))


class NetworkAPI:
    """Builds the parts from one NeutronClient; see the module docstring."""

    def __init__(self, conf, neutron=None):
        self.conf = conf
        self.client = neutron or client.NeutronClient(conf)
        self.extensions = client.NeutronExtensions(conf, self.client)
        self.networks = networks.NeutronNetworks(self.client, self.extensions)
        self.info = info.NetworkInfoBuilder(conf, self.client)
        self.security_groups = security_groups.NeutronSecurityGroups(self.client)
        self.validation = validation.NetworkRequestValidator(self.client, self.networks)
        self.ports = allocation.PortAllocator(conf, self.client, self.extensions,
                                              self.networks, self.info, self.security_groups)
        self.bindings = bindings.PortBindings(conf, self.client, self.extensions, self.info)
        self.floating_ips = floating_ips.NeutronFloatingIPs(conf, self.client,
                                                            self.extensions)
        self.fixed_ips = fixed_ips.NeutronFixedIPs(self.client, self.info)
        self.healer = heal.InfoCacheHealer(conf, self.info)

    @classmethod
    def from_conf(cls, conf):
        return cls(conf)
