"""Ports: fixed IP allocation, MACs, security groups, binding, status and Nova's port events."""

import ipaddress
import random
import uuid

from nova.embedded.network import (
    access,
    attributes,
    common,
    errors,
    events,
    ipam,
    listing,
    store,
    views,
)
from nova.embedded.network.attributes import UNSET
from nova.embedded.network.networks import NETWORK_OWNED_PREFIX

BASE_MAC = (0xfa, 0x16, 0x3e)
ACTIVE, DOWN = 'ACTIVE', 'DOWN'
# Attributes with a rule of their own, in the order Neutron lists them.
_CREATE_RULES = ('device_owner', 'mac_address', 'fixed_ips', 'fixed_ips:ip_address',
                 'fixed_ips:subnet_id', 'port_security_enabled', 'binding:host_id',
                 'binding:profile')


def not_found(port_id):
    return errors.not_found('PortNotFound', 'Port %s could not be found.' % port_id)


def _in_use(network_id, address):
    return errors.NeutronConflict('Unable to complete operation for network %s. The IP address %s '
                                  'is in use.' % (network_id, address), kind='IpAddressInUse')


def _eui64(cidr, mac):
    """The SLAAC address of a MAC on an IPv6 prefix."""
    octets = [int(x, 16) for x in mac.split(':')]
    octets[0] ^= 0x02
    iid = bytes(octets[:3] + [0xff, 0xfe] + octets[3:])
    net = ipaddress.ip_network(cidr)
    return str(ipaddress.IPv6Address(int(net.network_address) | int.from_bytes(iid, 'big')))


class PortsResource:
    """/v2.0/ports, and the status the data plane reports for them."""

    def __init__(self, records, quotas, networks, security_groups, binder, changes,
                 notifier, settings, plane_managed=False, rng=None):
        self._store = records
        self._quotas = quotas
        self._networks = networks
        self._security_groups = security_groups
        self._binder = binder
        self._changes = changes
        self._notifier = notifier
        self._settings = settings
        # With a data plane, bound ports turn ACTIVE when their tap is plugged;
        # without one, as soon as they are bound.
        self.plane_managed = plane_managed
        self._rng = rng or random.SystemRandom()

    # -- views ------------------------------------------------------------------

    def _dns_assignment(self, port, network):
        domain = (network or {}).get('dns_domain') or self._settings.dns_domain
        out = []
        for ip in port['fixed_ips']:
            host = port.get('dns_name') or 'host-' + ip['ip_address'].replace(
                '.', '-').replace(':', '-')
            out.append({'hostname': host, 'ip_address': ip['ip_address'],
                        'fqdn': '%s.%s' % (host, domain.rstrip('.') + '.')})
        return out

    def view(self, caller, port):
        network = self._store.get(store.NETWORKS, port['network_id'])
        return views.public(port, 'port', caller,
                            extra={'dns_assignment': self._dns_assignment(port, network)})

    def visible(self, caller, port_id):
        port = self._store.get(store.PORTS, port_id)
        network = port and self._store.get(store.NETWORKS, port['network_id'])
        if port is None or not access.port_visible(caller, port, network):
            raise not_found(port_id)
        return port

    def list(self, req):
        items = []
        for port in self._store.list(store.PORTS):
            network = self._store.get(store.NETWORKS, port['network_id'])
            if access.port_visible(req.caller, port, network):
                items.append(self.view(req.caller, port))
        return common.json_response(listing.list_response(
            req, 'ports', items, attributes.PORT, listing.filters_of(req, attributes.PORT)))

    def show(self, req, port_id):
        port = self.visible(req.caller, port_id)
        return common.json_response({'port': listing.select_fields(
            self.view(req.caller, port), listing.fields_of(req))})

    # -- policy -------------------------------------------------------------------

    @staticmethod
    def _rules(caller, network, item, defaults):
        owner = access.network_owner(caller, network)
        shared = bool(network.get('shared'))
        ips = item.get('fixed_ips')
        ips = ips if isinstance(ips, list) else []
        allowed = {
            'device_owner': owner or not item.get('device_owner', '').startswith(
                NETWORK_OWNED_PREFIX),
            'mac_address': owner, 'fixed_ips': owner or shared,
            'fixed_ips:ip_address': owner, 'fixed_ips:subnet_id': owner or shared,
            'port_security_enabled': owner,
            'binding:host_id': caller.is_admin, 'binding:profile': caller.is_admin,
        }
        present = {
            'fixed_ips': 'fixed_ips' in item and item['fixed_ips'] is not UNSET,
            'fixed_ips:ip_address': any('ip_address' in ip for ip in ips),
            'fixed_ips:subnet_id': any('subnet_id' in ip for ip in ips),
        }
        checked = []
        for name in _CREATE_RULES:
            if name in present:
                if present[name]:
                    checked.append((name, allowed[name]))
            elif access.explicitly_set(item, name, defaults.get(name, UNSET)):
                checked.append((name, allowed[name]))
        return checked

    # -- addresses ----------------------------------------------------------------

    def _subnets(self, network_id):
        return [s for s in self._store.list(store.SUBNETS) if s['network_id'] == network_id]

    def _used(self, subnet, but_port=None):
        used = {ip['ip_address'] for p in self._store.list(store.PORTS)
                if p['id'] != but_port for ip in p['fixed_ips']
                if ip['subnet_id'] == subnet['id']}
        if subnet['gateway_ip']:
            # The host holds the gateway address on the all-in-one's bridge.
            used.add(subnet['gateway_ip'])
        return used

    def _allocate_from(self, subnet, network, taken, mac):
        if subnet['ip_version'] == 6 and subnet['ipv6_address_mode'] in (
                'slaac', 'dhcpv6-stateless'):
            return _eui64(subnet['cidr'], mac)
        address = ipam.allocate(subnet, taken, self._rng)
        if address is None:
            raise errors.NeutronConflict('No more IP addresses available on network %s.'
                                         % network['id'], kind='IpAddressGenerationFailure')
        return address

    def _fixed_ips(self, network, requested, mac, port_id, held=()):
        """The port's addresses for a request (UNSET: one per IP version)."""
        subnets = self._subnets(network['id'])
        by_id = {s['id']: s for s in subnets}
        chosen = []
        taken = {s['id']: self._used(s, but_port=port_id) for s in subnets}
        if requested is UNSET:
            for version in (4, 6):
                for subnet in (s for s in subnets if s['ip_version'] == version):
                    try:
                        address = self._allocate_from(subnet, network, taken[subnet['id']], mac)
                    except errors.NeutronConflict:
                        continue
                    chosen.append({'subnet_id': subnet['id'], 'ip_address': address})
                    break
                else:
                    if version == 4 and any(s['ip_version'] == 4 for s in subnets):
                        raise errors.NeutronConflict('No more IP addresses available on network '
                                                     '%s.' % network['id'],
                                                     kind='IpAddressGenerationFailure')
            return chosen
        for entry in requested:
            subnet_id, address = entry.get('subnet_id'), entry.get('ip_address')
            if subnet_id is not None and subnet_id not in by_id:
                raise errors.NeutronInvalidInput('Failed to create port on network %s, because '
                                                 'fixed_ips included invalid subnet %s'
                                                 % (network['id'], subnet_id))
            if address is None:
                subnet = by_id[subnet_id]
                address = self._allocate_from(subnet, network, taken[subnet_id], mac)
            else:
                if subnet_id is None:
                    matching = [s for s in subnets if ipam.valid_for_subnet(address, s)]
                    if not matching:
                        raise errors.NeutronBadRequest(
                            'IP address %s is not a valid IP for any of the subnets on the '
                            'specified network.' % address, kind='InvalidIpForNetwork')
                    subnet = matching[0]
                else:
                    subnet = by_id[subnet_id]
                    if not ipam.valid_for_subnet(address, subnet):
                        raise errors.NeutronBadRequest('IP address %s is not a valid IP for the '
                                                       'specified subnet.' % address,
                                                       kind='InvalidIpForSubnet')
                address = str(ipaddress.ip_address(address))
                if address in taken[subnet['id']] and address not in held:
                    raise _in_use(network['id'], address)
            taken[subnet['id']].add(address)
            chosen.append({'subnet_id': subnet['id'], 'ip_address': address})
        return chosen

    def _new_mac(self, network_id):
        used = {p['mac_address'] for p in self._store.list(store.PORTS)
                if p['network_id'] == network_id}
        while True:
            mac = ':'.join('%02x' % b for b in BASE_MAC + tuple(
                self._rng.randrange(256) for _ in range(3)))
            if mac not in used:
                return mac

    def _check_mac(self, network_id, mac, port_id=None):
        if any(p['mac_address'] == mac and p['id'] != port_id
               for p in self._store.list(store.PORTS) if p['network_id'] == network_id):
            raise errors.NeutronConflict('Unable to complete operation for network %s. The mac '
                                         'address %s is in use.' % (network_id, mac),
                                         kind='MacAddressInUse')

    def _check_groups(self, caller, project_id, groups, port_security, fixed_ips):
        for group_id in groups:
            group = self._store.get(store.SECURITY_GROUPS, group_id)
            if group is None or not (caller.is_admin or group['project_id'] == project_id):
                raise errors.not_found('SecurityGroupNotFound',
                                       'Security group %s does not exist' % group_id)
        if groups and (not port_security or not fixed_ips):
            raise errors.NeutronBadRequest('Port security must be enabled and port must have an '
                                           'IP address in order to use security groups.',
                                           kind='PortSecurityAndIPRequiredForSecurityGroups')

    # -- binding and status -----------------------------------------------------------

    def _bound(self, port):
        binding = self._binder.bind(port)
        port['binding:vif_type'] = binding.vif_type
        port['binding:vif_details'] = binding.vif_details
        return port

    def _initial_status(self, port):
        if (not self.plane_managed and port['admin_state_up']
                and port['binding:vif_type'] not in ('unbound', 'binding_failed')):
            return ACTIVE
        return DOWN

    def _status_events(self, before, after):
        found = []
        if events.is_compute_port(after) and before['status'] != after['status']:
            if after['status'] == ACTIVE:
                found.append(events.event('network-vif-plugged', after))
            elif before['status'] == ACTIVE:
                found.append(events.event('network-vif-unplugged', after))
        return found

    def _notify(self, found):
        if found and self._notifier is not None:
            self._notifier.notify(found)

    def set_status(self, port_id, status):
        """The data plane saw the port's tap come (ACTIVE) or go (DOWN)."""
        with self._store.transaction():
            port = self._store.get(store.PORTS, port_id)
            if port is None or port['status'] == status:
                return
            updated = self._store.update(store.PORTS, port_id, status=status)
        self._notify(self._status_events(port, updated))

    # -- create, update, delete ---------------------------------------------------------

    def _new_record(self, caller, item, network):
        mac = item.get('mac_address', UNSET)
        if mac is UNSET:
            mac = self._new_mac(network['id'])
        else:
            self._check_mac(network['id'], mac)
        port_id = str(uuid.uuid4())
        fixed = self._fixed_ips(network, item.get('fixed_ips', UNSET), mac, port_id)
        security = item.get('port_security_enabled', UNSET)
        security = network['port_security_enabled'] if security is UNSET else security
        groups = item.get('security_groups', UNSET)
        if groups is UNSET:
            groups = []
            # As ML2: the default group only for a secured port with an address.
            if (security and fixed
                    and not item['device_owner'].startswith(NETWORK_OWNED_PREFIX)):
                groups = [self._security_groups.ensure_default(item['project_id'])]
        self._check_groups(caller, item['project_id'], groups, security, fixed)
        port = {'id': port_id, 'name': item['name'], 'network_id': network['id'],
                'admin_state_up': item['admin_state_up'], 'mac_address': mac,
                'fixed_ips': fixed, 'device_id': item['device_id'],
                'device_owner': item['device_owner'], 'security_groups': groups,
                'port_security_enabled': security, 'dns_name': item['dns_name'],
                'binding:host_id': item['binding:host_id'] or '',
                'binding:vnic_type': item['binding:vnic_type'],
                'binding:profile': item['binding:profile'],
                'description': item['description'], 'project_id': item['project_id']}
        port = self._bound(port)
        port['status'] = self._initial_status(port)
        return port

    def create(self, req):
        body = common.read_json(req)
        items, bulk = attributes.prepare(req.caller, 'port', body, True)
        defaults = {name: a.default for name, a in attributes.PORT.items()}
        made = []
        for project_id in {i['project_id'] for i in items}:
            self._security_groups.ensure_default(project_id)
        with self._store.transaction():
            for item in items:
                network = self._networks.visible(req.caller, item['network_id'])
                access.enforce('create_port', access.network_owner(req.caller, network)
                               or bool(network.get('shared')),
                               self._rules(req.caller, network, item, defaults))
                self._quotas.check(item['project_id'], port=1)
                made.append(self._store.put(store.PORTS,
                                            self._new_record(req.caller, item, network)))
        self._changes.publish(store.PORTS)
        self._notify([events.event('network-vif-plugged', p) for p in made
                      if p['status'] == ACTIVE and events.is_compute_port(p)])
        bodies = [self.view(req.caller, p) for p in made]
        if bulk:
            return common.json_response({'ports': bodies}, status=201)
        return common.json_response({'port': bodies[0]}, status=201)

    def _apply_update(self, caller, port, changes, network):
        merged = dict(port, **changes)
        if 'mac_address' in changes and changes['mac_address'] != port['mac_address']:
            if port['binding:vif_type'] not in ('unbound', 'binding_failed'):
                raise errors.NeutronConflict(
                    'Unable to complete operation on port %s, port is already bound, port '
                    'type: %s, old_mac %s, new_mac %s.' % (
                        port['id'], port['binding:vif_type'], port['mac_address'],
                        changes['mac_address']), kind='PortBound')
            self._check_mac(port['network_id'], changes['mac_address'], port['id'])
        if 'fixed_ips' in changes:
            held = {ip['ip_address'] for ip in port['fixed_ips']}
            merged['fixed_ips'] = self._fixed_ips(network, changes['fixed_ips'],
                                                  merged['mac_address'], port['id'], held)
        if 'security_groups' in changes or 'port_security_enabled' in changes \
                or 'fixed_ips' in changes:
            self._check_groups(caller, port['project_id'], merged['security_groups'],
                               merged['port_security_enabled'], merged['fixed_ips'])
        if merged.get('binding:host_id') is None:
            merged['binding:host_id'] = ''
        if any(k in changes for k in ('binding:host_id', 'binding:vnic_type',
                                      'binding:profile', 'mac_address')):
            self._bound(merged)
            if not self.plane_managed or merged['binding:vif_type'] in (
                    'unbound', 'binding_failed'):
                merged['status'] = self._initial_status(merged)
        elif 'admin_state_up' in changes and not self.plane_managed:
            merged['status'] = self._initial_status(merged)
        return {k: val for k, val in merged.items() if port.get(k) != val}

    def update(self, req, port_id):
        body = common.read_json(req)
        items, _bulk = attributes.prepare(req.caller, 'port', body, False)
        changes = items[0]
        with self._store.transaction():
            port = self.visible(req.caller, port_id)
            network = self._store.get(store.NETWORKS, port['network_id'])
            checked = self._rules(req.caller, network, changes,
                                  {name: port.get(name) for name in changes})
            checked = [(n, ok if n != 'mac_address' else req.caller.is_admin)
                       for n, ok in checked]
            access.enforce('update_port', access.owns(req.caller, port)
                           or access.network_owner(req.caller, network), checked)
            delta = self._apply_update(req.caller, port, changes, network)
            updated = self._store.update(store.PORTS, port_id, **delta) if delta else port
        self._changes.publish(store.PORTS)
        found = self._status_events(port, updated)
        if 'fixed_ips' in delta and events.is_compute_port(updated):
            found.append(events.event('network-changed', updated))
        self._notify(found)
        return common.json_response({'port': self.view(req.caller, updated)})

    def delete(self, req, port_id):
        with self._store.transaction():
            port = self.visible(req.caller, port_id)
            network = self._store.get(store.NETWORKS, port['network_id'])
            access.enforce('delete_port', access.owns(req.caller, port)
                           or access.network_owner(req.caller, network))
            self._store.remove(store.PORTS, port_id)
        self._changes.publish(store.PORTS)
        if events.is_compute_port(port):
            self._notify([events.event('network-vif-deleted', port)])
        return common.empty_response()
