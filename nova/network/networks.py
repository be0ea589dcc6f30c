"""Neutron lookups: networks a project may use, ports, subnets, get-me-a-network."""

import logging

from nova import exception
from nova.network import client as neutron_client
from nova.policies import servers as servers_policies

LOG = logging.getLogger(__name__)

# Neutron's network types whose traffic is encapsulated (no physical network).
TUNNELED_TYPES = ('vxlan', 'gre', 'geneve')


class NeutronNetworks:
    """Read-only Neutron calls shared by validation, allocation and the
    proxy APIs (os-networks, os-tenant-networks, os-interface list/show)."""

    def __init__(self, client, extensions):
        self._client = client
        self._extensions = extensions

    # -- networks ------------------------------------------------------------

    def available(self, context, project_id, net_ids=None, auto_allocate=False):
        """The networks ``project_id`` may attach a server to, as upstream picks them.

        With ``net_ids``: those of them the caller can see, in that order
        (shared ones included). Without: the project's own non-shared
        networks (only administratively up ones for ``auto``) and every
        shared one.
        """
        if net_ids:
            nets = self._client.list(context, 'networks', id=list(dict.fromkeys(net_ids)))
            order = {net_id: i for i, net_id in reversed(list(enumerate(net_ids)))}
            return sorted(nets, key=lambda n: order.get(n['id'], len(order)))
        filters = {'tenant_id': project_id, 'shared': False}
        if auto_allocate:
            # get-me-a-network builds its topology in several steps; a
            # network still down may be half made.
            filters['admin_state_up'] = True
        nets = self._client.list(context, 'networks', **filters)
        return nets + self._client.list(context, 'networks', shared=True)

    def get(self, context, network_id, admin=False):
        return self._client.show(
            context, 'networks', 'network', network_id, admin=admin,
            not_found=lambda: exception.NetworkNotFound(network_id=network_id))

    def list(self, context, **filters):
        """Networks the caller can see (os-networks, os-tenant-networks)."""
        return self._client.list(context, 'networks', **filters)

    def check_external_attach(self, context, nets):
        """A non-shared router:external network needs the
        ``network:attach_external_network`` policy (admin by default)."""
        for net in nets:
            if net.get('router:external') and not net.get('shared'):
                if not context.can(servers_policies.NETWORK_ATTACH_EXTERNAL,
                                   target={'project_id': context.project_id}, fatal=False):
                    raise exception.ExternalNetworkAttachForbidden(network_uuid=net['id'])

    # -- get-me-a-network ----------------------------------------------------

    def check_auto_allocate(self, context, project_id):
        """Neutron's dry run; UnableToAutoAllocateNetwork (400) when it cannot."""
        if self._extensions.has(context, self._extensions.AUTO_ALLOCATED_TOPOLOGY):
            try:
                self._client.call(context, 'GET',
                                  self._client.path('auto-allocated-topology', project_id),
                                  params={'fields': 'dry-run'})
                return
            except (exception.Conflict, exception.Invalid, exception.NotFound) as exc:
                LOG.info('Network auto-allocation is not available for project %s: %s',
                         project_id, exc)
        else:
            LOG.info('Network auto-allocation needs the auto-allocated-topology '
                     'extension, which Neutron does not have')
        raise exception.UnableToAutoAllocateNetwork(project_id=project_id)

    def auto_allocate(self, context, project_id):
        """Get (or make) the project's auto-allocated network."""
        unable = exception.UnableToAutoAllocateNetwork(project_id=project_id)
        try:
            topology = self._client.call(
                context, 'GET', self._client.path('auto-allocated-topology', project_id),
            )['auto_allocated_topology']
        except (exception.Conflict, exception.Invalid, exception.NotFound) as exc:
            raise unable from exc
        try:
            return self.get(context, topology['id'])
        except exception.NetworkNotFound as exc:
            raise unable from exc

    # -- ports and subnets ---------------------------------------------------

    def show_port(self, context, port_id, admin=False):
        return self._client.show(
            context, 'ports', 'port', port_id, admin=admin,
            not_found=lambda: exception.PortNotFound(port_id=port_id))

    def list_ports(self, context, admin=False, **filters):
        """Ports by Neutron's filters (os-interface lists device_id=SERVER)."""
        return self._client.list(context, 'ports', admin=admin, **filters)

    def subnets(self, context, ids=None, network_id=None, admin=False):
        if not ids and not network_id:
            return []
        return self._client.list(context, 'subnets', admin=admin,
                                 id=list(ids) if ids else None, network_id=network_id)


def physnet_tunneled(net):
    """(physical network or None, tunneled) of a Neutron network as an admin
    sees it (provider attributes); with segments (multi-provider) the first
    one naming a physical network wins."""
    segments = net.get('segments')
    if segments:
        physnet = next((s.get('provider:physical_network') for s in segments
                        if s.get('provider:physical_network')), None)
        return physnet, any(s.get('provider:network_type') in TUNNELED_TYPES
                            for s in segments)
    return (net.get('provider:physical_network'),
            net.get('provider:network_type') in TUNNELED_TYPES)


def instance_field(instance, name):
    """A field of an Instance object or of a dict standing for one."""
    return neutron_client._instance_field(instance, name)
