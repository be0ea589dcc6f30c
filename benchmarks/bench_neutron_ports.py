"""Benchmark nova.network against the real Neutron: validate, allocate+bind, refresh, delete."""

import argparse
import json
import statistics
import time
import uuid

from nova import context as nova_context
from nova.network import neutron as network_neutron
from nova.tests.functional import keystone
from nova.tests.functional import keystone_fixture as kf
from nova.tests.functional import test_neutron_client as t


def _summary(values):
    return {'median_ms': round(statistics.median(values) * 1000, 1),
            'min_ms': round(min(values) * 1000, 1), 'max_ms': round(max(values) * 1000, 1),
            'n': len(values)}


def _steps(api, ctx, inst):
    def allocate():
        inst['network_info'] = api.ports.allocate_for_instance(ctx, inst, None,
                                                               bind_host_id=t.HOST)
    return {'validate_networks': lambda: api.validation.validate_networks(ctx, None, 1),
            'allocate_for_instance (1 NIC)': allocate,
            'info.build': lambda: api.info.build(ctx, inst),
            'deallocate_for_instance': lambda: api.ports.deallocate_for_instance(ctx, inst)}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--runs', type=int, default=7)
    args = parser.parse_args()
    keystone.require_keystone = lambda: None
    ks, admin = kf.Keystone(), t.Admin()
    try:
        project = ks.project('netbench')
        user = ks.user('bench', project, ['member', 'reader'])
        token, catalog = t._catalog(user, project)
        ctx = nova_context.RequestContext(user_id=user['id'], project_id=project['id'],
                                          auth_token=token, service_catalog=catalog,
                                          roles=['member', 'reader'], overwrite=False)
        net = admin.make('networks', {'name': 'bench', 'tenant_id': project['id']})
        admin.make('subnets', {'network_id': net['id'], 'ip_version': 4,
                               'cidr': '10.212.0.0/24', 'tenant_id': project['id']})
        api = network_neutron.NetworkAPI(t.make_conf())
        times = {'validate_networks': [], 'allocate_for_instance (1 NIC)': [],
                 'info.build': [], 'deallocate_for_instance': []}
        for _ in range(args.runs):
            inst = {'uuid': str(uuid.uuid4()), 'project_id': project['id'],
                    'hostname': 'bench', 'availability_zone': 'nova', 'network_info': []}
            steps = _steps(api, ctx, inst)
            for name in times:
                started = time.perf_counter()
                steps[name]()
                times[name].append(time.perf_counter() - started)
        print(json.dumps({name: _summary(v) for name, v in times.items()}, indent=2))
    finally:
        try:
            admin.cleanup()
            for group in admin.call('GET', '/security-groups?tenant_id=%s' % project['id'])[
                    'security_groups']:
                admin.call('DELETE', '/security-groups/%s' % group['id'], ok=(204, 404, 409))
        finally:
            ks.cleanup()


if __name__ == '__main__':
    main()
