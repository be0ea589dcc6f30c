"""A real Glance for functional tests (tools/glance.sh): skip without one, upload images."""

import os
import urllib.request

import pytest

GLANCE_URL = os.environ.get('NOVA_TEST_GLANCE_URL', 'http://127.0.0.1:9393').rstrip('/')


def glance_answers(url=None):
    """True when the Image service's version document answers."""
    try:
        with urllib.request.urlopen((url or GLANCE_URL) + '/versions', timeout=5) as resp:
            return resp.status == 200
    except OSError:
        return False


def require_glance():
    """Skip the calling test unless a Glance answers at NOVA_TEST_GLANCE_URL."""
    if not glance_answers():
        pytest.skip('Glance not answering at %s (start one with tools/glance.sh after '
                    'tools/keystone.sh, or set NOVA_TEST_GLANCE_URL)' % GLANCE_URL)


def upload_image(session, path, name='nova-test', disk_format='raw',
                 container_format='bare', **properties):
    """Create an image with ``session`` (a keystoneauth1 Session), upload the file at
    ``path`` and return the image as Glance shows it afterwards."""
    body = dict(properties, name=name, disk_format=disk_format,
                container_format=container_format)
    image = session.post(GLANCE_URL + '/v2/images', json=body).json()
    with open(path, 'rb') as handle:
        session.put(GLANCE_URL + '/v2/images/%s/file' % image['id'], data=handle.read(),
                    headers={'Content-Type': 'application/octet-stream'})
    return session.get(GLANCE_URL + '/v2/images/' + image['id']).json()


def delete_image(session, image_id):
    session.delete(GLANCE_URL + '/v2/images/' + image_id, raise_exc=False)
