"""The content builder: meta_data.json, the EC2 tree and listings at each version (literal)."""

import base64
import json

import pytest

from nova import exception
from nova.metadata import content, options, vendordata, versions
from nova.objects import instance as instance_obj
from nova.tests.unit.metadata import test_network_data as nd

UUID = '11111111-2222-3333-4444-555555555555'
IMAGE = '7c1d5d2e-8d6a-4a38-9a3c-1f2e3d4c5b6a'
KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI test@host'


def instance(**values):
    """A real Instance object, as the metadata API and the compute host hold it."""
    row = dict(id=42, uuid=UUID, name='instance-0000002a', display_name='web',
               hostname='web-1', launch_index=2, availability_zone='az1', host='cmp1',
               project_id='proj', user_id='user', image_ref=IMAGE, kernel_id=None,
               ramdisk_id=None, reservation_id='r-abcdef12', root_device_name='/dev/vda',
               key_name='mykey', vcpus=2,
               key_data=json.dumps({'name': 'mykey', 'type': 'ssh', 'public_key': KEY}),
               metadata={'role': 'db'}, system_metadata={},
               user_data=base64.b64encode(b'#cloud-config\n').decode(),
               network_info=nd.NETWORK_INFO,
               flavor={'name': 'm1.small', 'flavorid': '2', 'vcpus': 2, 'memory_mb': 512,
                       'root_gb': 1, 'ephemeral_gb': 0, 'swap': 0, 'rxtx_factor': 1.0,
                       'is_public': True, 'disabled': False, 'extra_specs': {}})
    row.update(values)
    return instance_obj.Instance.from_db(row)


def build(**kwargs):
    opts = kwargs.pop('opts', options.ContentOptions(dhcp_domain='novalocal'))
    return content.InstanceContent(kwargs.pop('inst', None) or instance(), opts, **kwargs)


def meta(c, version):
    body, ctype = c.openstack_document(version, content.MD_JSON)
    assert ctype == 'application/json'
    data = json.loads(body)
    if 'random_seed' in data:
        assert len(base64.b64decode(data.pop('random_seed'))) == 512
    return data


FOLSOM_META = {
    'uuid': UUID, 'name': 'web', 'hostname': 'web-1.novalocal', 'launch_index': 2,
    'availability_zone': 'az1', 'meta': {'role': 'db'},
    'public_keys': {'mykey': KEY}, 'keys': [{'name': 'mykey', 'type': 'ssh', 'data': KEY}]}


def test_meta_data_at_each_version():
    c = build()
    assert meta(c, '2012-08-10') == FOLSOM_META
    assert 'random_seed' in json.loads(c.openstack_document('2013-04-04', content.MD_JSON)[0])
    assert 'random_seed' not in json.loads(c.openstack_document('2012-08-10',
                                                                content.MD_JSON)[0])
    assert meta(c, '2015-10-15') == dict(FOLSOM_META, project_id='proj')
    assert meta(c, '2016-06-30') == dict(FOLSOM_META, project_id='proj', devices=[])
    assert meta(c, '2018-08-27') == meta(c, '2016-06-30')
    assert meta(c, 'latest') == dict(FOLSOM_META, project_id='proj', devices=[],
                                     dedicated_cpus=[])
    # No dashes in top-level keys, as upstream promises.
    assert not [k for k in c.meta_data() if '-' in k]


def test_random_seed_is_fresh_each_time():
    c = build()
    seeds = {c.meta_data()['random_seed'] for _ in range(3)}
    assert len(seeds) == 3


def test_meta_data_carries_the_key_pair():
    key = 'ssh-rsa AAAAB3NzaC1yc2E test@host'
    data = build(inst=instance(key_name='mykey', key_data=json.dumps(
        {'name': 'mykey', 'type': 'ssh', 'public_key': key}))).meta_data()
    assert data['public_keys'] == {'mykey': key}
    assert data['keys'] == [{'name': 'mykey', 'type': 'ssh', 'data': key}]


def test_meta_data_without_a_key_pair():
    data = build(inst=instance(key_name=None, key_data=None)).meta_data()
    assert data['public_keys'] == {} and data['keys'] == []


def test_a_bare_public_key_is_named_after_the_key():
    data = build(inst=instance(key_name='old', key_data=KEY)).meta_data()
    assert data['keys'] == [{'name': 'old', 'type': 'ssh', 'data': KEY}]


def test_dedicated_cpus_follow_the_cpu_policy():
    flavor = dict(instance().flavor.to_dict(), extra_specs={'hw:cpu_policy': 'dedicated'})
    assert build(inst=instance(flavor=flavor)).meta_data()['dedicated_cpus'] == [0, 1]
    image = instance(system_metadata={'image_hw_cpu_policy': 'dedicated'}, vcpus=3)
    assert build(inst=image).meta_data()['dedicated_cpus'] == [0, 1, 2]


def test_zone_and_hostname_defaults():
    c = build(inst=instance(availability_zone=None),
              opts=options.ContentOptions(default_availability_zone='nova'))
    assert c.meta_data()['availability_zone'] == 'nova'
    assert c.meta_data()['hostname'] == 'web-1'
    unscheduled = build(inst=instance(availability_zone=None, host=None))
    assert unscheduled.meta_data()['availability_zone'] is None


def test_openstack_listing_per_version():
    c = build()
    assert c.openstack_names('2012-08-10') == ['meta_data.json', 'user_data']
    assert c.openstack_names('2013-04-04') == ['meta_data.json', 'user_data', 'password']
    assert c.openstack_names('2013-10-17') == ['meta_data.json', 'user_data', 'password',
                                               'vendor_data.json']
    assert c.openstack_names('2015-10-15') == ['meta_data.json', 'user_data', 'password',
                                               'vendor_data.json', 'network_data.json']
    assert c.openstack_names('latest') == ['meta_data.json', 'user_data', 'password',
                                           'vendor_data.json', 'network_data.json',
                                           'vendor_data2.json']
    no_user_data = build(inst=instance(user_data=None))
    assert 'user_data' not in no_user_data.openstack_names('latest')
    with pytest.raises(KeyError):
        no_user_data.openstack_document('latest', 'user_data')
    with pytest.raises(KeyError):
        c.openstack_document('2015-10-15', 'vendor_data2.json')
    with pytest.raises(versions.UnknownVersion):
        c.openstack_names('2099-01-01')


def test_documents_and_their_types():
    c = build()
    assert c.openstack_document('latest', 'user_data') == (b'#cloud-config\n', 'text/plain')
    assert json.loads(c.openstack_document('latest', 'network_data.json')[0]) == \
        nd.NETWORK_DATA
    assert c.openstack_document('latest', 'vendor_data.json') == (b'{}', 'application/json')
    assert c.openstack_document('latest', 'vendor_data2.json') == (b'{"static": {}}',
                                                                   'application/json')
    assert c.openstack_document('latest', 'password') == (b'', 'text/plain')
    stored = build(inst=instance(system_metadata={'password_0': 'abc', 'password_1': 'def'}))
    assert stored.openstack_document('latest', 'password') == (b'abcdef', 'text/plain')


EC2_2009 = {
    'ami-id': 'ami-7c1d5d2e', 'ami-launch-index': 2, 'ami-manifest-path': 'FIXME',
    'instance-id': 'i-0000002a', 'hostname': 'web-1.novalocal', 'local-ipv4': '10.77.0.41',
    'reservation-id': 'r-abcdef12', 'security-groups': ['default'],
    'public-keys': {'0': {'_name': '0=mykey', 'openssh-key': KEY}},
    'local-hostname': 'web-1.novalocal', 'public-hostname': 'web-1.novalocal',
    'public-ipv4': '172.24.4.7', 'instance-type': 'm1.small',
    'block-device-mapping': {'ami': 'vda', 'root': '/dev/vda', 'ebs0': '/dev/vdb'},
    'placement': {'availability-zone': 'az1'}, 'instance-action': 'none'}


def test_ec2_tree_at_each_version():
    c = build(security_groups=['default'], block_devices=[
        {'destination_type': 'volume', 'source_type': 'volume', 'device_name': '/dev/vdb'}])
    assert c.ec2_tree('latest') == {'meta-data': EC2_2009, 'user-data': b'#cloud-config\n'}
    assert c.ec2_meta_data('2009-04-04') == EC2_2009
    assert c.ec2_meta_data('1.0') == {k: EC2_2009[k] for k in (
        'ami-id', 'ami-launch-index', 'ami-manifest-path', 'instance-id', 'hostname',
        'local-ipv4', 'reservation-id', 'security-groups', 'public-keys')}
    assert 'instance-type' not in c.ec2_meta_data('2007-03-01')
    assert 'placement' not in c.ec2_meta_data('2007-12-15')
    with pytest.raises(versions.UnknownVersion):
        c.ec2_meta_data('2010-01-01')


def test_ec2_kernel_ramdisk_and_address_fallbacks():
    c = build(inst=instance(kernel_id='kernel-image', ramdisk_id=IMAGE, network_info=[],
                            key_name=None, key_data=None, root_device_name=None),
              address='10.9.9.9')
    md = c.ec2_meta_data()
    assert md['kernel-id'].startswith('aki-') and len(md['kernel-id']) == 12
    assert md['ramdisk-id'] == 'ari-7c1d5d2e'
    assert md['local-ipv4'] == '10.9.9.9' and md['public-ipv4'] == ''
    assert md['block-device-mapping'] == {'ami': 'sda1', 'root': '/dev/sda1'}
    assert 'public-keys' not in md


def test_block_device_mapping_lists_volumes_ephemerals_and_swap():
    bdms = [{'destination_type': 'volume', 'device_name': '/dev/vdc'},
            {'destination_type': 'volume', 'device_name': '/dev/vdb'},
            {'source_type': 'blank', 'destination_type': 'local', 'guest_format': 'swap',
             'device_name': '/dev/vdd'},
            {'source_type': 'blank', 'destination_type': 'local', 'guest_format': None,
             'device_name': '/dev/vde'}]
    assert content.block_device_mapping('/dev/vda', bdms) == {
        'ami': 'vda', 'root': '/dev/vda', 'ebs0': '/dev/vdb', 'ebs1': '/dev/vdc',
        'swap': '/dev/vdd', 'ephemeral0': '/dev/vde'}


def test_static_vendor_data(tmp_path):
    path = tmp_path / 'vendor.json'
    path.write_text(json.dumps({'ldap': '10.0.0.1'}))
    c = build(opts=options.ContentOptions(vendor_data=vendordata.VendorData(
        jsonfile_path=str(path))))
    assert json.loads(c.openstack_document('2013-10-17', 'vendor_data.json')[0]) == {
        'ldap': '10.0.0.1'}
    assert json.loads(c.openstack_document('latest', 'vendor_data2.json')[0]) == {
        'static': {'ldap': '10.0.0.1'}}
    # Unreadable or not an object: {} rather than a failed boot.
    path.write_text('[1, 2]')
    assert vendordata.static_json(str(path)) == {}
    path.write_text('{not json')
    assert vendordata.static_json(str(path)) == {}
    assert vendordata.static_json(str(tmp_path / 'missing.json')) == {}


def test_without_static_json_vendor_data_json_is_absent():
    c = build(opts=options.ContentOptions(vendor_data=vendordata.VendorData(providers=())))
    with pytest.raises(KeyError):
        c.openstack_document('latest', 'vendor_data.json')
    assert c.openstack_document('latest', 'vendor_data2.json')[0] == b'{}'
    assert 'openstack/latest/vendor_data.json' not in c.drive_files()


def test_bad_user_data_is_refused():
    with pytest.raises(exception.Invalid):
        build(inst=instance(user_data='not base64!'))


def test_drive_files_match_the_documents():
    c = build(injected_files=[('/etc/motd', 'hi')], admin_pass='pw')
    files = c.drive_files()
    assert files['openstack/latest/network_data.json'] == \
        c.openstack_document('latest', 'network_data.json')[0]
    assert files['openstack/content/0000'] == b'hi'
    ec2 = json.loads(files['ec2/latest/meta-data.json'])
    # The drive's copy has no listing names.
    assert ec2['public-keys'] == {'0': {'openssh-key': KEY}}
    assert files['ec2/latest/user-data'] == b'#cloud-config\n'
    assert 'openstack/latest/password' not in files
    assert json.loads(files['openstack/latest/meta_data.json'])['admin_pass'] == 'pw'
    # The API never tells the admin password or the injected files.
    assert 'admin_pass' not in build().meta_data()
