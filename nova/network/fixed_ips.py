"""addFixedIp/removeFixedIp (microversions below 2.44): one more or one less address on a port."""

from nova import exception
from nova.network import networks as net_lookups


class NeutronFixedIPs:
    """Edits of a server's ports' fixed_ips with the caller's token."""

    def __init__(self, client, info):
        self._client = client
        self._info = info

    def _ports(self, context, instance, **filters):
        zone = net_lookups.instance_field(instance, 'availability_zone')
        return self._client.instance_ports(
            context, instance, admin=False,
            device_owner='compute:%s' % zone if zone else None, **filters)

    def add_fixed_ip_to_instance(self, context, instance, network_id):
        """A new address from ``network_id`` on the server's port there; the
        fresh network info. NetworkNotFoundForInstance when it has none."""
        subnets = self._client.list(context, 'subnets', network_id=network_id)
        uuid = net_lookups.instance_field(instance, 'uuid')
        for port in self._ports(context, instance, network_id=network_id):
            for subnet in subnets:
                fixed = list(port.get('fixed_ips') or ()) + [{'subnet_id': subnet['id']}]
                try:
                    self._client.update_port(context, port['id'], {'fixed_ips': fixed},
                                             admin=False)
                except exception.Invalid:
                    continue   # that subnet is full or refuses: try the next
                return self._info.build(context, instance)
        raise exception.NetworkNotFoundForInstance(instance_id=uuid)

    def remove_fixed_ip_from_instance(self, context, instance, address):
        """Drop ``address`` from the server's port holding it; the fresh network info."""
        for port in self._ports(context, instance, fixed_ips='ip_address=%s' % address):
            fixed = [f for f in port.get('fixed_ips') or () if f['ip_address'] != address]
            self._client.update_port(context, port['id'], {'fixed_ips': fixed}, admin=False)
            return self._info.build(context, instance)
        raise exception.FixedIpNotFoundForSpecificInstance(
            instance_uuid=net_lookups.instance_field(instance, 'uuid'), ip=address)
