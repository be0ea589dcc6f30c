"""Floating IPs in Neutron for the proxy APIs (os-floating-ips, pools, add/removeFloatingIp).

Floating IPs are answered as Neutron's ``floatingip`` dicts plus
``network_details`` (the pool's network) and ``port_details`` (its port, or
None), which is what os-floating-ips renders, as upstream.
"""

import logging

from oslo_utils import uuidutils

from nova import exception
from nova.network import networks as net_lookups

LOG = logging.getLogger(__name__)


def to_nova_view(fip):
    """os-floating-ips' ``floating_ip`` object of a floating IP with details."""
    port = fip.get('port_details') or {}
    network = fip.get('network_details') or {}
    return {'id': fip['id'], 'ip': fip['floating_ip_address'],
            'pool': network.get('name') or network.get('id') or fip.get('floating_network_id'),
            'fixed_ip': fip.get('fixed_ip_address'),
            'instance_id': port.get('device_id') or None}


class NeutronFloatingIPs:
    """Floating IP calls with the caller's token."""

    def __init__(self, conf, client, extensions):
        self._conf = conf
        self._client = client
        self._extensions = extensions

    def _with_details(self, context, fips):
        net_ids = list(dict.fromkeys(f['floating_network_id'] for f in fips))
        nets = {n['id']: n for n in (self._client.list(context, 'networks', id=net_ids)
                                     if net_ids else ())}
        has_details = self._extensions.has(context, self._extensions.FIP_PORT_DETAILS)
        port_ids = [f['port_id'] for f in fips if f.get('port_id')]
        ports = {}
        if port_ids and not has_details:
            ports = {p['id']: p for p in self._client.list(context, 'ports', id=port_ids)}
        for fip in fips:
            fip['network_details'] = nets.get(fip['floating_network_id'],
                                              {'id': fip['floating_network_id'], 'name': None})
            if not has_details or 'port_details' not in fip:
                fip['port_details'] = ports.get(fip.get('port_id'))
        return fips

    def get(self, context, fip_id):
        fip = self._client.show(context, 'floatingips', 'floatingip', fip_id,
                                not_found=lambda: exception.FloatingIpNotFound(id=fip_id))
        return self._with_details(context, [fip])[0]

    def get_by_address(self, context, address):
        found = self._client.list(context, 'floatingips', floating_ip_address=address)
        if not found:
            raise exception.FloatingIpNotFoundForAddress(address=address)
        if len(found) > 1:
            raise exception.FloatingIpMultipleFoundForAddress(address=address)
        return self._with_details(context, found)[0]

    def list(self, context, project_id=None):
        """The project's floating IPs (the caller's by default)."""
        fips = self._client.list(context, 'floatingips',
                                 tenant_id=project_id or context.project_id)
        return self._with_details(context, fips)

    def pools(self, context):
        """Names (or ids) of the external networks floating IPs come from."""
        return [n.get('name') or n['id']
                for n in self._client.list(context, 'networks', **{'router:external': True})]

    def _pool_id(self, context, name_or_id):
        key = 'id' if uuidutils.is_uuid_like(name_or_id) else 'name'
        nets = self._client.list(context, 'networks', fields='id',
                                 **{'router:external': True, key: name_or_id})
        if not nets:
            raise exception.FloatingIpPoolNotFound()
        if len(nets) > 1:
            raise exception.NovaException(
                "Multiple floating IP pools matches found for name '%s'" % name_or_id)
        return nets[0]['id']

    def allocate(self, context, pool=None):
        """A new floating IP from ``pool`` ([neutron] default_floating_pool by
        default), with details."""
        pool_id = self._pool_id(context, pool or self._conf.neutron.default_floating_pool)
        fip = self._client.call(
            context, 'POST', '/floatingips',
            json={'floatingip': {'floating_network_id': pool_id,
                                 'tenant_id': context.project_id}},
            errors={'IpAddressGenerationFailure': lambda m: exception.NoMoreFloatingIps(m),
                    'ExternalIpAddressExhausted': lambda m: exception.NoMoreFloatingIps(m),
                    'OverQuota': lambda m: exception.FloatingIpLimitExceeded(m),
                    400: lambda m: exception.FloatingIpBadRequest(m)})['floatingip']
        return self._with_details(context, [fip])[0]

    def release(self, context, fip_id):
        self._client.call(context, 'DELETE', self._client.path('floatingips', fip_id),
                          errors={404: lambda _m: exception.FloatingIpNotFound(id=fip_id)})

    def associate(self, context, instance, floating_address, fixed_address):
        """Point the floating IP at the server's port holding ``fixed_address``.

        Answers the device id of the port it was on before (another server
        whose cache then wants a refresh), or None.
        """
        zone = net_lookups.instance_field(instance, 'availability_zone')
        ports = self._client.list(context, 'ports',
                                  device_id=net_lookups.instance_field(instance, 'uuid'),
                                  device_owner='compute:%s' % zone if zone else None)
        port_id = next((p['id'] for p in ports for ip in p.get('fixed_ips') or ()
                        if ip['ip_address'] == fixed_address), None)
        if port_id is None:
            raise exception.FixedIpNotFoundForAddress(address=fixed_address)
        fip = self.get_by_address(context, floating_address)
        self._client.call(
            context, 'PUT', self._client.path('floatingips', fip['id']),
            json={'floatingip': {'port_id': port_id, 'fixed_ip_address': fixed_address}},
            errors={409: lambda m: exception.FloatingIpAssociateFailed(m),
                    400: lambda m: exception.FloatingIpAssociateFailed(m)})
        previous = fip.get('port_details') or {}
        if fip.get('port_id') and fip['port_id'] != port_id:
            return previous.get('device_id') or None
        return None

    def disassociate(self, context, floating_address):
        fip = self.get_by_address(context, floating_address)
        if not fip.get('port_id'):
            raise exception.FloatingIpNotAssociated(address=floating_address)
        self._client.call(context, 'PUT', self._client.path('floatingips', fip['id']),
                          json={'floatingip': {'port_id': None}})
        return fip
