"""A server's network info (model.py's format) from its Neutron ports, subnets and FIPs."""

import logging

from nova.network import model
from nova.network import networks as net_lookups

LOG = logging.getLogger(__name__)

# binding:vif_types whose bridge is an OVS bridge Nova plugs into.
_OVS_TYPES = (model.VIF_TYPE_OVS, model.VIF_TYPE_AGILIO_OVS)


class NetworkInfoBuilder:
    """Turns Neutron's view of a server's ports into its network info.

    Four list calls per build whatever the number of ports (ports, networks,
    subnets, floating IPs) plus one for DHCP ports, all as admin: the cache
    must show every port of the server, whoever owns the network.
    """

    def __init__(self, conf, client):
        self._conf = conf
        self._client = client

    def build(self, context, instance, port_ids=None, preserved=(), tags=None):
        """The network info of ``instance`` from Neutron, now.

        Port order: the current cache's, then ``port_ids`` (allocation
        order), then any other port whose device_id is the server.
        ``preserved`` adds ports the user brought to those the current cache
        marks ``preserve_on_delete``; ``tags`` ({port id: tag}) adds to the
        tags the cache holds.
        """
        uuid = net_lookups.instance_field(instance, 'uuid')
        cached = net_lookups.instance_field(instance, 'network_info') or []
        ports = self._client.list(context, 'ports', admin=True, device_id=uuid,
                                  tenant_id=net_lookups.instance_field(instance, 'project_id'))
        order = list(dict.fromkeys([v['id'] for v in cached] + list(port_ids or ())))
        rank = {port_id: i for i, port_id in enumerate(order)}
        ports.sort(key=lambda p: rank.get(p['id'], len(rank)))
        preserved = set(preserved) | model.preserved_port_ids(cached)
        all_tags = {v['id']: model.tag(v) for v in cached if model.tag(v)}
        all_tags.update(tags or {})
        return self.from_ports(context, ports, preserved, all_tags)

    def from_ports(self, context, ports, preserved=(), tags=None):
        """The network info of these Neutron ports (dicts as Neutron gives them)."""
        if not ports:
            return []
        net_ids = list(dict.fromkeys(p['network_id'] for p in ports))
        nets = {n['id']: n for n in self._client.list(context, 'networks', admin=True,
                                                      id=net_ids)}
        subnet_ids = list(dict.fromkeys(ip['subnet_id'] for p in ports
                                        for ip in p.get('fixed_ips') or ()))
        subnets = {s['id']: s for s in (self._client.list(
            context, 'subnets', admin=True, id=subnet_ids) if subnet_ids else ())}
        dhcp = self._dhcp_servers(context, net_ids)
        fips = self._floating_ips(context, [p['id'] for p in ports])
        return [self._vif(p, nets.get(p['network_id']), subnets, dhcp, fips,
                          p['id'] in set(preserved), (tags or {}).get(p['id']))
                for p in ports]

    # -- lookups -------------------------------------------------------------

    def _dhcp_servers(self, context, net_ids):
        """{subnet id: address of Neutron's DHCP port on it}."""
        found = {}
        for port in self._client.list(context, 'ports', admin=True, network_id=net_ids,
                                      device_owner='network:dhcp'):
            for entry in port.get('fixed_ips') or ():
                found.setdefault(entry['subnet_id'], entry['ip_address'])
        return found

    def _floating_ips(self, context, port_ids):
        """{(port id, fixed address): [floating addresses]}."""
        found = {}
        for fip in self._client.list(context, 'floatingips', admin=True, port_id=port_ids):
            key = (fip.get('port_id'), fip.get('fixed_ip_address'))
            found.setdefault(key, []).append(fip['floating_ip_address'])
        return found

    # -- the model -----------------------------------------------------------

    def _subnets(self, port, subnets, dhcp, fips):
        out = {}
        for entry in port.get('fixed_ips') or ():
            neutron_subnet = subnets.get(entry['subnet_id'])
            if neutron_subnet is None:
                continue
            sub = out.get(neutron_subnet['id'])
            if sub is None:
                sub = out[neutron_subnet['id']] = self._subnet(neutron_subnet, dhcp)
            floating = fips.get((port['id'], entry['ip_address']), [])
            sub['ips'].append(model.fixed_ip(entry['ip_address'], floating_ips=floating))
        return list(out.values())

    @staticmethod
    def _subnet(neutron_subnet, dhcp):
        meta = {}
        if 'ipv6_address_mode' in neutron_subnet:
            meta['ipv6_address_mode'] = neutron_subnet['ipv6_address_mode']
        server = dhcp.get(neutron_subnet['id'])
        # OVN serves DHCP without a DHCP port; the metadata service needs an
        # address here, and upstream falls back to the gateway likewise.
        if server is None and neutron_subnet.get('enable_dhcp'):
            server = neutron_subnet.get('gateway_ip')
        if server is not None:
            meta['dhcp_server'] = server
        routes = [model.route(r['destination'], r['nexthop'])
                  for r in neutron_subnet.get('host_routes') or ()]
        return model.subnet(neutron_subnet['cidr'],
                            dns=neutron_subnet.get('dns_nameservers') or (),
                            gateway=model.ip(neutron_subnet.get('gateway_ip'), 'gateway'),
                            routes=routes, version=neutron_subnet.get('ip_version'), **meta)

    def _network(self, port, net, subnets):
        vif_type = port.get('binding:vif_type')
        details = port.get('binding:vif_details') or {}
        bridge = ovs_interfaceid = None
        if vif_type in _OVS_TYPES or (vif_type == model.VIF_TYPE_VHOSTUSER and details.get(
                model.VIF_DETAILS_VHOSTUSER_OVS_PLUG)):
            bridge = details.get(model.VIF_DETAILS_BRIDGE_NAME, self._conf.neutron.ovs_bridge)
            ovs_interfaceid = port['id']
        if bridge is not None:
            bridge = bridge[:model.NIC_NAME_LEN]
        if net is None:
            LOG.warning('Network %s of port %s is not visible; using the port project',
                        port['network_id'], port['id'])
            net = {'id': port['network_id'], 'tenant_id': port.get('tenant_id')}
        physnet, tunneled = net_lookups.physnet_tunneled(net)
        return model.network(id=port['network_id'], bridge=bridge, label=net.get('name'),
                             subnets=subnets, injected=False,
                             tenant_id=net.get('tenant_id'), mtu=net.get('mtu'),
                             physical_network=physnet, tunneled=tunneled), ovs_interfaceid

    def _vif(self, port, net, subnets, dhcp, fips, preserve, tag):
        network, ovs_interfaceid = self._network(
            port, net, self._subnets(port, subnets, dhcp, fips))
        # An administratively down port never goes ACTIVE: nothing to wait for.
        active = port.get('status') == 'ACTIVE' or port.get('admin_state_up') is False
        meta = {'tag': tag} if tag else {}
        return model.vif(port['id'], address=port.get('mac_address'), network=network,
                         type=port.get('binding:vif_type'),
                         details=port.get('binding:vif_details'),
                         devname=model.devname(port['id']), ovs_interfaceid=ovs_interfaceid,
                         active=active,
                         vnic_type=port.get('binding:vnic_type', model.VNIC_TYPE_NORMAL),
                         profile=port.get('binding:profile'),
                         preserve_on_delete=preserve, delegate_create=True, **meta)
