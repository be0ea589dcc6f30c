"""The real openstack CLI against the all-in-one, as a user drives it."""

import json
import os
import subprocess
import sys

import pytest

from nova.tests.functional import fixtures

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('cli')
    running = fixtures.RunningAio(tmp)
    running.disk = fixtures.tiny_disk(tmp / 'disk.img')
    running.env = dict(os.environ, OS_AUTH_TYPE='none',
                       OS_COMPUTE_ENDPOINT_OVERRIDE=running.compute_url,
                       OS_IMAGE_ENDPOINT_OVERRIDE=running.image_url,
                       # OSC builds an identity client even with auth none;
                       # any endpoint with a version document satisfies it.
                       OS_IDENTITY_ENDPOINT_OVERRIDE=running.image_url,
                       OS_IDENTITY_API_VERSION='3')
    for key in ('OS_CLOUD', 'OS_CLIENT_CONFIG_FILE', 'OS_COMPUTE_API_VERSION'):
        running.env.pop(key, None)
    yield running
    running.stop()


def osc(cloud, *args, check=True):
    proc = subprocess.run([OPENSTACK, *args], env=cloud.env, capture_output=True, text=True,
                          timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def osc_json(cloud, *args):
    return json.loads(osc(cloud, *args, '-f', 'json').stdout)


def test_create_list_show_delete(cloud):
    # The stock client, nothing of ours installed; the override options are
    # tested with the client distribution that adds them (clients/).
    image = osc_json(cloud, 'image', 'create', '--file', cloud.disk, '--disk-format', 'raw',
                     '--container-format', 'bare', '--property', 'hw_disk_bus=scsi', 'cli-img')
    server = osc_json(cloud, 'server', 'create', '--image', 'cli-img', '--flavor', 'm1.tiny',
                      '--nic', 'none', '--wait', 'cli-vm')
    assert server['status'] == 'ACTIVE'
    row = cloud.db.instance_get(server['id'])
    assert row['image_props_override'] in (None, {})
    assert row['system_metadata']['image_hw_disk_bus'] == 'scsi'
    assert row['image_ref'] == image['id']
    listed = osc_json(cloud, 'server', 'list')
    assert [s['Name'] for s in listed] == ['cli-vm']
    shown = osc_json(cloud, 'server', 'show', 'cli-vm')
    assert shown['id'] == server['id']
    osc(cloud, 'server', 'delete', '--wait', 'cli-vm')
    assert osc_json(cloud, 'server', 'list') == []
