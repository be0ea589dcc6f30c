"""openstack quota/limits commands against the all-in-one's clouds.yaml (noauth2)."""

import json
import os
import subprocess
import sys

import pytest

from nova.cmd import aio as aio_cmd
from nova.tests.functional import fixtures

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('quota-cli')
    running = fixtures.RunningAio(tmp / 'state', extra={
        ('quota', 'instances'): 10, ('quota', 'cores'): 20, ('quota', 'ram'): 51200})
    urls = running.aio.urls
    clouds = aio_cmd.write_clouds_yaml(running.conf, urls['compute'], urls['image'],
                                       urls['volume'], urls['identity'])
    running.env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    running.env['OS_CLIENT_CONFIG_FILE'] = clouds
    running.disk = fixtures.tiny_disk(tmp / 'disk.img')
    yield running
    running.stop()


def osc(cloud, who, *args, check=True):
    proc = subprocess.run([OPENSTACK, '--os-cloud', who, *args], env=cloud.env,
                          capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def osc_json(cloud, who, *args):
    return json.loads(osc(cloud, who, *args, '-f', 'json').stdout)


def _quota(cloud, who, *args):
    rows = osc_json(cloud, who, 'quota', 'show', *args)
    return {row['Resource']: row for row in rows}


def test_quota_show_set_and_limits(cloud):
    shown = _quota(cloud, 'nova-aio')
    assert shown['instances']['Limit'] == 10 and shown['server-groups']['Limit'] == 10
    assert shown['volumes']['Limit'] == -1  # the embedded volume endpoint has no quotas
    # The embedded network endpoint is in the catalog: Neutron's defaults.
    assert shown['networks']['Limit'] == 100 and shown['ports']['Limit'] == 500
    # Only an administrator may set quotas.
    proc = osc(cloud, 'nova-aio', 'quota', 'set', '--instances', '1', 'notused', check=False)
    assert proc.returncode != 0 and 'os-quota-sets:update' in proc.stderr
    osc(cloud, 'nova-aio-admin', 'quota', 'set', '--instances', '1', 'notused')
    assert _quota(cloud, 'nova-aio-admin', 'notused')['instances']['Limit'] == 1
    osc(cloud, 'nova-aio', 'image', 'create', '--file', str(cloud.disk), '--disk-format',
        'raw', '--container-format', 'bare', 'img')
    osc(cloud, 'nova-aio', 'server', 'create', '--image', 'img', '--flavor', 'm1.tiny',
        '--nic', 'none', 'vm1')
    proc = osc(cloud, 'nova-aio', 'server', 'create', '--image', 'img', '--flavor',
               'm1.tiny', '--nic', 'none', 'vm2', check=False)
    assert proc.returncode != 0
    assert ('Quota exceeded for instances: Requested 1, but already used 1 of 1 instances'
            in proc.stderr)
    usage = _quota(cloud, 'nova-aio', '--usage', '--compute')
    assert (usage['instances']['Limit'], usage['instances']['In Use']) == (1, 1)
    limits = {row['Name']: row['Value']
              for row in osc_json(cloud, 'nova-aio', 'limits', 'show', '--absolute')}
    assert (limits['max_total_instances'], limits['total_instances_used']) == (1, 1)
    assert limits['total_ram_used'] == 512 and limits['total_volumes_used'] == 0
