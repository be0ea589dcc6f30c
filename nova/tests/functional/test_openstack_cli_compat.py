"""What upstream's clients expect of the compute API: the openstack CLI and openstacksdk."""

import datetime
import os

import openstack
import pytest

from nova.tests.functional.test_openstack_cli import cloud, osc, osc_json  # noqa: F401
from nova.tests.functional.test_openstack_cli_admin import admin  # noqa: F401

PAST = '2000-01-01T00:00:00Z'
WINDOW = 'The value of changes-since must be less than or equal to changes-before.'


def _future():
    return (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)) \
        .strftime('%Y-%m-%dT%H:%M:%SZ')


@pytest.fixture(scope='module')
def image(cloud):  # noqa: F811
    return osc_json(cloud, 'image', 'create', '--file', cloud.disk, '--disk-format', 'raw',
                    '--container-format', 'bare', '--property', 'hw_qemu_guest_agent=yes',
                    'compat-img')['id']


@pytest.fixture(scope='module')
def sdk(cloud):  # noqa: F811
    conn = openstack.connect(
        auth_type='none', compute_endpoint_override=cloud.compute_url,
        image_endpoint_override=cloud.image_url,
        block_storage_endpoint_override=cloud.aio.urls['volume'] + '/v3/notused',
        load_yaml_config=False, load_envvars=False)
    yield conn
    conn.close()


def _boot(cloud, image, name, flavor='m1.tiny'):  # noqa: F811
    return osc_json(cloud, 'server', 'create', '--image', image, '--flavor', flavor,
                    '--nic', 'none', '--wait', name)


def test_changes_before_on_servers_events_and_migrations(cloud, admin, image):  # noqa: F811
    v66 = ('--os-compute-api-version', '2.66')
    kept = _boot(cloud, image, 'kept')
    gone = _boot(cloud, image, 'gone')
    osc(cloud, 'server', 'delete', '--wait', 'gone')
    future = _future()
    assert osc_json(cloud, *v66, 'server', 'list', '--changes-before', PAST) == []
    # A window of changes lists the deleted servers in it, as changes-since does.
    listed = {s['ID']: s['Status'] for s in osc_json(
        cloud, *v66, 'server', 'list', '--changes-before', future)}
    assert listed == {kept['id']: 'ACTIVE', gone['id']: 'DELETED'}
    assert [s['ID'] for s in osc_json(cloud, 'server', 'list')] == [kept['id']]
    empty = osc(cloud, *v66, 'server', 'list', '--changes-since', future,
                '--changes-before', PAST, check=False)
    assert empty.returncode != 0 and WINDOW in empty.stderr
    # Before 2.66 changes-before is not read (upstream drops it).
    status, _h, body = cloud.request('GET', '/servers?changes-before=' + PAST, version='2.65',
                                     token='notused')
    assert status == 200 and [s['id'] for s in body['servers']] == [kept['id']]
    # The server's actions.
    assert osc_json(cloud, *v66, 'server', 'event', 'list', '--changes-before', PAST,
                    kept['id']) == []
    assert [e['Action'] for e in osc_json(cloud, *v66, 'server', 'event', 'list',
                                          '--changes-before', future, kept['id'])] == ['create']
    empty = osc(cloud, *v66, 'server', 'event', 'list', '--changes-since', future,
                '--changes-before', PAST, kept['id'], check=False)
    assert empty.returncode != 0 and WINDOW in empty.stderr
    # os-migrations (admin).
    assert osc_json(admin, *v66, 'server', 'migration', 'list', '--changes-before', PAST) == []
    empty = osc(admin, *v66, 'server', 'migration', 'list', '--changes-since', future,
                '--changes-before', PAST, check=False)
    assert empty.returncode != 0 and WINDOW in empty.stderr
    osc(cloud, 'server', 'delete', '--wait', 'kept')


def test_server_topology_for_the_owner_and_the_admin(cloud, admin, image):  # noqa: F811
    osc(admin, 'flavor', 'create', '--ram', '64', '--vcpus', '2', '--disk', '0',
        '--property', 'hw:numa_nodes=2', 'numa2')
    server = _boot(cloud, image, 'topo', flavor='numa2')
    plain = _boot(cloud, image, 'flat')
    v78 = ('--os-compute-api-version', '2.78')
    owner = osc_json(cloud, *v78, 'server', 'show', '--topology', server['id'])['topology']
    assert owner == {'nodes': [{'vcpu_set': [0], 'siblings': [], 'memory_mb': 32},
                               {'vcpu_set': [1], 'siblings': [], 'memory_mb': 32}],
                     'pagesize_kb': None}
    # The admin also sees the host side (test:///default places no host node).
    shown = osc_json(admin, *v78, 'server', 'show', '--topology', server['id'])['topology']
    assert [(n['host_node'], n['cpu_pinning']) for n in shown['nodes']] == [(None, {})] * 2
    status, _h, body = cloud.request('GET', '/servers/%s/topology' % plain['id'],
                                     version='2.78', token='notused')
    assert (status, body) == (200, {'nodes': [], 'pagesize_kb': None})
    assert cloud.request('GET', '/servers/%s/topology' % plain['id'], version='2.77',
                         token='notused')[0] == 404
    # Another project sees no such server.
    assert cloud.request('GET', '/servers/%s/topology' % server['id'], version='2.78',
                         token='other:other')[0] == 404
    for name in ('topo', 'flat'):
        osc(cloud, 'server', 'delete', '--wait', name)


def test_volume_root_with_image_ref_as_upstream(cloud, sdk, image):  # noqa: F811
    other = osc_json(cloud, 'image', 'create', '--file', cloud.disk, '--disk-format', 'raw',
                     '--container-format', 'bare', 'compat-other')['id']
    flavor = sdk.compute.find_flavor('m1.tiny', ignore_missing=False)
    volume = sdk.block_storage.create_volume(size=1, image_id=other, name='root-vol')
    volume = sdk.block_storage.wait_for_status(volume, 'available', wait=60)
    # imageRef and an existing volume as the root: the volume is the disk, the
    # image is what the server shows and takes its properties from.
    server = sdk.compute.create_server(
        name='vol-and-image', image_id=image, flavor_id=flavor.id, networks='none',
        block_device_mapping=[{'boot_index': 0, 'uuid': volume.id, 'source_type': 'volume',
                               'destination_type': 'volume',
                               'delete_on_termination': False}])
    server = sdk.compute.wait_for_server(server, wait=60)
    assert server.image.id == image
    assert [v['id'] for v in server.attached_volumes] == [volume.id]
    row = cloud.db.instance_get(server.id)
    assert row['image_ref'] == image
    assert row['system_metadata']['image_hw_qemu_guest_agent'] == 'yes'
    assert not os.path.exists(os.path.join(cloud.conf.instances_path, server.id, 'disk'))
    assert sdk.block_storage.get_volume(volume).status == 'in-use'
    # imageRef and an image->volume root naming another image: the volume is
    # made from the mapping's image.
    made = sdk.compute.create_server(
        name='image-and-image', image_id=image, flavor_id=flavor.id, networks='none',
        block_device_mapping=[{'boot_index': 0, 'uuid': other, 'source_type': 'image',
                               'destination_type': 'volume', 'volume_size': 1,
                               'delete_on_termination': True}])
    made = sdk.compute.wait_for_server(made, wait=60)
    [attached] = made.attached_volumes
    root = sdk.block_storage.get_volume(attached['id'])
    assert root.volume_image_metadata['image_id'] == other
    assert made.image.id == image
    for srv in (server, made):
        sdk.compute.delete_server(srv)
        sdk.compute.wait_for_delete(srv, wait=60)
    volume = sdk.block_storage.wait_for_status(volume, 'available', wait=60)
    sdk.block_storage.delete_volume(volume)


def test_aggregate_zones_as_upstream(admin):  # noqa: F811
    agg = osc_json(admin, 'aggregate', 'create', '--zone', 'internal', 'cli-internal')
    assert agg['availability_zone'] == 'internal'
    other = osc_json(admin, 'aggregate', 'create', 'cli-other')
    failed = osc(admin, 'aggregate', 'unset', '--property', 'availability_zone',
                 'cli-internal', check=False)
    assert failed.returncode != 0 and (
        'Cannot update metadata of aggregate %d. Reason: Aggregate cli-internal does not '
        'support empty named availability zone.' % agg['id']) in failed.stderr
    for name in ('cli-internal', 'cli-other'):
        osc(admin, 'aggregate', 'add', 'host', name, 'testhost')
    failed = osc(admin, 'aggregate', 'set', '--zone', 'az2', 'cli-other', check=False)
    assert failed.returncode != 0 and (
        "Cannot update aggregate %d. Reason: One or more hosts already in availability "
        "zone(s) ['internal']." % other['id']) in failed.stderr
    for name in ('cli-internal', 'cli-other'):
        osc(admin, 'aggregate', 'remove', 'host', name, 'testhost')
        osc(admin, 'aggregate', 'delete', name)
