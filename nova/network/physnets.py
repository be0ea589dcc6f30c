"""Which NUMA nodes are near the NICs of each physical network ([neutron] physnets)."""

from nova.conf import neutron as neutron_conf


def numa_affinity(conf):
    """({physnet: set of NUMA nodes}, set of NUMA nodes for tunnelled networks).

    Registers the [neutron_physnet_<name>] and [neutron_tunnel] groups first
    (their names come from [neutron] physnets).
    """
    neutron_conf.register_dynamic_opts(conf)
    physnets = {name: set(conf[neutron_conf.PHYSNET_GROUP % name].numa_nodes)
                for name in conf.neutron.physnets}
    return physnets, set(conf[neutron_conf.TUNNEL_GROUP].numa_nodes)


def vif_numa_nodes(conf, vif):
    """The NUMA nodes a guest with this VIF should stay on, or None (any)."""
    physnets, tunneled = numa_affinity(conf)
    meta = (vif.get('network') or {}).get('meta') or {}
    if meta.get('tunneled'):
        return tunneled or None
    return physnets.get(meta.get('physical_network')) or None
