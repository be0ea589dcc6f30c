"""Real OpenStack clients (openstacksdk, the openstack CLI) against the embedded image endpoint."""

import hashlib
import json
import os
import subprocess
import sys

import openstack
import pytest
import requests

from nova.tests.unit.embedded import image_server

KERNEL_ID = '8a1f3ffb-1f1a-4a4e-9d5b-0d0f3e0f3a11'
OPENSTACK_CLI = os.path.join(os.path.dirname(sys.executable), 'openstack')


@pytest.fixture
def server(tmp_path):
    # The clients' 'none' auth sends the token 'notused': the noauth
    # project those images belong to, so the helpers act as it too.
    srv = image_server.ImageServer(str(tmp_path / 'images'),
                                   default_token='notused')
    yield srv
    srv.stop()


@pytest.fixture
def conn(server):
    connection = openstack.connect(
        auth_type='none', image_endpoint_override=server.url,
        load_yaml_config=False, load_envvars=False)
    yield connection
    connection.close()


@pytest.fixture
def image_file(tmp_path):
    path = tmp_path / 'disk.raw'
    path.write_bytes(os.urandom(64 * 1024 + 3))
    return str(path)


def test_sdk_create_upload_show_download_delete(conn, server, image_file,
                                                tmp_path):
    image = conn.image.create_image(
        'sdk-image', filename=image_file, disk_format='raw',
        container_format='bare', kernel_id=KERNEL_ID, validate_checksum=True)
    fetched = conn.image.get_image(image.id)
    data = open(image_file, 'rb').read()
    assert fetched.status == 'active'
    assert fetched.size == len(data)
    assert fetched.checksum == hashlib.md5(data).hexdigest()
    assert fetched.hash_algo == 'sha512'
    assert fetched.hash_value == hashlib.sha512(data).hexdigest()
    assert fetched.kernel_id == KERNEL_ID
    # The SDK verifies os_hash_value itself while downloading.
    out = str(tmp_path / 'out')
    conn.image.download_image(fetched, output=out)
    assert open(out, 'rb').read() == data
    assert conn.image.find_image('sdk-image').id == image.id
    conn.image.delete_image(image, ignore_missing=False)
    assert conn.image.find_image('sdk-image') is None
    assert server.data_files() == []


def test_sdk_update_uses_json_patch(conn, server):
    image = conn.image.create_image('patch-me', disk_format='raw',
                                    container_format='bare',
                                    allow_duplicates=True)
    updated = conn.image.update_image(image, name='patched', hw_foo='bar',
                                      is_protected=True)
    assert updated.name == 'patched'
    assert updated.is_protected is True
    shown = server.show(image.id)
    assert (shown['name'], shown['hw_foo'], shown['protected']) == (
        'patched', 'bar', True)
    patches = [h for h in server.recorder.headers if h['method'] == 'PATCH']
    assert [h['CONTENT_TYPE'] for h in patches] == [
        'application/openstack-images-v2.1-json-patch']


def test_sdk_list_follows_pagination(conn, server):
    ids = [server.create(name='page%d' % i)['id'] for i in range(5)]
    listed = [i.id for i in conn.image.images(limit=2)]
    assert listed == list(reversed(ids))
    pages = [h for h in server.recorder.headers
             if h['method'] == 'GET' and h['path'] == '/v2/images']
    # Page two is fetched through the server's 'next' link.
    assert pages[1]['QUERY_STRING'] == 'limit=2&marker=' + ids[3]
    assert [i.name for i in conn.image.images(name='page3')] == ['page3']


def test_sdk_missing_image(conn):
    with pytest.raises(openstack.exceptions.NotFoundException):
        conn.image.get_image('5d3b1c8e-4f39-4a51-9d34-7e9c1b2a0f00')


def _cli(server, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env.update(
        OS_AUTH_TYPE='none', OS_IMAGE_ENDPOINT_OVERRIDE=server.url,
        # OSC builds an identity proxy even for image commands; with no
        # Keystone it only needs some URL that serves a version document.
        OS_IDENTITY_ENDPOINT_OVERRIDE=server.url)
    result = subprocess.run([OPENSTACK_CLI, *args], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_openstack_cli_image_lifecycle(server, image_file):
    created = json.loads(_cli(
        server, 'image', 'create', '--file', image_file, '--disk-format',
        'raw', '--container-format', 'bare', '--property',
        'kernel_id=' + KERNEL_ID, 'cli-image', '-f', 'json'))
    assert created['status'] == 'active'
    assert created['properties']['kernel_id'] == KERNEL_ID
    listed = json.loads(_cli(server, 'image', 'list', '-f', 'json'))
    assert [(i['Name'], i['Status']) for i in listed] == [
        ('cli-image', 'active')]
    _cli(server, 'image', 'set', '--property', 'hw_rng_model=virtio',
         '--name', 'cli-renamed', 'cli-image')
    shown = json.loads(_cli(server, 'image', 'show', 'cli-renamed',
                            '-f', 'json'))
    assert shown['properties']['hw_rng_model'] == 'virtio'
    _cli(server, 'image', 'delete', 'cli-renamed')
    assert requests.get(server.url + '/v2/images').json()['images'] == []
