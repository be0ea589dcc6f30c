"""novaextclient.sdk with a real openstacksdk connection against a recording stub cloud."""

import openstack
import pytest

from novaextclient import sdk
from novaextclient.tests.unit import stub


def connect(cloud, version=None):
    kwargs = {'compute_api_version': version} if version else {}
    return openstack.connect(auth_type='none', compute_endpoint_override=cloud.compute_url,
                             image_endpoint_override=cloud.image_url, load_yaml_config=False,
                             load_envvars=False, **kwargs)


def test_create_get_and_list_keep_the_field(make_cloud):
    cloud = make_cloud('2.106')
    conn = connect(cloud)
    server = sdk.create_server(conn.compute, name='vm', image_id=stub.IMAGE_ID, flavor_id='1',
                               networks='none', image_props_override={'hw_disk_bus': 'sata'})
    [post] = cloud.recorder.posts('/servers')
    assert post['version'] == '2.106'
    assert post['body']['server']['image_props_override'] == {'hw_disk_bus': 'sata'}
    got = sdk.get_server(conn.compute, server.id)
    assert isinstance(got, sdk.Server)
    assert got.image_props_override == {'hw_disk_bus': 'sata'}
    assert got.effective_image_properties == {'hw_disk_bus': 'sata'}
    [listed] = list(sdk.servers(conn.compute))
    assert listed.image_props_override == {'hw_disk_bus': 'sata'}


def test_stock_sdk_drops_the_field_ours_does_not(make_cloud):
    # Why the Server subclass exists: if the SDK ever learns the field, this
    # test tells us to drop ours.
    cloud = make_cloud('2.106')
    conn = connect(cloud)
    conn.compute.create_server(name='vm', image_id=stub.IMAGE_ID, flavor_id='1',
                               networks='none', image_props_override={'hw_disk_bus': 'sata'})
    [post] = cloud.recorder.posts('/servers')
    assert 'image_props_override' not in post['body']['server']


def test_rescue_sends_the_overrides(make_cloud):
    cloud = make_cloud('2.106')
    sid = cloud.add_server()
    conn = connect(cloud)
    # A stock SDK Server object works as well as an id.
    stock = conn.compute.get_server(sid)
    password = sdk.rescue_server(conn.compute, stock, image=stub.IMAGE_ID,
                                 image_props_override={'hw_rescue_device': 'cdrom'})
    assert password == 'rescue-pw'
    [post] = cloud.recorder.posts('/action')
    assert post['version'] == '2.106'
    assert post['body'] == {'rescue': {'rescue_image_ref': stub.IMAGE_ID,
                                       'image_props_override': {'hw_rescue_device': 'cdrom'}}}


@pytest.mark.parametrize('max_version,pin,call,message', [
    ('2.104', None, 'create', 'image_props_override requires compute API 2.105 or greater '
                              '(the compute service supports up to 2.104)'),
    ('2.106', '2.100', 'create', 'requires compute API 2.105 or greater (the compute API '
                                 'version is pinned to 2.100)'),
    ('2.105', None, 'rescue', 'image_props_override on rescue requires compute API 2.106 or '
                              'greater (the compute service supports up to 2.105)'),
])
def test_too_old_sends_nothing(make_cloud, max_version, pin, call, message):
    cloud = make_cloud(max_version)
    sid = cloud.add_server()
    conn = connect(cloud, pin)
    with pytest.raises(sdk.MicroversionNotSupported, match=message.replace('(', r'\(')
                       .replace(')', r'\)')):
        if call == 'create':
            sdk.create_server(conn.compute, name='vm', image_id=stub.IMAGE_ID, flavor_id='1',
                              networks='none', image_props_override={'hw_disk_bus': 'sata'})
        else:
            sdk.rescue_server(conn.compute, sid, image_props_override={'hw_rescue_bus': 'usb'})
    assert [r for r in cloud.recorder.requests if r['method'] == 'POST'] == []


def test_negotiates_down_without_overrides(make_cloud):
    cloud = make_cloud('2.100')
    conn = connect(cloud)
    sdk.create_server(conn.compute, name='vm', image_id=stub.IMAGE_ID, flavor_id='1',
                      networks='none')
    [post] = cloud.recorder.posts('/servers')
    assert post['version'] == '2.100'


@pytest.mark.parametrize('overrides,message', [
    ({'hw disk': 'x'}, "'hw disk' is not a valid property name"),
    ({'hw_numa_nodes': 2}, 'the value of hw_numa_nodes must be a string, not int'),
    ({'a': 'x' * 256}, 'longer than 255'),
    ([('a', 'b')], 'must be a dict'),
])
def test_bad_overrides_are_refused_locally(overrides, message):
    with pytest.raises(ValueError, match=message):
        sdk.validate_overrides(overrides)
