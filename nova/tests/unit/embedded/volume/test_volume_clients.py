"""Real OpenStack clients (openstacksdk, the openstack CLI) against the embedded volume API."""

import json
import os
import subprocess
import sys

import openstack
import pytest
from openstack import exceptions as sdk_exc

from nova.tests.unit.embedded import image_server
from nova.tests.unit.embedded.volume import volume_server as vs

OPENSTACK_CLI = os.path.join(os.path.dirname(sys.executable), 'openstack')
CONNECTOR = {'host': 'compute-1', 'initiator': 'iqn.sdk',
             'platform': 'x86_64', 'os_type': 'linux',
             'mountpoint': '/dev/vdb'}


@pytest.fixture
def server(tmp_path):
    images = vs.ImageFetcher()
    raw = vs.make_raw_image(str(tmp_path / 'tiny.raw'))
    images.add(vs.IMAGE_ID, raw, vs.glance_image(vs.IMAGE_ID, raw))
    srv = vs.VolumeServer(str(tmp_path / 'volumes'), image_fetcher=images)
    yield srv
    srv.stop()


@pytest.fixture
def conn(server):
    connection = openstack.connect(
        auth_type='none',
        block_storage_endpoint_override=server.url + '/v3/notused',
        load_yaml_config=False, load_envvars=False)
    yield connection
    connection.close()


def test_sdk_volume_attachment_life_cycle(conn, server):
    bs = conn.block_storage
    volume = bs.create_volume(size=1, name='sdk-vol', image_id=vs.IMAGE_ID)
    volume = bs.wait_for_status(volume, 'available', wait=30)
    assert volume.is_bootable is True
    # keystoneauth's 'none' plugin sends the token 'notused': under noauth2
    # that is user and project 'notused', as the all-in-one's clouds.yaml says.
    assert volume.project_id == 'notused'
    assert volume.volume_image_metadata['image_id'] == vs.IMAGE_ID
    assert bs.find_volume('sdk-vol', ignore_missing=False).id == volume.id

    attachment = bs.create_attachment(volume, instance=vs.INSTANCE_1,
                                      connector=CONNECTOR)
    assert attachment.status == 'attaching'
    data = attachment.connection_info['data']
    assert data['device_path'] == server.volume_path(volume.id)
    assert bs.get_volume(volume).status == 'attaching'
    bs.complete_attachment(attachment)
    volume = bs.get_volume(volume)
    assert volume.status == 'in-use'
    assert volume.attachments[0]['attachment_id'] == attachment.id
    assert [a.id for a in bs.attachments()] == [attachment.id]
    assert bs.get_attachment(attachment.id).status == 'attached'
    with pytest.raises(sdk_exc.BadRequestException):
        bs.delete_volume(volume, ignore_missing=False)

    bs.delete_attachment(attachment, ignore_missing=False)
    assert bs.get_volume(volume).status == 'available'
    bs.delete_volume(volume, ignore_missing=False)
    with pytest.raises(sdk_exc.NotFoundException):
        bs.get_volume(volume.id)
    assert not os.path.exists(server.volume_path(volume.id))


def test_sdk_snapshot_and_volume_from_it(conn, server):
    bs = conn.block_storage
    volume = bs.wait_for_status(bs.create_volume(size=1, name='src'),
                                'available', wait=30)
    snapshot = bs.create_snapshot(volume_id=volume.id, name='snap')
    snapshot = bs.wait_for_status(snapshot, 'available', wait=30)
    assert snapshot.size == 1
    assert bs.get_snapshot(snapshot.id).volume_id == volume.id
    copy = bs.wait_for_status(
        bs.create_volume(snapshot_id=snapshot.id, size=2, name='copy'),
        'available', wait=30)
    assert copy.size == 2
    assert copy.snapshot_id == snapshot.id
    assert vs.qemu_info(server.volume_path(copy.id))['virtual-size'] == (
        2 * vs.GiB)
    bs.extend_volume(copy, 3)
    assert bs.get_volume(copy).size == 3
    bs.delete_snapshot(snapshot, ignore_missing=False)
    bs.delete_volume(copy, ignore_missing=False)
    bs.delete_volume(volume, ignore_missing=False)
    assert bs.volumes() is not None and list(bs.volumes()) == []


@pytest.fixture
def images(tmp_path):
    srv = image_server.ImageServer(str(tmp_path / 'images'))
    yield srv
    srv.stop()


def _cli(server, images, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env.update(
        OS_AUTH_TYPE='none',
        OS_VOLUME_API_VERSION='3',
        OS_BLOCK_STORAGE_API_VERSION='3',
        OS_BLOCK_STORAGE_ENDPOINT_OVERRIDE=server.url + '/v3/notused',
        # OSC builds image and identity proxies even for volume commands;
        # they are never called, but discovery needs a version document
        # of the right major version (2 for images, 3 for identity).
        OS_IMAGE_ENDPOINT_OVERRIDE=images.url,
        OS_IDENTITY_ENDPOINT_OVERRIDE=server.url)
    result = subprocess.run([OPENSTACK_CLI, *args], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_openstack_cli_volume_commands(server, images):
    created = json.loads(_cli(server, images, 'volume', 'create', '--size', '1',
                              'cli-vol', '-f', 'json'))
    assert created['name'] == 'cli-vol'
    listed = json.loads(_cli(server, images, 'volume', 'list', '-f', 'json'))
    assert [(v['Name'], v['Status']) for v in listed] == [
        ('cli-vol', 'available')]
    shown = json.loads(_cli(server, images, 'volume', 'show', 'cli-vol', '-f',
                            'json'))
    assert shown['size'] == 1
    _cli(server, images, 'volume', 'delete', 'cli-vol')
    assert json.loads(_cli(server, images, 'volume', 'list', '-f', 'json')) == []


def test_openstack_cli_multiattach_type_as_devstack_makes_it(server, images):
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    # The admin token plugin sends 'admin:admin': the all-in-one's administrator.
    env.update(OS_AUTH_TYPE='admin_token', OS_TOKEN='admin:admin',
               OS_ENDPOINT=server.url + '/v3/admin', OS_VOLUME_API_VERSION='3',
               OS_BLOCK_STORAGE_API_VERSION='3',
               OS_BLOCK_STORAGE_ENDPOINT_OVERRIDE=server.url + '/v3/admin',
               OS_IMAGE_ENDPOINT_OVERRIDE=images.url,
               OS_IDENTITY_ENDPOINT_OVERRIDE=server.url)

    def cli(*args):
        result = subprocess.run([OPENSTACK_CLI, *args, '-f', 'json'], env=env,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout) if result.stdout.strip() else None

    vtype = cli('volume', 'type', 'create', '--property', 'multiattach=<is> True',
                'multiattach')
    assert vtype['name'] == 'multiattach'
    shown = cli('volume', 'type', 'show', 'multiattach')
    assert shown['properties'] == {'multiattach': '<is> True'}
    volume = cli('volume', 'create', '--size', '1', '--type', 'multiattach', 'shared')
    assert volume['multiattach'] is True and volume['type'] == 'multiattach'


def test_openstack_cli_lists_the_volume_extensions(server, images):
    listed = json.loads(_cli(server, images, 'extension', 'list', '--volume', '-f', 'json'))
    aliases = {row['Alias'] for row in listed}
    assert {'os-vol-image-meta', 'os-volume-actions', 'os-vol-tenant-attr'} <= aliases
    assert all(row['Name'] and row['Description'] for row in listed)
