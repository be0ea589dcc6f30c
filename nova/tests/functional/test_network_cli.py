"""The openstack CLI's network commands against the all-in-one's network endpoint (clouds.yaml)."""

import json
import os
import subprocess
import sys

import pytest
import yaml

from nova.cmd import aio as aio_cmd
from nova.tests.functional import fixtures

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('network-cli')
    running = fixtures.RunningAio(tmp / 'state')
    urls = running.aio.urls
    running.clouds = aio_cmd.write_clouds_yaml(running.conf, urls['compute'], urls['image'],
                                               urls['volume'], network_url=urls['network'])
    running.env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    running.env['OS_CLIENT_CONFIG_FILE'] = running.clouds
    running.disk = fixtures.tiny_disk(tmp / 'disk.img')
    yield running
    running.stop()


def osc(cloud, *args, who='nova-aio', check=True):
    proc = subprocess.run([OPENSTACK, '--os-cloud', who, *args], env=cloud.env,
                          capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def osc_json(cloud, *args, who='nova-aio'):
    return json.loads(osc(cloud, *args, '-f', 'json', who=who).stdout)


def test_catalog_and_clouds_yaml_name_the_network_endpoint(cloud):
    with open(cloud.clouds) as handle:
        clouds = yaml.safe_load(handle)['clouds']
    for name in ('nova-aio', 'nova-aio-admin'):
        assert clouds[name]['network_endpoint_override'] == cloud.network_url
    status, _h, body = cloud.request(
        'POST', '/v3/auth/tokens', url=cloud.aio.urls['identity'],
        body={'auth': {'identity': {'methods': ['password'], 'password': {
            'user': {'name': 'u', 'password': 'x', 'domain': {'id': 'default'}}}}}})
    assert status == 201
    network = [s for s in body['token']['catalog'] if s['type'] == 'network']
    assert network[0]['endpoints'][0]['url'] == cloud.network_url


def test_network_subnet_and_port_commands(cloud):
    nets = osc_json(cloud, 'network', 'list')
    assert [n['Name'] for n in nets] == ['private']
    shown = osc_json(cloud, 'network', 'show', 'private')
    assert shown['shared'] is True and shown['project_id'] == 'admin'
    subnet = osc_json(cloud, 'subnet', 'show', shown['subnets'][0])
    assert subnet['cidr'] == '10.78.0.0/24' and subnet['gateway_ip'] == '10.78.0.1'
    osc_json(cloud, 'network', 'create', 'mine')
    osc_json(cloud, 'subnet', 'create', '--network', 'mine', '--subnet-range',
             '192.168.70.0/24', '--dns-nameserver', '192.168.70.53', 'mine-sub')
    port = osc_json(cloud, 'port', 'create', '--network', 'mine', 'mine-port')
    assert port['fixed_ips'][0]['ip_address'].startswith('192.168.70.')
    assert osc(cloud, 'network', 'delete', 'mine', check=False).returncode != 0
    osc(cloud, 'port', 'delete', 'mine-port')
    osc(cloud, 'subnet', 'delete', 'mine-sub')
    osc(cloud, 'network', 'delete', 'mine')
    refused = osc(cloud, 'network', 'create', '--share', 'everyones', check=False)
    assert 'create_network:shared) is disallowed by policy' in refused.stderr
    assert osc_json(cloud, 'network', 'create', '--share', 'everyones',
                    who='nova-aio-admin')['shared'] is True


def test_port_list_by_server(cloud):
    osc(cloud, 'image', 'create', '--file', cloud.disk, '--disk-format', 'raw',
        '--container-format', 'bare', 'net-img')
    server = osc_json(cloud, 'server', 'create', '--image', 'net-img', '--flavor', 'm1.tiny',
                      '--nic', 'none', '--wait', 'net-vm')
    port = osc_json(cloud, 'port', 'create', '--network', 'private', '--device', server['id'],
                    '--device-owner', 'compute:nova', 'vm-port')
    listed = osc_json(cloud, 'port', 'list', '--server', 'net-vm')
    assert [p['ID'] for p in listed] == [port['id']]
    assert listed[0]['Fixed IP Addresses'][0]['ip_address'] == \
        port['fixed_ips'][0]['ip_address']
    osc(cloud, 'port', 'delete', 'vm-port')
    osc(cloud, 'server', 'delete', '--wait', 'net-vm')


def test_security_group_commands(cloud):
    osc_json(cloud, 'security', 'group', 'create', 'web')
    rule = osc_json(cloud, 'security', 'group', 'rule', 'create', '--protocol', 'tcp',
                    '--dst-port', '22', 'web')
    assert rule['port_range_min'] == rule['port_range_max'] == 22
    assert rule['remote_ip_prefix'] == '0.0.0.0/0'
    rules = osc_json(cloud, 'security', 'group', 'rule', 'list', 'web')
    assert rule['id'] in [r['ID'] for r in rules]
    bad = osc(cloud, 'security', 'group', 'rule', 'create', '--protocol', 'foo', 'web',
              check=False)
    assert bad.returncode != 0
    assert 'Security group rule protocol foo not supported' in bad.stderr
    groups = osc_json(cloud, 'security', 'group', 'list')
    assert sorted(g['Name'] for g in groups) == ['default', 'web']
