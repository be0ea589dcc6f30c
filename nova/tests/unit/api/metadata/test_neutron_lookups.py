"""The Neutron questions the metadata API asks, against a client answering as Neutron does.

The real Neutron of the test environment (ML2/OVN) has no
advanced_service_providers (a VMware NSX extension), so the provider
lookup is checked against Neutron's answer format here.
"""

import pytest

from nova import exception
from nova.api.metadata import neutron_lookups
from nova.api.metadata.requester import Refused


class Neutron:
    """``list(context, collection, admin, **filters)`` over canned resources."""

    def __init__(self, subnets=(), ports=(), groups=(), fail=None):
        self.data = {'subnets': list(subnets), 'ports': list(ports),
                     'security-groups': list(groups)}
        self.calls = []
        self.fail = fail

    def list(self, context, collection, admin=False, **filters):
        assert admin, 'the metadata API asks as the service'
        self.calls.append((collection, filters))
        if self.fail:
            raise self.fail
        fields = filters.pop('fields', None)
        out = []
        for item in self.data[collection]:
            if all(self._matches(item, k, v) for k, v in filters.items()):
                out.append({k: item[k] for k in fields if k in item} if fields else item)
        return out

    @staticmethod
    def _matches(item, key, value):
        if key == 'fixed_ips':
            address = value.split('=', 1)[1]
            return any(ip['ip_address'] == address for ip in item['fixed_ips'])
        if key == 'advanced_service_providers':
            return bool(set(value) & set(item.get(key, ())))
        return item.get(key) in (value if isinstance(value, list) else [value])


def port(device, project, address, network, groups=()):
    return {'device_id': device, 'tenant_id': project, 'project_id': project,
            'network_id': network, 'fixed_ips': [{'ip_address': address}],
            'security_groups': list(groups)}


def test_the_one_port_behind_a_provider():
    subnets = [{'network_id': 'net-%02d' % i, 'advanced_service_providers': ['edge-1']}
               for i in range(12)] + [{'network_id': 'other', 'advanced_service_providers': []}]
    neutron = Neutron(subnets, [port('vm-1', 'p1', '10.0.0.5', 'net-11'),
                                port('vm-2', 'p2', '10.0.0.5', 'other')])
    lookup = neutron_lookups.ProviderPorts(neutron)
    assert lookup('edge-1', '10.0.0.5') == ('vm-1', 'p1')
    # Twelve networks: two port queries of at most ten.
    assert [len(f['network_id']) for c, f in neutron.calls if c == 'ports'] == [10, 2]
    assert lookup('edge-1', '10.0.0.6') is None
    assert lookup('edge-2', '10.0.0.5') is None


def test_an_ambiguous_or_failing_lookup():
    subnets = [{'network_id': 'n', 'advanced_service_providers': ['edge-1']}]
    two = Neutron(subnets, [port('a', 'p', '10.0.0.5', 'n'), port('b', 'p', '10.0.0.5', 'n')])
    assert neutron_lookups.ProviderPorts(two)('edge-1', '10.0.0.5') is None
    down = Neutron(fail=exception.NetworkServiceError(reason='connection refused'))
    with pytest.raises(Refused) as err:
        neutron_lookups.ProviderPorts(down)('edge-1', '10.0.0.5')
    assert err.value.status == 503
    refused = Neutron(fail=exception.Invalid(reason='unknown filter'))
    assert neutron_lookups.ProviderPorts(refused)('edge-1', '10.0.0.5') is None


def test_security_group_names_of_a_server():
    neutron = Neutron(ports=[port('vm-1', 'p', '10.0.0.5', 'n', ['g1', 'g2']),
                             port('vm-1', 'p', '10.0.1.5', 'm', ['g2']),
                             port('vm-2', 'p', '10.0.0.6', 'n', ['g3'])],
                      groups=[{'id': 'g1', 'name': 'default'}, {'id': 'g2', 'name': 'web'},
                              {'id': 'g3', 'name': 'db'}])
    names = neutron_lookups.SecurityGroupNames(neutron)
    assert names('vm-1') == ['default', 'web']
    assert names('vm-9') == []
    down = Neutron(fail=exception.NetworkServiceError(reason='connection refused'))
    assert neutron_lookups.SecurityGroupNames(down)('vm-1') == []
