"""Compute API: the deprecated network proxies (up to 2.35) passed to the network service."""

from oslo_utils import uuidutils

from nova import exception
from nova.network import security_groups as net_groups

# Neutron's L3 extension: floating IPs exist only where it is loaded.
ROUTER_EXTENSION = 'router'


class NetworkProxyAPI:
    """os-networks, os-tenant-networks, os-security-groups(-rules), os-floating-ips and
    os-floating-ip-pools. ``network_api`` None (no network service): lists are
    empty and single resources are not found, as a Neutron without them answers."""

    def __init__(self, network_api):
        self._network_api = network_api

    @property
    def enabled(self):
        return self._network_api is not None

    def _network(self, not_found):
        if self._network_api is None:
            raise not_found
        return self._network_api

    @staticmethod
    def _group_id(group_id):
        """Neutron's ids are UUIDs: anything else is a 400, as upstream answers."""
        if not uuidutils.is_uuid_like(group_id):
            raise exception.Invalid(reason='Security group id should be uuid')
        return group_id

    # -- networks ----------------------------------------------------------

    def networks(self, context):
        if self._network_api is None:
            return []
        return self._network_api.networks.list(context)

    def network(self, context, network_id):
        missing = exception.NotFound('Network %s could not be found.' % network_id)
        network_api = self._network(missing)
        try:
            return network_api.networks.get(context, network_id)
        except exception.NetworkNotFound:
            raise missing from None

    # -- security groups ---------------------------------------------------

    def security_groups(self, context, project_id=None):
        if self._network_api is None:
            return []
        if project_id is None:
            # all_tenants: every group the caller can see.
            return [net_groups.to_nova_group(g) for g in self._network_api.client.list(
                context, 'security-groups')]
        return self._network_api.security_groups.list(context, project_id)

    def security_group(self, context, group_id):
        groups = self._network(exception.SecurityGroupNotFound(security_group_id=group_id))
        return groups.security_groups.get(context, self._group_id(group_id))

    def create_security_group(self, context, name, description):
        network_api = self._network(exception.NotFound(
            'This deployment has no network service.'))
        return network_api.security_groups.create(context, name, description)

    def update_security_group(self, context, group_id, name, description):
        groups = self._network(exception.SecurityGroupNotFound(security_group_id=group_id))
        return groups.security_groups.update(context, group_id, name, description)

    def delete_security_group(self, context, group_id):
        groups = self._network(exception.SecurityGroupNotFound(security_group_id=group_id))
        groups.security_groups.destroy(context, group_id)

    def group_names(self, context, group_ids):
        """{id: {'name', 'tenant_id'}} of the groups rules name as their source."""
        if self._network_api is None or not group_ids:
            return {}
        found = self._network_api.client.list(context, 'security-groups',
                                              id=sorted(set(group_ids)),
                                              fields=['id', 'name', 'tenant_id'])
        return {g['id']: {'name': g.get('name'), 'tenant_id': g.get('tenant_id')}
                for g in found}

    def create_security_group_rule(self, context, parent_group_id, ip_protocol=None,
                                   from_port=None, to_port=None, cidr=None, group_id=None):
        network_api = self._network(exception.SecurityGroupNotFound(
            security_group_id=parent_group_id))
        # The parent first: a rule of an unknown group is 404 whatever it says.
        network_api.security_groups.get(context, self._group_id(parent_group_id))
        if group_id:
            self._group_id(group_id)
        rule = net_groups.neutron_rule(parent_group_id, ip_protocol, from_port, to_port,
                                       cidr, group_id)
        if group_id:
            network_api.security_groups.get(context, group_id)
        return network_api.security_groups.add_rules(context, parent_group_id, [rule])[0]

    def delete_security_group_rule(self, context, rule_id):
        network_api = self._network(exception.SecurityGroupNotFound(
            'Rule (%s) not found' % rule_id))
        network_api.security_groups.get_rule(context, self._group_id(rule_id))
        network_api.security_groups.remove_rule(context, rule_id)

    def server_security_groups(self, context, instance):
        if self._network_api is None:
            return []
        return self._network_api.security_groups.instance_security_groups(
            context, instance, detailed=True)

    # -- floating IPs --------------------------------------------------------

    def _l3(self, context, missing):
        """The NetworkAPI when Neutron has floating IPs, else ``missing`` is raised
        (None: answer an empty list)."""
        network_api = self._network_api
        if network_api is None or not network_api.extensions.has(context, ROUTER_EXTENSION):
            if missing is None:
                return None
            raise missing
        return network_api

    def floating_ips(self, context):
        network_api = self._l3(context, None)
        return network_api.floating_ips.list(context) if network_api else []

    def floating_ip(self, context, fip_id):
        network_api = self._l3(context, exception.FloatingIpNotFound(id=fip_id))
        return network_api.floating_ips.get(context, fip_id)

    def allocate_floating_ip(self, context, pool=None):
        network_api = self._l3(context, exception.FloatingIpPoolNotFound())
        return network_api.floating_ips.allocate(context, pool)

    def release_floating_ip(self, context, fip_id):
        network_api = self._l3(context, exception.FloatingIpNotFound(id=fip_id))
        network_api.floating_ips.get(context, fip_id)
        network_api.floating_ips.release(context, fip_id)

    def floating_ip_pools(self, context):
        network_api = self._l3(context, None)
        return network_api.floating_ips.pools(context) if network_api else []
