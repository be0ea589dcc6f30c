"""Per-tag, discovery, cache and metadefs routes of the embedded image endpoint, real clients."""

import json

import openstack
import pytest
import requests

from nova.objects import image_meta
from nova.tests.unit.embedded import image_server
from nova.tests.unit.embedded.test_image_clients import _cli

OWNER, OTHER, ADMIN = 'ua:pa', 'ub:pb', 'admin:admin'


@pytest.fixture
def server(tmp_path):
    srv = image_server.ImageServer(str(tmp_path / 'images'), default_token='notused')
    yield srv
    srv.stop()


def call(server, method, path, token='notused', **kwargs):
    return requests.request(method, server.url + path, headers={'X-Auth-Token': token},
                            timeout=30, **kwargs)


def _image(server, token='notused', **body):
    resp = call(server, 'POST', '/v2/images', token=token,
                json=dict({'name': 'tagged', 'disk_format': 'raw',
                           'container_format': 'bare'}, **body))
    assert resp.status_code == 201, resp.text
    return resp.json()['id']


def test_cli_sets_and_unsets_tags_one_by_one(server):
    image_id = _image(server)
    _cli(server, 'image', 'set', '--tag', 'blue', '--tag', 'green', image_id)
    assert sorted(json.loads(_cli(server, 'image', 'show', image_id, '-f', 'json'))['tags']) \
        == ['blue', 'green']
    _cli(server, 'image', 'unset', '--tag', 'blue', image_id)
    assert json.loads(_cli(server, 'image', 'show', image_id, '-f', 'json'))['tags'] == ['green']


def test_tag_routes_answer_as_glance(server):
    image_id = _image(server, token=OWNER, visibility='shared')
    path = '/v2/images/%s/tags/' % image_id
    assert call(server, 'PUT', path + 'a', token=OWNER).status_code == 204
    # Adding it again changes nothing; deleting one it lacks is 404.
    assert call(server, 'PUT', path + 'a', token=OWNER).status_code == 204
    assert call(server, 'GET', '/v2/images/' + image_id, token=OWNER).json()['tags'] == ['a']
    assert call(server, 'DELETE', path + 'missing', token=OWNER).status_code == 404
    # Another project: the image does not exist for it (shared, not a member).
    resp = call(server, 'PUT', path + 'b', token=OTHER)
    assert (resp.status_code, 'Image %s not found.' % image_id in resp.text) == (404, True)
    public = _image(server, token=ADMIN, visibility='public')
    resp = call(server, 'PUT', '/v2/images/%s/tags/b' % public, token=OTHER)
    assert resp.status_code == 403 and 'Not allowed to update tags' in resp.text
    assert call(server, 'PUT', path + 'x' * 256, token=OWNER).status_code == 400
    for n in range(127):
        assert call(server, 'PUT', path + 't%d' % n, token=OWNER).status_code == 204
    resp = call(server, 'PUT', path + 'one-too-many', token=OWNER)
    assert resp.status_code == 413 and 'Image tag limit exceeded' in resp.text
    assert len(call(server, 'GET', '/v2/images/' + image_id, token=OWNER).json()['tags']) == 128


def test_discovery_and_cache(server):
    conn = openstack.connect(auth_type='none', image_endpoint_override=server.url,
                             load_yaml_config=False, load_envvars=False)
    try:
        assert [s.id for s in conn.image.stores()] == ['file']
        assert conn.image.get_import_info().import_methods['value'] == []
    finally:
        conn.close()
    # No image cache here: administrators learn so, others are refused.
    assert call(server, 'GET', '/v2/cache', token=OWNER).status_code == 403
    resp = call(server, 'GET', '/v2/cache', token=ADMIN)
    assert resp.status_code == 404 and 'Caching via API is not supported' in resp.text
    assert call(server, 'PUT', '/v2/cache/' + _image(server), token=ADMIN).status_code == 404


def test_metadefs_list_the_properties_the_compute_service_accepts(server):
    listed = json.loads(_cli(server, 'image', 'metadef', 'namespace', 'list', '-f', 'json'))
    names = sorted(row['namespace'] for row in listed)
    assert names == ['OS::Compute::GuestOS', 'OS::Compute::Hardware',
                     'OS::Compute::ImageHandling']
    props = call(server, 'GET',
                 '/v2/metadefs/namespaces/OS::Compute::Hardware/properties').json()['properties']
    hw = sorted(k for k in image_meta.ImageMetaProps.fields if k.startswith('hw_'))
    assert sorted(props) == hw
    assert props['hw_disk_bus']['type'] == 'string' and 'virtio' in props['hw_disk_bus']['enum']
    assert props['hw_cpu_cores']['type'] == 'integer'
    assert props['hw_boot_menu']['type'] == 'boolean'
    shown = call(server, 'GET', '/v2/metadefs/namespaces/OS::Compute::Hardware').json()
    assert {a['name'] for a in shown['resource_type_associations']} == {
        'OS::Glance::Image', 'OS::Cinder::Volume'}
    types = json.loads(_cli(server, 'image', 'metadef', 'resource', 'type', 'list',
                            '-f', 'json'))
    assert sorted(t['Name'] for t in types) == ['OS::Cinder::Volume', 'OS::Glance::Image']
    assert call(server, 'GET', '/v2/metadefs/namespaces/OS::Nope').status_code == 404
    assert call(server, 'GET', '/v2/metadefs/namespaces/OS::Compute::Hardware/objects'
                ).json()['objects'] == []
    # Read-only, for everyone.
    for token in ('notused', ADMIN):
        assert call(server, 'POST', '/v2/metadefs/namespaces', token=token,
                    json={'namespace': 'mine'}).status_code == 403
        assert call(server, 'DELETE', '/v2/metadefs/namespaces/OS::Compute::Hardware',
                    token=token).status_code == 403
