"""Networks: list/show/create/update/delete with Neutron's sharing and ownership rules."""

import typing
import uuid

from nova.embedded.network import access, attributes, common, errors, listing, store, views

# Ports the service itself makes on a network do not keep it from being deleted.
NETWORK_OWNED_PREFIX = 'network:'


class NetworkSettings(typing.NamedTuple):
    """Deployment facts the resource families need."""

    mtu: int = 1500
    dns_domain: str = 'openstacklocal.'


def not_found(network_id):
    return errors.not_found('NetworkNotFound', 'Network %s could not be found.' % network_id)


class NetworksResource:
    """/v2.0/networks."""

    def __init__(self, records, quotas, security_groups, changes, settings):
        self._store = records
        self._quotas = quotas
        self._security_groups = security_groups
        self._changes = changes
        self._settings = settings

    def visible(self, caller, network_id):
        network = self._store.get(store.NETWORKS, network_id)
        if network is None or not access.network_visible(caller, network):
            raise not_found(network_id)
        return network

    def view(self, caller, network):
        subnets = [s['id'] for s in self._store.list(store.SUBNETS)
                   if s['network_id'] == network['id']]
        return views.public(network, 'network', caller, extra={'subnets': subnets})

    def list(self, req):
        items = [self.view(req.caller, n) for n in self._store.list(store.NETWORKS)
                 if access.network_visible(req.caller, n)]
        return common.json_response(listing.list_response(
            req, 'networks', items, attributes.NETWORK,
            listing.filters_of(req, attributes.NETWORK)))

    def show(self, req, network_id):
        network = self.visible(req.caller, network_id)
        return common.json_response({'network': listing.select_fields(
            self.view(req.caller, network), listing.fields_of(req))})

    def new_record(self, item):
        """The stored form of a checked create body (also used for the default network)."""
        return {
            'id': str(uuid.uuid4()), 'name': item['name'],
            'admin_state_up': item['admin_state_up'], 'status': 'ACTIVE',
            'shared': item['shared'], 'mtu': item.get('mtu', self._settings.mtu),
            'port_security_enabled': item['port_security_enabled'],
            'router:external': item['router:external'],
            'dns_domain': item['dns_domain'], 'description': item['description'],
            'project_id': item['project_id']}

    def create(self, req):
        body = common.read_json(req)
        items, bulk = attributes.prepare(req.caller, 'network', body, True)
        for item in items:
            access.enforce('create_network', True, [
                (name, req.caller.is_admin) for name in ('shared', 'router:external')
                if item[name]])
        made = []
        for project_id in {i['project_id'] for i in items}:
            self._security_groups.ensure_default(project_id)
        with self._store.transaction():
            for item in items:
                self._quotas.check(item['project_id'], network=1)
                made.append(self._store.put(store.NETWORKS, self.new_record(item)))
        self._changes.publish(store.NETWORKS)
        bodies = [self.view(req.caller, n) for n in made]
        if bulk:
            return common.json_response({'networks': bodies}, status=201)
        return common.json_response({'network': bodies[0]}, status=201)

    def update(self, req, network_id):
        items, _bulk = attributes.prepare(req.caller, 'network', common.read_json(req), False)
        changes = items[0]
        with self._store.transaction():
            network = self.visible(req.caller, network_id)
            admin_attrs = [name for name in ('shared', 'router:external')
                           if name in changes and changes[name] != network[name]]
            access.enforce('update_network', access.owns(req.caller, network),
                           [(name, req.caller.is_admin) for name in admin_attrs])
            if changes.get('shared') is False and network['shared']:
                others = {p['project_id'] for p in self._store.list(store.PORTS)
                          if p['network_id'] == network_id}
                if others - {network['project_id']}:
                    raise errors.NeutronConflict(
                        'Unable to reconfigure sharing settings for network %s. Multiple '
                        'projects are using it.' % network_id, kind='InvalidSharedSetting')
            network = self._store.update(store.NETWORKS, network_id, **changes)
        self._changes.publish(store.NETWORKS)
        return common.json_response({'network': self.view(req.caller, network)})

    def delete(self, req, network_id):
        with self._store.transaction():
            network = self.visible(req.caller, network_id)
            access.enforce('delete_network', access.owns(req.caller, network))
            if network_id in store.protected_ids(self._store):
                raise errors.NeutronConflict(
                    'Unable to complete operation on network %s. It is the all-in-one\'s '
                    'default network, served by its data plane.' % network_id,
                    kind='NetworkInUse')
            ports = [p for p in self._store.list(store.PORTS) if p['network_id'] == network_id]
            if any(not p['device_owner'].startswith(NETWORK_OWNED_PREFIX) for p in ports):
                raise errors.NeutronConflict(
                    'Unable to complete operation on network %s. There are one or more '
                    'ports still in use on the network.' % network_id, kind='NetworkInUse')
            for port in ports:
                self._store.remove(store.PORTS, port['id'])
            for subnet in self._store.list(store.SUBNETS):
                if subnet['network_id'] == network_id:
                    self._store.remove(store.SUBNETS, subnet['id'])
            self._store.remove(store.NETWORKS, network_id)
        self._changes.publish(store.NETWORKS)
        return common.empty_response()
