"""Subnets: IPAM checks on create and update, visibility through their network."""

import uuid

from nova.embedded.network import access, attributes, common, errors, ipam, listing, store, views
from nova.embedded.network.attributes import UNSET


def not_found(subnet_id):
    return errors.not_found('SubnetNotFound', 'Subnet %s could not be found.' % subnet_id)


class SubnetsResource:
    """/v2.0/subnets."""

    def __init__(self, records, quotas, networks, changes):
        self._store = records
        self._quotas = quotas
        self._networks = networks
        self._changes = changes

    def _network_of(self, subnet):
        return self._store.get(store.NETWORKS, subnet['network_id'])

    def visible(self, caller, subnet_id):
        subnet = self._store.get(store.SUBNETS, subnet_id)
        if subnet is None or not access.subnet_visible(caller, subnet, self._network_of(subnet)):
            raise not_found(subnet_id)
        return subnet

    def view(self, caller, subnet):
        return views.public(subnet, 'subnet', caller)

    def list(self, req):
        items = [self.view(req.caller, s) for s in self._store.list(store.SUBNETS)
                 if access.subnet_visible(req.caller, s, self._network_of(s))]
        return common.json_response(listing.list_response(
            req, 'subnets', items, attributes.SUBNET,
            listing.filters_of(req, attributes.SUBNET)))

    def show(self, req, subnet_id):
        subnet = self.visible(req.caller, subnet_id)
        return common.json_response({'subnet': listing.select_fields(
            self.view(req.caller, subnet), listing.fields_of(req))})

    def new_record(self, item, network):
        """Check a create body against its network's subnets; the record to store."""
        if item.get('subnetpool_id'):
            raise errors.NeutronNotFound(
                'Subnet pool %s could not be found.' % item['subnetpool_id'],
                kind='SubnetPoolNotFound')
        if item.get('cidr') is None:
            raise errors.NeutronBadRequest('Bad subnets request: a subnetpool must be specified '
                                           'in the absence of a cidr.', kind='BadRequest')
        version = item['ip_version']
        others = [s for s in self._store.list(store.SUBNETS) if s['network_id'] == network['id']]
        ipam.check_cidr(item['cidr'], version, item['enable_dhcp'], others, network['id'])
        cidr = str(ipam.network(item['cidr']))
        gateway = item.get('gateway_ip', UNSET)
        gateway = ipam.default_gateway(cidr) if gateway is UNSET else gateway
        ipam.check_gateway(cidr, version, gateway)
        pools = item.get('allocation_pools', UNSET)
        if pools is UNSET or not pools:
            pools = ipam.default_pools(cidr, gateway)
        ipam.check_pools(cidr, pools, gateway)
        dns = item.get('dns_nameservers', UNSET)
        routes = item.get('host_routes', UNSET)
        dns = [] if dns is UNSET else dns
        routes = [] if routes is UNSET else routes
        ipam.check_dns_and_routes(version, dns, routes)
        if version == 4:
            for name in ('ipv6_ra_mode', 'ipv6_address_mode'):
                if item.get(name) is not None:
                    raise errors.NeutronInvalidInput('%s is not valid when ip_version is 4' % name)
        return {'id': str(uuid.uuid4()), 'name': item['name'], 'network_id': network['id'],
                'ip_version': version, 'cidr': cidr, 'gateway_ip': gateway,
                'allocation_pools': pools, 'dns_nameservers': dns, 'host_routes': routes,
                'enable_dhcp': item['enable_dhcp'], 'ipv6_ra_mode': item['ipv6_ra_mode'],
                'ipv6_address_mode': item['ipv6_address_mode'], 'subnetpool_id': None,
                'service_types': [], 'description': item['description'],
                'project_id': item['project_id']}

    def create(self, req):
        items, bulk = attributes.prepare(req.caller, 'subnet', common.read_json(req), True)
        made = []
        with self._store.transaction():
            for item in items:
                network = self._networks.visible(req.caller, item['network_id'])
                access.enforce('create_subnet', access.network_owner(req.caller, network))
                self._quotas.check(item['project_id'], subnet=1)
                made.append(self._store.put(store.SUBNETS, self.new_record(item, network)))
        self._changes.publish(store.SUBNETS)
        bodies = [self.view(req.caller, s) for s in made]
        if bulk:
            return common.json_response({'subnets': bodies}, status=201)
        return common.json_response({'subnet': bodies[0]}, status=201)

    def update(self, req, subnet_id):
        items, _bulk = attributes.prepare(req.caller, 'subnet', common.read_json(req), False)
        changes = items[0]
        with self._store.transaction():
            subnet = self.visible(req.caller, subnet_id)
            access.enforce('update_subnet', access.owns(req.caller, subnet))
            merged = dict(subnet, **changes)
            if 'gateway_ip' in changes:
                ipam.check_gateway(subnet['cidr'], subnet['ip_version'], merged['gateway_ip'])
                if merged['gateway_ip'] in self._allocated(subnet_id):
                    raise errors.NeutronConflict('Current gateway ip %s already in use by a port. '
                                                 'Unable to update.' % merged['gateway_ip'],
                                                 kind='GatewayIpInUse')
            if 'allocation_pools' in changes and not changes['allocation_pools']:
                merged['allocation_pools'] = changes['allocation_pools'] = \
                    ipam.default_pools(subnet['cidr'], merged['gateway_ip'])
            if 'gateway_ip' in changes or 'allocation_pools' in changes:
                ipam.check_pools(subnet['cidr'], merged['allocation_pools'],
                                 merged['gateway_ip'])
            ipam.check_dns_and_routes(subnet['ip_version'], changes.get('dns_nameservers'),
                                      changes.get('host_routes'), subnet_id)
            subnet = self._store.update(store.SUBNETS, subnet_id, **changes)
        self._changes.publish(store.SUBNETS)
        return common.json_response({'subnet': self.view(req.caller, subnet)})

    def _allocated(self, subnet_id):
        return {ip['ip_address'] for p in self._store.list(store.PORTS)
                for ip in p['fixed_ips'] if ip['subnet_id'] == subnet_id}

    def delete(self, req, subnet_id):
        with self._store.transaction():
            subnet = self.visible(req.caller, subnet_id)
            access.enforce('delete_subnet', access.owns(req.caller, subnet))
            if subnet_id in store.protected_ids(self._store):
                raise errors.NeutronConflict(
                    'Unable to complete operation on subnet %s: it is the all-in-one\'s '
                    'default subnet, served by its data plane.' % subnet_id,
                    kind='SubnetInUse')
            if self._allocated(subnet_id):
                raise errors.NeutronConflict(
                    'Unable to complete operation on subnet %s: One or more ports have an '
                    'IP allocation from this subnet.' % subnet_id, kind='SubnetInUse')
            self._store.remove(store.SUBNETS, subnet_id)
        self._changes.publish(store.SUBNETS)
        return common.empty_response()
