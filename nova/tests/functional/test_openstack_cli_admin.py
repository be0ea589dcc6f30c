"""The openstack CLI's keypair, flavor, service, hypervisor, zone and aggregate commands."""

import pytest

from nova.tests.functional.test_openstack_cli import cloud, osc, osc_json  # noqa: F401


@pytest.fixture(scope='module')
def admin(cloud):  # noqa: F811
    """The administrator, through the 'nova-aio-admin' entry of the all-in-one's clouds.yaml."""
    from nova.cmd import aio
    urls = cloud.aio.urls
    path = aio.write_clouds_yaml(cloud.conf, urls['compute'], urls['image'], urls['volume'])
    env = {k: v for k, v in cloud.env.items() if not k.startswith('OS_')}
    env.update(OS_CLIENT_CONFIG_FILE=path, OS_CLOUD='nova-aio-admin')
    return type('Admin', (), {'env': env})()


def test_keypair_create_show_delete(cloud):  # noqa: F811
    created = osc(cloud, 'keypair', 'create', 'clikey').stdout
    assert 'PRIVATE KEY' in created
    shown = osc_json(cloud, 'keypair', 'show', 'clikey')
    assert shown['name'] == 'clikey' and shown['type'] == 'ssh'
    assert [k['Name'] for k in osc_json(cloud, 'keypair', 'list')] == ['clikey']
    osc(cloud, 'keypair', 'delete', 'clikey')
    assert osc_json(cloud, 'keypair', 'list') == []


def test_flavor_show_with_properties_and_access(admin):
    osc(admin, 'flavor', 'create', '--ram', '64', '--vcpus', '1', '--disk', '0',
        '--private', '--property', 'hw:numa_nodes=1', 'cli-private')
    shown = osc_json(admin, 'flavor', 'show', 'cli-private')
    assert shown['properties'] == {'hw:numa_nodes': '1'}
    assert shown['os-flavor-access:is_public'] is False
    # (flavor set --project resolves the project in Keystone, which noauth2 lacks.)
    osc(admin, 'flavor', 'set', '--property', 'hw:cpu_policy=shared', 'cli-private')
    shown = osc_json(admin, 'flavor', 'show', 'cli-private')
    assert shown['properties'] == {'hw:numa_nodes': '1', 'hw:cpu_policy': 'shared'}
    assert osc_json(admin, 'flavor', 'show', 'm1.tiny')['name'] == 'm1.tiny'


def test_compute_service_and_hypervisor_list(admin):
    services = osc_json(admin, 'compute', 'service', 'list')
    assert {s['Binary'] for s in services} >= {'nova-compute', 'nova-conductor'}
    assert all(s['State'] == 'up' for s in services)
    hypervisors = osc_json(admin, 'hypervisor', 'list')
    assert len(hypervisors) == 1 and hypervisors[0]['State'] == 'up'


def test_availability_zone_list_and_aggregate_create(admin):
    # As upstream, the admin's (detailed) list shows the services' internal zone too.
    zones = osc_json(admin, 'availability', 'zone', 'list', '--compute')
    assert {z['Zone Name'] for z in zones} == {'nova', 'internal'}
    agg = osc_json(admin, 'aggregate', 'create', '--zone', 'cli-az', 'cli-agg')
    assert agg['name'] == 'cli-agg' and agg['availability_zone'] == 'cli-az'
    osc(admin, 'aggregate', 'add', 'host', 'cli-agg', 'testhost')
    zones = osc_json(admin, 'availability', 'zone', 'list', '--compute')
    assert {z['Zone Name'] for z in zones} == {'cli-az', 'internal'}
    osc(admin, 'aggregate', 'remove', 'host', 'cli-agg', 'testhost')
    osc(admin, 'aggregate', 'delete', 'cli-agg')
