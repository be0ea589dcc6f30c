"""The real openstack CLI and openstacksdk against a running cloud of this service.

Runs when NOVAEXT_FUNCTIONAL=1, with the cloud chosen the usual way
(OS_CLOUD + clouds.yaml, or OS_* variables). The cloud needs a flavor
(NOVAEXT_FLAVOR, default m1.tiny); the tests upload their own tiny image.
Every assertion reads the result back from the service, so an override that
does not reach the wire fails here.
"""

import json
import os
import subprocess
import sys
import time
import uuid

import openstack
import pytest

from novaextclient import sdk

pytestmark = pytest.mark.skipif(os.environ.get('NOVAEXT_FUNCTIONAL') != '1',
                                reason='set NOVAEXT_FUNCTIONAL=1 and point OS_CLOUD at a cloud')
OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')
FLAVOR = os.environ.get('NOVAEXT_FLAVOR', 'm1.tiny')


def cli(*args, check=True):
    proc = subprocess.run([OPENSTACK, *args], capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def cli_json(*args):
    return json.loads(cli(*args, '-f', 'json').stdout)


@pytest.fixture(scope='module')
def image(tmp_path_factory):
    disk = tmp_path_factory.mktemp('img') / 'disk.img'
    with open(disk, 'wb') as handle:
        handle.truncate(1024 * 1024)
    name = 'novaext-' + uuid.uuid4().hex[:8]
    created = cli_json('image', 'create', '--file', str(disk), '--disk-format', 'raw',
                       '--container-format', 'bare', '--property', 'hw_disk_bus=scsi',
                       '--property', 'hw_scsi_model=virtio-scsi', name)
    yield created
    cli('image', 'delete', created['id'], check=False)


@pytest.fixture
def names():
    made = []

    def name():
        made.append('novaext-' + uuid.uuid4().hex[:8])
        return made[-1]
    yield name
    for made_name in made:
        cli('server', 'delete', '--wait', made_name, check=False)


def test_create_show_list_rescue_through_the_cli(image, names):
    name = names()
    created = cli_json('server', 'create', '--image', image['id'], '--flavor', FLAVOR,
                       '--nic', 'none', '--wait',
                       '--image-prop-override', 'os_command_line=console=ttyS0 quiet',
                       '--image-prop-override', 'hw_disk_bus=virtio', name)
    assert created['status'] == 'ACTIVE'
    expected = {'os_command_line': 'console=ttyS0 quiet', 'hw_disk_bus': 'virtio'}
    assert created['image_props_override'] == expected
    shown = cli_json('server', 'show', name)
    assert shown['image_props_override'] == expected
    # Effective: the image's properties with the overrides on top.
    assert shown['image_properties']['hw_disk_bus'] == 'virtio'
    assert shown['image_properties']['hw_scsi_model'] == 'virtio-scsi'
    assert shown['image_properties']['os_command_line'] == 'console=ttyS0 quiet'
    rows = {r['ID']: r for r in cli_json('server', 'list', '--long')}
    assert rows[created['id']]['Image Props Override'] == expected
    cli('server', 'rescue', '--image', image['id'],
        '--image-prop-override', 'hw_rescue_bus=usb', name)
    _wait(name, 'RESCUE')
    cli('server', 'unrescue', name)
    _wait(name, 'ACTIVE')


def test_service_refusal_is_shown_and_nothing_is_created(image, names):
    name = names()
    proc = cli('server', 'create', '--image', image['id'], '--flavor', FLAVOR, '--nic',
               'none', '--image-prop-override', 'hw_disk_bus=bogus', name, check=False)
    assert proc.returncode != 0
    assert 'hw_disk_bus' in proc.stderr
    assert cli_json('server', 'list', '--name', name) == []


def test_old_pinned_version_sends_nothing(image, names):
    name = names()
    proc = cli('--os-compute-api-version', '2.100', 'server', 'create', '--image',
               image['id'], '--flavor', FLAVOR, '--nic', 'none',
               '--image-prop-override', 'hw_disk_bus=virtio', name, check=False)
    assert proc.returncode == 1
    assert 'requires compute API 2.105 or greater' in proc.stderr
    assert cli_json('server', 'list', '--name', name) == []


def test_sdk_create_and_rescue(image, names):
    conn = openstack.connect()
    flavor = conn.compute.find_flavor(FLAVOR, ignore_missing=False)
    server = sdk.create_server(conn.compute, name=names(), image_id=image['id'],
                               flavor_id=flavor.id, networks='none',
                               image_props_override={'hw_machine_type': 'pc'})
    conn.compute.wait_for_server(server, wait=300)
    got = sdk.get_server(conn.compute, server.id)
    assert got.image_props_override == {'hw_machine_type': 'pc'}
    assert got.effective_image_properties['hw_machine_type'] == 'pc'
    sdk.rescue_server(conn.compute, server.id, image=image['id'],
                      image_props_override={'hw_rescue_bus': 'usb'})
    conn.compute.wait_for_server(got, status='RESCUE', wait=300)
    conn.compute.unrescue_server(server.id)
    conn.compute.wait_for_server(got, status='ACTIVE', wait=300)


def _wait(name, status, timeout=300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = cli_json('server', 'show', name)
        if shown['status'] == status:
            return shown
        assert shown['status'] != 'ERROR', shown
        time.sleep(2)
    raise AssertionError('%s never reached %s' % (name, status))
