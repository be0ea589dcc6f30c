"""The all-in-one's default network and subnet, made on first start (shared, admin-owned)."""

import logging
import typing

from nova.embedded.network import ipam, store

LOG = logging.getLogger(__name__)


class DefaultNetworkSpec(typing.NamedTuple):
    """What ``[aio]`` asks for: the network servers attach to without ``--nic``."""

    name: str = 'private'
    cidr: str = '10.78.0.0/24'
    project_id: str = 'admin'
    dns_nameservers: tuple = ()
    mtu: int = 1500


def ensure(api, spec):
    """The default (network, subnet) records, made from ``spec`` if missing.

    Afterwards the stored ones rule: changing ``[aio]`` later does not
    rewrite them (a warning says so), as a Neutron's networks outlive its
    configuration.
    """
    records = api.store
    with records.transaction():
        marker = records.get(store.META, store.DEFAULT_NETWORK)
        if marker is not None:
            network = records.get(store.NETWORKS, marker['network_id'])
            subnet = records.get(store.SUBNETS, marker['subnet_id'])
            if subnet['cidr'] != str(ipam.network(spec.cidr)):
                LOG.warning('[aio] network_cidr is %s but the default network %s keeps '
                            'its subnet %s (made on first start)', spec.cidr,
                            network['name'], subnet['cidr'])
            return network, subnet
        api.security_groups.ensure_default(spec.project_id)
        network = records.put(store.NETWORKS, api.networks.new_record({
            'name': spec.name, 'admin_state_up': True, 'shared': True, 'mtu': spec.mtu,
            'port_security_enabled': True, 'router:external': False, 'dns_domain': '',
            'description': "The all-in-one's default network",
            'project_id': spec.project_id}))
        subnet = records.put(store.SUBNETS, api.subnets.new_record({
            'name': spec.name + '-subnet', 'ip_version': 4, 'cidr': spec.cidr,
            'enable_dhcp': True, 'dns_nameservers': list(spec.dns_nameservers),
            'ipv6_ra_mode': None, 'ipv6_address_mode': None, 'subnetpool_id': None,
            'description': '', 'project_id': spec.project_id}, network))
        records.put(store.META, {'id': store.DEFAULT_NETWORK, 'network_id': network['id'],
                                 'subnet_id': subnet['id']})
    api.changes.publish(store.NETWORKS)
    LOG.info('Made the default network %s (%s) with subnet %s', network['name'],
             network['id'], subnet['cidr'])
    return network, subnet
