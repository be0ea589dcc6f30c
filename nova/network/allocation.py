"""A server's ports on its host: create and bind them, attach/detach one, unbind or delete them."""

import logging
import time

from nova import exception
from nova.network import model
from nova.network import networks as net_lookups
from nova.network import requests as net_requests

LOG = logging.getLogger(__name__)

# binding:profile keys describing the host's device (PCI, placement, Cyborg):
# dropped when a user's port leaves the server, the rest of the profile kept.
_HOST_PROFILE_KEYS = ('pci_vendor_info', 'pci_slot', 'allocation', 'arq_uuid',
                      'physical_network', 'card_serial_number', 'vf_num',
                      'pf_mac_address', 'device_mac_address', 'migrating_to')
RETRY_DELAY_MAX = 30


class PortAllocator:
    """The compute host's port steps, as upstream's allocate_for_instance and
    deallocate_for_instance take them.

    Ports are created with the caller's token in the server's project (so
    Neutron's quota and policy are the user's), then bound with the admin
    client. Whatever fails, the ports this call created are deleted and the
    user's ports it bound are unbound again before the exception leaves:
    nothing is left behind for a later delete to find.
    """

    def __init__(self, conf, client, extensions, networks, info, security_groups,
                 sleep=time.sleep):
        self._conf = conf
        self._client = client
        self._extensions = extensions
        self._networks = networks
        self._info = info
        self._security_groups = security_groups
        self._sleep = sleep

    # -- server create -------------------------------------------------------

    def allocate_for_instance(self, context, instance, requested_networks,
                              security_groups=None, bind_host_id=None, retries=None):
        """Create/bind the server's ports on ``bind_host_id``; its network info.

        ``requested_networks``: RequestedNetworks or its primitive (None,
        'auto', 'none' or the API's list). ``security_groups``: names or ids
        (['default'] or None: Neutron's default group). NetworkServiceError
        is retried ``retries`` times ([DEFAULT] network_allocate_retries by
        default) with a doubling pause; refusals (4xx) are not retried.
        """
        requested = net_requests.RequestedNetworks.from_primitive(requested_networks)
        if requested.no_allocate:
            return []
        attempts = 1 + (self._conf.network_allocate_retries if retries is None else retries)
        for attempt in range(attempts):
            try:
                return self._allocate(context, instance, requested, security_groups,
                                      bind_host_id)[0]
            except exception.NetworkServiceError as exc:
                if attempt + 1 >= attempts:
                    raise
                delay = min(2 ** attempt, RETRY_DELAY_MAX)
                LOG.warning('Allocating the ports of %s failed (attempt %d of %d), '
                            'retrying in %ds: %s', net_lookups.instance_field(instance, 'uuid'),
                            attempt + 1, attempts, delay, exc)
                self._sleep(delay)

    def deallocate_for_instance(self, context, instance, requested_networks=None):
        """Delete the ports made for the server; unbind (and keep) the user's.

        The user's ports are those the cache marks preserve_on_delete plus
        any port ``requested_networks`` names (a build that failed before its
        cache was saved). Raises NetworkServiceError if a port could not be
        deleted; the rest are still handled.
        """
        requested = net_requests.RequestedNetworks.from_primitive(requested_networks)
        keep = model.preserved_port_ids(
            net_lookups.instance_field(instance, 'network_info') or [])
        keep |= set(requested.port_ids)
        ports = self._client.instance_ports(context, instance)
        self._unbind(context, [p['id'] for p in ports if p['id'] in keep])
        failure = None
        for port in ports:
            if port['id'] in keep:
                continue
            try:
                self._client.delete_port(context, port['id'])
            except exception.NovaException as exc:
                LOG.error('Could not delete port %s of %s: %s', port['id'],
                          net_lookups.instance_field(instance, 'uuid'), exc)
                failure = exc
        if failure is not None:
            raise failure
        return []

    # -- interface attach / detach -------------------------------------------

    def allocate_port_for_instance(self, context, instance, port_id=None, network_id=None,
                                   requested_ip=None, tag=None, bind_host_id=None):
        """One more port (os-interface attach): (network info, the new VIF).

        With neither ``port_id`` nor ``network_id`` the project's only
        network is used; none gives InterfaceAttachFailedNoNetwork.
        """
        request = net_requests.NetworkRequest(network_id=network_id, port_id=port_id,
                                              address=requested_ip, tag=tag)
        requested = net_requests.RequestedNetworks([request] if port_id or network_id else [])
        nw_info, port_ids = self._allocate(context, instance, requested, None, bind_host_id,
                                           attach=True)
        return nw_info, model.find_vif(nw_info, port_ids[0])

    def deallocate_port_for_instance(self, context, instance, port_id):
        """Detach one port: deleted if made for the server, else unbound and
        kept. Answers the server's network info without it."""
        cached = net_lookups.instance_field(instance, 'network_info') or []
        if port_id in model.preserved_port_ids(cached):
            self._unbind(context, [port_id])
        else:
            self._client.delete_port(context, port_id)
        return model.without_vif(self._info.build(context, instance), port_id)

    # -- the steps -----------------------------------------------------------

    def _allocate(self, context, instance, requested, security_groups, bind_host_id,
                  attach=False):
        uuid = net_lookups.instance_field(instance, 'uuid')
        user_ports = self._check_user_ports(context, instance, requested)
        requests, nets = self._networks_for(context, instance, requested, attach)
        if not requests:
            return [], []
        sg_ids = self._security_groups.resolve_for_instance(
            context, net_lookups.instance_field(instance, 'project_id'), security_groups)
        created, bound = [], []
        try:
            ordered = []
            for request in requests:
                if request.port_id:
                    ordered.append(request.port_id)
                    continue
                port = self._create_port(context, instance, nets[request.network_id],
                                         request.address, sg_ids)
                created.append(port['id'])
                ordered.append(port['id'])
            for request, port_id in zip(requests, ordered):
                self._bind(context, instance, port_id, nets[request.network_id],
                           user_ports.get(port_id), bind_host_id)
                if port_id in user_ports:
                    bound.append(port_id)
            tags = {port_id: r.tag for r, port_id in zip(requests, ordered) if r.tag}
            nw_info = self._info.build(context, instance, port_ids=ordered,
                                       preserved=user_ports, tags=tags)
            return nw_info, ordered
        except Exception:
            LOG.info('Allocation for %s failed: unbinding %s, deleting %s', uuid, bound,
                     created)
            self._unbind(context, bound, best_effort=True)
            for port_id in created:
                try:
                    self._client.delete_port(context, port_id)
                except exception.NovaException as exc:
                    LOG.error('Could not delete port %s while cleaning up: %s', port_id, exc)
            raise

    def _check_user_ports(self, context, instance, requested):
        """{port id: port} of the ports the user brought; each request's
        network becomes its port's."""
        uuid = net_lookups.instance_field(instance, 'uuid')
        hostname = net_lookups.instance_field(instance, 'hostname')
        ports = {}
        for request in requested:
            if not request.port_id:
                continue
            port = self._networks.show_port(context, request.port_id, admin=True)
            if port.get('tenant_id') != net_lookups.instance_field(instance, 'project_id'):
                raise exception.PortNotUsable(port_id=request.port_id, instance=uuid)
            if port.get('device_id'):
                raise exception.PortInUse(port_id=request.port_id)
            if port.get('dns_name') and port['dns_name'] != hostname:
                raise exception.PortNotUsableDNS(port_id=request.port_id, instance=uuid,
                                                 value=port['dns_name'], hostname=hostname)
            if port.get('binding:vif_type') == model.VIF_TYPE_BINDING_FAILED:
                raise exception.PortBindingFailed(port_id=request.port_id)
            request.network_id = port['network_id']
            ports[request.port_id] = port
        return ports

    def _networks_for(self, context, instance, requested, attach):
        """(requests, {network id: network}) with the default network filled in."""
        project_id = net_lookups.instance_field(instance, 'project_id')
        requests = list(requested)
        net_ids = [r.network_id for r in requests]
        nets = self._networks.available(context, project_id, net_ids,
                                        auto_allocate=requested.auto_allocate)
        by_id = {n['id']: n for n in nets}
        lost = [net_id for net_id in net_ids if net_id not in by_id]
        if lost:
            # Upstream skips such a request and boots without that NIC.
            raise exception.NetworkNotFound(network_id=', '.join(dict.fromkeys(lost)))
        if not requests:
            if not nets and requested.auto_allocate:
                nets = [self._networks.auto_allocate(context, project_id)]
            if not nets:
                if attach:
                    raise exception.InterfaceAttachFailedNoNetwork(project_id=project_id)
                return [], {}
            if len(nets) > 1:
                raise exception.NetworkAmbiguous(
                    'Multiple possible networks found, use a Network ID to be more '
                    'specific.')
            requests = [net_requests.NetworkRequest(network_id=nets[0]['id'])]
            by_id = {nets[0]['id']: nets[0]}
        self._networks.check_external_attach(context, list(by_id.values()))
        return requests, by_id

    def _create_port(self, context, instance, net, address, sg_ids):
        uuid = net_lookups.instance_field(instance, 'uuid')
        if net.get('port_security_enabled', True):
            if not net.get('subnets'):
                raise exception.SecurityGroupCannotBeApplied()
        elif sg_ids:
            raise exception.SecurityGroupCannotBeApplied()
        # device_id at once: the port is visibly taken while it is bound.
        body = {'device_id': uuid, 'network_id': net['id'], 'admin_state_up': True,
                'tenant_id': net_lookups.instance_field(instance, 'project_id')}
        if address:
            body['fixed_ips'] = [{'ip_address': str(address)}]
        if sg_ids:
            body['security_groups'] = sg_ids

        def in_use(_msg):
            return exception.FixedIpAlreadyInUse('Fixed IP %s is already in use.' % address)

        def invalid(_msg):
            return exception.FixedIpInvalid(
                'Fixed IP %(ip)s is not a valid ip address for network %(network_id)s.'
                % {'ip': address, 'network_id': net['id']})

        port = self._client.call(context, 'POST', '/ports', json={'port': body}, errors={
            'IpAddressAlreadyAllocated': in_use, 'IpAddressInUse': in_use,
            'InvalidIpForNetwork': invalid, 'InvalidIpForSubnet': invalid,
            'OverQuota': lambda _msg: exception.PortLimitExceeded(),
            'IpAddressGenerationFailure': lambda _msg: exception.NoMoreFixedIps(net=net['id']),
        })['port']
        if port.get('resource_request'):
            # A minimum-bandwidth QoS policy needs a placement claim, which
            # this service does not make: refuse rather than overcommit.
            self._client.delete_port(context, port['id'])
            raise exception.NetworksWithQoSPolicyNotSupported(instance_uuid=uuid,
                                                              network_id=net['id'])
        LOG.debug('Created port %s for %s', port['id'], uuid)
        return port

    def _bind(self, context, instance, port_id, net, user_port, host):
        zone = (net_lookups.instance_field(instance, 'availability_zone')
                or self._conf.default_availability_zone)
        values = {'device_id': net_lookups.instance_field(instance, 'uuid'),
                  'device_owner': 'compute:%s' % zone, 'binding:host_id': host}
        profile = (user_port or {}).get('binding:profile')
        if profile:
            values['binding:profile'] = profile
        dns = self._extensions.has(context, self._extensions.DNS_INTEGRATION)
        hostname = net_lookups.instance_field(instance, 'hostname')
        if dns and not net.get('dns_domain') and _dns_label_ok(hostname):
            # A hostname Neutron would refuse as a DNS name (a label over 63
            # characters, from 2.94's FQDN hostnames) leaves the port without one
            # rather than failing the build or the attach.
            values['dns_name'] = hostname
        port = self._client.update_port(context, port_id, values, errors={
            'MacAddressInUse': lambda _msg: exception.PortInUse(port_id=port_id),
            'HostNotCompatibleWithFixedIps':
                lambda _msg: exception.FixedIpInvalidOnHost(port_id=port_id),
            'PortNotFound': lambda _msg: exception.PortNotFound(port_id=port_id),
        })
        if port.get('binding:vif_type') == model.VIF_TYPE_BINDING_FAILED:
            raise exception.PortBindingFailed(port_id=port_id)
        if dns and net.get('dns_domain'):
            # External DNS: the record lives in the user's zone, so the user sets it.
            self._client.update_port(context, port_id, {'dns_name': hostname}, admin=False,
                                     errors={400: lambda _msg: exception.Invalid(
                                         reason='Instance hostname %s is not a valid DNS '
                                                'name' % hostname)})
        return port

    def _unbind(self, context, port_ids, best_effort=False):
        """Give the user's ports back: no device, no host, no host-side profile.

        ``best_effort`` (cleaning up after a failure): errors are logged, so
        the failure that matters is the one the caller sees.
        """
        try:
            self._unbind_all(context, port_ids)
        except exception.NovaException as exc:
            if not best_effort:
                raise
            LOG.error('Could not unbind ports %s while cleaning up: %s', port_ids, exc)

    def _unbind_all(self, context, port_ids):
        dns = bool(port_ids) and self._extensions.has(context,
                                                      self._extensions.DNS_INTEGRATION)
        for port_id in port_ids:
            try:
                port = self._networks.show_port(context, port_id, admin=True)
            except exception.PortNotFound:
                continue
            profile = {k: v for k, v in (port.get('binding:profile') or {}).items()
                       if k not in _HOST_PROFILE_KEYS}
            values = {'device_id': '', 'device_owner': '', 'binding:host_id': None,
                      'binding:profile': profile}
            if dns:
                values['dns_name'] = ''
            try:
                self._client.update_port(context, port_id, values)
            except exception.NotFound:
                LOG.debug('Port %s went away before it was unbound', port_id)


def _dns_label_ok(hostname):
    """Whether Neutron takes ``hostname`` as a port's dns_name (labels of 1-63)."""
    labels = (hostname or '').rstrip('.').split('.')
    return bool(hostname) and len(hostname) <= 255 and all(0 < len(x) <= 63 for x in labels)
