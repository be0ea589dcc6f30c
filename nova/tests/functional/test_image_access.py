"""Private images stay private through the all-in-one: boot, rebuild, rescue, volumes."""

import pytest

from nova import exception
from nova.tests.functional import fixtures

V = '2.100'
A, B, ADMIN = 'ua:pa', 'ub:pb', 'admin:admin'
CINDER = {'OpenStack-API-Version': 'volume 3.44'}


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('image-access')
    running = fixtures.RunningAio(tmp)
    disk = fixtures.tiny_disk(tmp / 'disk.img')
    running.private = running.upload_image(disk, name='a-private', token=A,
                                           visibility='private')
    running.unshared = running.upload_image(disk, name='a-shared', token=A)
    running.public = running.upload_image(disk, name='public', token=ADMIN,
                                          visibility='public')
    yield running
    running.stop()


def boot(cloud, token, image_ref=None, **extra):
    server = dict({'name': 'srv', 'flavorRef': '1', 'networks': 'none'}, **extra)
    if image_ref:
        server['imageRef'] = image_ref
    return cloud.request('POST', '/servers', {'server': server}, version=V, token=token)


def instances_of(cloud, project):
    return [row for row in cloud.db.instance_get_all({})
            if row['project_id'] == project]


def volumes_of(cloud, token):
    project = token.split(':')[1]
    status, _h, body = cloud.request('GET', '/v3/%s/volumes' % project, token=token,
                                     url=cloud.aio.urls['volume'], headers=CINDER)
    assert status == 200, body
    return body['volumes']


@pytest.fixture
def b_server(cloud):
    status, _h, body = boot(cloud, B, cloud.public)
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
    yield sid
    cloud.request('DELETE', '/servers/' + sid, token=ADMIN)
    cloud.wait_for_status(sid, ['DELETED'], token=ADMIN)


def assert_image_not_found(status, body, image_id, what='Image'):
    assert status == 400, body
    assert body['badRequest']['message'] == '%s %s could not be found.' % (
        what, image_id)


@pytest.mark.parametrize('which', ['private', 'unshared'])
def test_cannot_boot_from_another_projects_image(cloud, which):
    image_id = getattr(cloud, which)
    before = len(instances_of(cloud, 'pb'))
    status, _h, body = boot(cloud, B, image_id)
    assert_image_not_found(status, body, image_id)
    assert len(instances_of(cloud, 'pb')) == before
    # The owner boots from it; so does an admin.
    for token in (A, ADMIN):
        status, _h, body = boot(cloud, token, image_id)
        assert status == 202, body
        sid = body['server']['id']
        cloud.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
        cloud.request('DELETE', '/servers/' + sid, token=ADMIN)


def test_cannot_boot_from_volume_made_of_another_projects_image(cloud):
    before = len(volumes_of(cloud, B))
    status, _h, body = boot(cloud, B, block_device_mapping_v2=[{
        'source_type': 'image', 'uuid': cloud.private, 'destination_type': 'volume',
        'volume_size': 1, 'boot_index': 0, 'delete_on_termination': True}])
    assert_image_not_found(status, body, cloud.private)
    assert len(volumes_of(cloud, B)) == before
    assert instances_of(cloud, 'pb') == []


def test_cannot_rebuild_to_another_projects_image(cloud, b_server):
    status, _h, body = cloud.request(
        'POST', '/servers/%s/action' % b_server, {'rebuild': {'imageRef': cloud.private}},
        version=V, token=B)
    assert_image_not_found(status, body, cloud.private)
    shown = cloud.request('GET', '/servers/' + b_server, version=V, token=B)[2]['server']
    assert shown['image']['id'] == cloud.public
    assert (shown['status'], shown['OS-EXT-STS:task_state']) == ('ACTIVE', None)


def test_cannot_rescue_with_another_projects_image(cloud, b_server):
    status, _h, body = cloud.request(
        'POST', '/servers/%s/action' % b_server,
        {'rescue': {'rescue_image_ref': cloud.private}}, version=V, token=B)
    assert_image_not_found(status, body, cloud.private, what='Rescue image')
    shown = cloud.request('GET', '/servers/' + b_server, version=V, token=B)[2]['server']
    assert shown['status'] == 'ACTIVE'


def test_cannot_make_a_volume_from_another_projects_image(cloud):
    before = len(volumes_of(cloud, B))
    status, _h, body = cloud.request(
        'POST', '/v3/pb/volumes', {'volume': {'size': 1, 'imageRef': cloud.private}},
        token=B, url=cloud.aio.urls['volume'], headers=CINDER)
    assert status == 400, body
    assert 'unable to access requested image' in body['badRequest']['message']
    assert len(volumes_of(cloud, B)) == before


def test_volume_from_a_public_image_works_for_everyone(cloud):
    status, _h, body = cloud.request(
        'POST', '/v3/pb/volumes', {'volume': {'size': 1, 'imageRef': cloud.public}},
        token=B, url=cloud.aio.urls['volume'], headers=CINDER)
    assert status == 202, body
    volume = body['volume']
    shown = cloud.request('GET', '/v3/pb/volumes/' + volume['id'], token=B,
                          url=cloud.aio.urls['volume'], headers=CINDER)[2]['volume']
    assert shown['status'] == 'available', shown
    assert shown['volume_image_metadata']['image_id'] == cloud.public
    cloud.request('DELETE', '/v3/pb/volumes/' + volume['id'], token=B,
                  url=cloud.aio.urls['volume'], headers=CINDER)


def test_shared_and_accepted_image_boots(cloud):
    disk = fixtures.tiny_disk(cloud.conf.state_path + '/shared.img')
    image_id = cloud.upload_image(disk, name='to-share', token=A)
    assert boot(cloud, B, image_id)[0] == 400
    status, _h, member = cloud.request('POST', '/v2/images/%s/members' % image_id,
                                       {'member': 'pb'}, token=A, url=cloud.image_url)
    assert (status, member['status']) == (200, 'pending'), member
    status, _h, member = cloud.request('PUT', '/v2/images/%s/members/pb' % image_id,
                                       {'status': 'accepted'}, token=B, url=cloud.image_url)
    assert (status, member['status']) == (200, 'accepted'), member
    listed = cloud.request('GET', '/v2/images', token=B, url=cloud.image_url)[2]
    assert image_id in [image['id'] for image in listed['images']]
    status, _h, body = boot(cloud, B, image_id)
    assert status == 202, body
    sid = body['server']['id']
    server = cloud.wait_for_status(sid, ['ACTIVE'], token=B)
    assert server['image']['id'] == image_id
    # Removing the member takes the image away again for new boots.
    assert cloud.request('DELETE', '/v2/images/%s/members/pb' % image_id, token=A,
                         url=cloud.image_url)[0] == 204
    assert boot(cloud, B, image_id)[0] == 400
    cloud.request('DELETE', '/servers/' + sid, token=ADMIN)


def test_snapshot_belongs_to_the_servers_project(cloud, b_server):
    status, _h, body = cloud.request(
        'POST', '/servers/%s/action' % b_server, {'createImage': {'name': 'snap'}},
        version=V, token=ADMIN)
    assert status == 202, body
    image_id = body['image_id']
    status, _h, image = cloud.request('GET', '/v2/images/' + image_id, token=B,
                                      url=cloud.image_url)
    assert status == 200, image
    assert (image['owner'], image['visibility']) == ('pb', 'private')
    assert cloud.request('GET', '/v2/images/' + image_id, token=A,
                         url=cloud.image_url)[0] == 404


@pytest.fixture(scope='module')
def a_boot_files(cloud):
    """A's private kernel and ramdisk, booted once by A so the host has cached them."""
    disk = fixtures.tiny_disk(cloud.conf.state_path + '/bootfile.img')
    kernel = cloud.upload_image(disk, name='a-kernel', disk_format='aki',
                                container_format='aki', token=A, visibility='private')
    ramdisk = cloud.upload_image(disk, name='a-ramdisk', disk_format='ari',
                                 container_format='ari', token=A, visibility='private')
    own = cloud.upload_image(disk, name='a-ami', token=A, visibility='private',
                             kernel_id=kernel, ramdisk_id=ramdisk)
    status, _h, body = boot(cloud, A, own)
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'], token=ADMIN)
    cloud.request('DELETE', '/servers/' + sid, token=ADMIN)
    cloud.wait_for_status(sid, ['DELETED'], token=ADMIN)
    return kernel, ramdisk


@pytest.mark.parametrize('prop,what', [('kernel_id', 'Kernel'), ('ramdisk_id', 'Ramdisk')])
def test_an_image_cannot_name_another_projects_kernel_or_ramdisk(cloud, a_boot_files,
                                                                  b_server, prop, what):
    kernel, ramdisk = a_boot_files
    named = kernel if prop == 'kernel_id' else ramdisk
    disk = fixtures.tiny_disk(cloud.conf.state_path + '/b.img')
    props = {'kernel_id': kernel if prop == 'kernel_id' else None, prop: named}
    props = {k: v for k, v in props.items() if v}
    b_image = cloud.upload_image(disk, name='b-ami', token=B, visibility='private', **props)
    before = len(instances_of(cloud, 'pb'))
    status, _h, body = boot(cloud, B, b_image)
    assert_image_not_found(status, body, named, what=what + ' image')
    assert len(instances_of(cloud, 'pb')) == before
    # Nor through a rebuild or a rescue with that image.
    for action in ({'rebuild': {'imageRef': b_image}},
                   {'rescue': {'rescue_image_ref': b_image}}):
        status, _h, body = cloud.request('POST', '/servers/%s/action' % b_server, action,
                                         version=V, token=B)
        assert_image_not_found(status, body, named, what=what + ' image')
    shown = cloud.request('GET', '/servers/' + b_server, version=V, token=B)[2]['server']
    assert (shown['status'], shown['image']['id']) == ('ACTIVE', cloud.public)
    # The owner still boots with them.
    own = cloud.upload_image(disk, name='a-ami-2', token=A, visibility='private', **props)
    status, _h, body = boot(cloud, A, own)
    assert status == 202, body
    cloud.wait_for_status(body['server']['id'], ['ACTIVE'], token=ADMIN)
    cloud.request('DELETE', '/servers/' + body['server']['id'], token=ADMIN)


def test_the_host_cache_refuses_another_projects_cached_kernel(cloud, a_boot_files):
    """Past the API (a host asked directly), the cached copy is still checked."""
    from nova import context as nova_context
    kernel, _ramdisk = a_boot_files
    cache = next(svc.manager.driver for svc in cloud.aio.services
                 if svc.binary == 'nova-compute').image_cache
    assert cache.get(nova_context.RequestContext(user_id='ua', project_id='pa', auth_token=A),
                     kernel).path == cache.path_for(kernel)
    with pytest.raises(exception.ImageNotFound):
        cache.get(nova_context.RequestContext(user_id='ub', project_id='pb', auth_token=B), kernel)
