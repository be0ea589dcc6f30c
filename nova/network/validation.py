"""The API's checks of a server create's networks before the 202, and the port quota bound."""

import logging

import netaddr

from nova import exception
from nova.network import requests as net_requests

LOG = logging.getLogger(__name__)

# Ports Neutron gives an address later (routed networks) or never.
_IPLESS_ALLOCATIONS = ('deferred', 'none')


class NetworkRequestValidator:
    """validate_networks(): upstream's checks, plus those upstream leaves to the
    compute host (a fixed IP outside the network's subnets, a fixed IP another
    project's port holds, an external network the caller may not attach,
    another project's port), so a bad request is a 4xx before the 202 rather
    than a server in ERROR."""

    def __init__(self, client, networks):
        self._client = client
        self._networks = networks

    def validate_networks(self, context, requested, max_count, instance_uuid=None):
        """How many of ``max_count`` servers the request can get ports for.

        ``requested``: a RequestedNetworks (or its primitive). Raises the
        request's 4xx (NetworkNotFound, PortNotFound, PortInUse, PortNotUsable,
        PortRequiresFixedIP, NetworkAmbiguous, NetworkRequiresSubnet,
        FixedIpInvalid, FixedIpAlreadyInUse, ExternalNetworkAttachForbidden,
        UnableToAutoAllocateNetwork, MultiplePortsNotApplicable,
        InvalidFixedIpAndMaxCountRequest), PortLimitExceeded (403) when the
        project is already over its port quota, NetworkServiceError (503).
        The caller refuses with PortLimitExceeded when the answer is below
        min_count and lowers max_count to it otherwise, as upstream.
        """
        requested = net_requests.RequestedNetworks.from_primitive(requested)
        if requested.no_allocate:
            return max_count
        requested.check_max_count(max_count)
        if requested.unspecified or requested.auto_allocate:
            per_server = self._check_default_network(context, requested.auto_allocate)
        else:
            per_server = self._check_requests(context, requested, instance_uuid)
        return self._bound_by_port_quota(context, per_server, max_count)

    # -- networks omitted or auto ----------------------------------------------

    def _check_default_network(self, context, auto_allocate):
        nets = self._networks.available(context, context.project_id,
                                        auto_allocate=auto_allocate)
        if len(nets) > 1:
            # The guest could not tell which NIC is which: upstream refuses.
            raise exception.NetworkAmbiguous(
                'Multiple possible networks found, use a Network ID to be more specific.')
        if not nets:
            if auto_allocate:
                self._networks.check_auto_allocate(context, context.project_id)
                return 1
            return 0
        self._networks.check_external_attach(context, nets)
        if not nets[0].get('subnets'):
            raise exception.NetworkRequiresSubnet(network_uuid=nets[0]['id'])
        return 1

    # -- an explicit list ------------------------------------------------------

    def _check_requests(self, context, requested, instance_uuid):
        per_server = 0
        wanted = []   # (network id, fixed IP or None)
        for request in requested:
            if request.port_id:
                self._check_port(context, request.port_id, instance_uuid)
            else:
                per_server += 1
                wanted.append((request.network_id, request.address))
        if not wanted:
            return per_server
        net_ids = [net_id for net_id, _address in wanted]
        nets = {n['id']: n for n in self._networks.available(
            context, context.project_id, net_ids)}
        lost = [net_id for net_id in dict.fromkeys(net_ids) if net_id not in nets]
        if lost:
            raise exception.NetworkNotFound(network_id=', '.join(lost))
        for net in nets.values():
            if not net.get('subnets'):
                raise exception.NetworkRequiresSubnet(network_uuid=net['id'])
        self._networks.check_external_attach(context, list(nets.values()))
        for net_id, address in wanted:
            if address:
                self._check_fixed_ip(context, nets[net_id], address)
        return per_server

    def _check_port(self, context, port_id, instance_uuid):
        # As admin: another project's port is "not usable" rather than
        # "not found", the answer upstream's compute host gives.
        port = self._networks.show_port(context, port_id, admin=True)
        if port.get('tenant_id') != context.project_id:
            if instance_uuid:
                raise exception.PortNotUsable(port_id=port_id, instance=instance_uuid)
            raise exception.PortNotUsable(
                'Port %s not usable for the server: it belongs to another project.'
                % port_id)
        if port.get('device_id'):
            raise exception.PortInUse(port_id=port_id)
        if (port.get('ip_allocation') not in _IPLESS_ALLOCATIONS
                and not port.get('fixed_ips')):
            raise exception.PortRequiresFixedIP(port_id=port_id)
        return port

    def _check_fixed_ip(self, context, net, address):
        try:
            wanted = netaddr.IPAddress(address)
        except (netaddr.AddrFormatError, ValueError) as exc:
            raise exception.FixedIpInvalid(address=address) from exc
        subnets = self._networks.subnets(context, ids=net.get('subnets'))
        if not any(wanted in netaddr.IPNetwork(s['cidr']) for s in subnets):
            raise exception.FixedIpInvalid(
                'Fixed IP %(ip)s is not a valid ip address for network %(network_id)s.'
                % {'ip': address, 'network_id': net['id']})
        # As admin: on a shared network the holder may be another project's port.
        holders = self._networks.list_ports(
            context, admin=True, network_id=net['id'],
            fixed_ips='ip_address=%s' % address, fields=['device_id', 'tenant_id'])
        if holders:
            holder = holders[0]
            if holder.get('tenant_id') == context.project_id and holder.get('device_id'):
                raise exception.FixedIpAlreadyInUse(address=address,
                                                    instance_uuid=holder['device_id'])
            raise exception.FixedIpAlreadyInUse('Fixed IP %s is already in use.' % address)

    # -- quota -----------------------------------------------------------------

    def _bound_by_port_quota(self, context, per_server, max_count):
        if not per_server:
            return max_count
        quota = self._client.call(
            context, 'GET', self._client.path('quotas', context.project_id))['quota']
        limit = quota.get('port', -1)
        if limit is None or limit < 0:
            return max_count
        used = len(self._networks.list_ports(context, tenant_id=context.project_id,
                                             fields=['id']))
        free = limit - used
        if free < 0:
            raise exception.PortLimitExceeded(
                'The number of defined ports: %(ports)d is over the limit: %(quota)d'
                % {'ports': used, 'quota': limit})
        if free >= per_server * max_count:
            return max_count
        LOG.info('Port quota of project %s leaves room for %d of %d servers',
                 context.project_id, free // per_server, max_count)
        return free // per_server
