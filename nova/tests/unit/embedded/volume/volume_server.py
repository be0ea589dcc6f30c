"""Test helper: the embedded volume endpoint on a real HTTP server, and tiny images to use."""

import json
import os
import shutil
import subprocess

import requests

from nova import conf as nova_conf
from nova import exception, wsgi_server
from nova.api import auth
from nova.cmd import aio
from nova.embedded.volume import app

GiB = 1024 ** 3
IMAGE_ID = '5a6f1c9e-3f4b-4a51-9d7e-0c1b2a3d4e5f'
QCOW2_IMAGE_ID = '6b7a2d0f-4a5c-4b62-8e8f-1d2c3b4e5f60'
INSTANCE_1 = '8a1f3ffb-1f1a-4a4e-9d5b-0d0f3e0f3a11'
INSTANCE_2 = '0b5e2b0e-9c8e-4a51-a0a8-2b8d0b3c7e21'
LATEST = 'volume 3.70'


def qemu_info(path):
    out = subprocess.run(['qemu-img', 'info', '--output=json', '-U', path],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def read_guest_bytes(path, fmt, count, tmp_dir):
    """The first ``count`` bytes a guest would read from a disk file."""
    raw = os.path.join(tmp_dir, 'guest-view.raw')
    subprocess.run(['qemu-img', 'convert', '-U', '-f', fmt, '-O', 'raw',
                    path, raw], check=True)
    with open(raw, 'rb') as fp:
        data = fp.read(count)
    os.unlink(raw)
    return data


def make_raw_image(path, size=256 * 1024):
    """A raw disk whose bytes are recognisable after conversion."""
    pattern = b'nova-volume-test!'
    with open(path, 'wb') as fp:
        fp.write((pattern * (size // len(pattern) + 1))[:size])
    return path


def make_qcow2_image(path, size='64M', backing=None):
    args = ['qemu-img', 'create', '-q', '-f', 'qcow2']
    if backing:
        args += ['-b', backing, '-F', 'raw']
    subprocess.run(args + [path, size], check=True)
    return path


class ImageFetcher:
    """Stands in for the image service: image id -> (file, Glance dict)."""

    def __init__(self):
        self.images = {}
        self.calls = []
        self.contexts = []

    def add(self, image_id, path, image=None):
        self.images[image_id] = (path, image)

    def __call__(self, context, image_id, dest_path):
        self.calls.append(image_id)
        self.contexts.append(context)
        if image_id not in self.images:
            raise exception.ImageNotFound(image_id=image_id)
        path, image = self.images[image_id]
        shutil.copyfile(path, dest_path)
        return image


def glance_image(image_id, path, disk_format='raw', **properties):
    """A Glance v2 image dict as the image client returns it."""
    return dict({'id': image_id, 'name': 'tiny', 'status': 'active',
                 'disk_format': disk_format, 'container_format': 'bare',
                 'size': os.path.getsize(path), 'min_disk': 0, 'min_ram': 0,
                 'checksum': 'abc', 'visibility': 'public', 'tags': [],
                 'self': '/v2/images/' + image_id}, **properties)


class VolumeServer:
    """The embedded volume app served over HTTP on 127.0.0.1, behind the
    all-in-one's noauth2 wrapper (identity from ``user:project`` tokens)."""

    def __init__(self, data_dir, image_fetcher=None, volume_format='qcow2'):
        self.data_dir = data_dir
        self.app = app.make_app(data_dir, image_fetcher, volume_format)
        conf = nova_conf.new_config()
        conf.set_override('auth_strategy', 'noauth2', group='api')
        self.wsgi_app = auth.protect(self.app, conf, aio.VOLUME_PUBLIC_PATHS)
        self.server, self.thread, self.url = wsgi_server.serve_in_thread(
            self.wsgi_app)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)

    def files(self):
        """Every file under the data directory, relative to it."""
        found = []
        for root, _, names in os.walk(self.data_dir):
            found += [os.path.relpath(os.path.join(root, n), self.data_dir)
                      for n in names]
        return sorted(found)

    def volume_path(self, volume_id):
        return os.path.join(self.data_dir, 'volumes', 'volume-' + volume_id)

    def snapshot_path(self, snapshot_id):
        return os.path.join(self.data_dir, 'snapshots',
                            'snapshot-' + snapshot_id)


class Api:
    """Raw HTTP calls as one user of one project, at one microversion.

    noauth2 makes the user ``admin`` an administrator.
    """

    def __init__(self, url, project='p1', version=LATEST, user='u1'):
        self.base = '%s/v3/%s' % (url, project)
        self.headers = {'X-Auth-Token': '%s:%s' % (user, project)}
        if version:
            self.headers['OpenStack-API-Version'] = version

    def request(self, method, path, version=None, **kwargs):
        headers = dict(self.headers)
        if version:
            headers['OpenStack-API-Version'] = version
        headers.update(kwargs.pop('headers', {}))
        return requests.request(method, self.base + path, headers=headers,
                                timeout=60, **kwargs)

    def get(self, path, **kwargs):
        return self.request('GET', path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request('POST', path, json=body, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request('PUT', path, json=body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request('DELETE', path, **kwargs)

    # -- shortcuts that expect success ------------------------------------

    def create_volume(self, **volume):
        resp = self.post('/volumes', {'volume': volume})
        assert resp.status_code == 202, resp.text
        return resp.json()['volume']

    def volume(self, volume_id):
        resp = self.get('/volumes/' + volume_id)
        assert resp.status_code == 200, resp.text
        return resp.json()['volume']

    def create_snapshot(self, volume_id, **snapshot):
        snapshot['volume_id'] = volume_id
        resp = self.post('/snapshots', {'snapshot': snapshot})
        assert resp.status_code == 202, resp.text
        return resp.json()['snapshot']

    def snapshot(self, snapshot_id):
        resp = self.get('/snapshots/' + snapshot_id)
        assert resp.status_code == 200, resp.text
        return resp.json()['snapshot']

    def attach(self, volume_id, instance_uuid=INSTANCE_1, **extra):
        body = dict(volume_uuid=volume_id, instance_uuid=instance_uuid,
                    **extra)
        resp = self.post('/attachments', {'attachment': body})
        assert resp.status_code == 200, resp.text
        return resp.json()['attachment']
