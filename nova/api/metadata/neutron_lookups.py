"""What the metadata API asks Neutron: the port behind a metadata provider, a server's groups."""

import logging

from nova import exception
from nova.api.metadata.requester import Refused

LOG = logging.getLogger(__name__)

# Networks per ports query: a provider may serve many, and each is one
# network_id filter in the query string.
NETWORKS_PER_QUERY = 10


class ProviderPorts:
    """(instance id, project id) of the one port at an address on a provider's networks.

    ``client`` is a NeutronClient (admin calls: the ``[neutron]`` service
    user). A provider (an X-Metadata-Provider, e.g. an edge load balancer)
    serves the networks whose subnets name it in advanced_service_providers;
    overlapping networks cannot share a provider, so the address is unique
    among them.
    """

    def __init__(self, client):
        self.client = client

    def __call__(self, provider, address):
        try:
            subnets = self.client.list(None, 'subnets', admin=True,
                                       advanced_service_providers=[provider],
                                       fields=['network_id'])
            networks = sorted({s['network_id'] for s in subnets})
            ports = []
            for start in range(0, len(networks), NETWORKS_PER_QUERY):
                ports += self.client.list(None, 'ports', admin=True,
                                          fixed_ips='ip_address=%s' % address,
                                          network_id=networks[start:start + NETWORKS_PER_QUERY],
                                          fields=['device_id', 'tenant_id', 'project_id'])
        except exception.NetworkServiceError as exc:
            raise Refused(503, 'The network service cannot say which port this is: %s'
                          % exc.format_message()) from None
        except exception.NovaException as exc:
            LOG.warning('Metadata provider %s: Neutron refused the port lookup: %s',
                        provider, exc.format_message())
            return None
        if len(ports) != 1:
            LOG.warning('Metadata provider %s serves %d ports with address %s', provider,
                        len(ports), address)
            return None
        port = ports[0]
        return port['device_id'], port.get('project_id') or port.get('tenant_id')


class SecurityGroupNames:
    """The names of the security groups on a server's ports, for EC2's security-groups."""

    def __init__(self, client):
        self.client = client

    def __call__(self, instance_id):
        try:
            ports = self.client.list(None, 'ports', admin=True, device_id=instance_id,
                                     fields=['security_groups'])
            ids = list(dict.fromkeys(g for p in ports for g in p.get('security_groups') or ()))
            groups = self.client.list(None, 'security-groups', admin=True, id=ids,
                                      fields=['id', 'name']) if ids else []
        except exception.NovaException as exc:
            # The rest of the metadata does not depend on it: served without.
            LOG.warning('Security groups of %s not known: %s', instance_id,
                        exc.format_message())
            return []
        names = {g['id']: g['name'] for g in groups}
        return [names[i] for i in ids if i in names]
