"""Config drive contents and images (real xorriso / mkfs.vfat + mtools)."""

import base64
import json
import shutil
import subprocess

import pytest

from nova import exception
from nova.tests.fixtures import libvirt as fx
from nova.virt import configdrive

UUID = '11111111-2222-3333-4444-555555555555'


def instance(**attrs):
    base = dict(uuid=UUID, name='instance-1', display_name='web',
                hostname='web-1', launch_index=2, availability_zone='nova',
                project_id='proj', metadata={'role': 'db'},
                user_data=base64.b64encode(b'#!/bin/sh\necho hi\n').decode(),
                config_drive='True')
    base.update(attrs)
    return fx.make_instance(**base)


def test_required_by():
    assert configdrive.required_by(instance())
    assert not configdrive.required_by(instance(config_drive=''))
    assert not configdrive.required_by(instance(config_drive=None))
    assert configdrive.required_by(instance(config_drive=''), force=True)


def _without(document, *keys):
    return {k: v for k, v in json.loads(document).items() if k not in keys}


def test_metadata_files_tree():
    files = configdrive.metadata_files(
        instance(), injected_files=[('/etc/motd', 'hello')],
        admin_pass='s3cret')
    assert sorted(f for f in files if f.startswith('openstack/')) == sorted(
        ['openstack/content/0000'] +
        ['openstack/%s/%s' % (v, n) for v in ('2018-08-27', 'latest')
         for n in ('meta_data.json', 'network_data.json', 'user_data',
                   'vendor_data.json', 'vendor_data2.json')])
    # Upstream's EC2 copies: 2009-04-04 and latest ([api] config_drive_skip_versions).
    assert sorted(f for f in files if not f.startswith('openstack/')) == [
        'ec2/2009-04-04/meta-data.json', 'ec2/2009-04-04/user-data',
        'ec2/latest/meta-data.json', 'ec2/latest/user-data']
    meta = json.loads(files['openstack/latest/meta_data.json'])
    # A fresh random seed in each copy, as upstream.
    assert len(base64.b64decode(meta.pop('random_seed'))) == 512
    assert meta == {
        'uuid': UUID, 'name': 'web', 'hostname': 'web-1', 'launch_index': 2,
        'availability_zone': 'nova', 'project_id': 'proj',
        'meta': {'role': 'db'}, 'public_keys': {}, 'keys': [],
        'devices': [], 'admin_pass': 's3cret', 'dedicated_cpus': [],
        'files': [{'path': '/etc/motd', 'content_path': '/content/0000'}]}
    # 2018-08-27 has everything but what 2020-10-14 added.
    assert _without(files['openstack/2018-08-27/meta_data.json'], 'random_seed') == \
        _without(files['openstack/latest/meta_data.json'], 'random_seed', 'dedicated_cpus')
    assert json.loads(files['openstack/latest/network_data.json']) == {
        'links': [], 'networks': [], 'services': []}
    assert files['openstack/latest/user_data'] == b'#!/bin/sh\necho hi\n'
    assert files['openstack/content/0000'] == b'hello'


def test_no_user_data_no_file_and_bad_base64_refused():
    files = configdrive.metadata_files(instance(user_data=None))
    assert 'openstack/latest/user_data' not in files
    with pytest.raises(exception.Invalid):
        configdrive.metadata_files(instance(user_data='not base64!'))


def test_iso_has_label_and_files(tmp_path):
    files = configdrive.metadata_files(instance())
    path = configdrive.make_drive(files, str(tmp_path / 'disk.config'))
    assert configdrive.read_iso_label(path) == 'config-2'
    content = fx.read_iso_files(path)
    meta = json.loads(content['openstack/latest/meta_data.json'])
    assert meta['uuid'] == UUID
    assert content['openstack/2018-08-27/user_data'] == \
        b'#!/bin/sh\necho hi\n'
    assert not (tmp_path / 'disk.config.part').exists()


@pytest.mark.skipif(not configdrive.vfat_tools_present(),
                    reason='needs mkfs.vfat (dosfstools) and mcopy (mtools)')
def test_vfat_drive(tmp_path):
    path = configdrive.make_drive(configdrive.metadata_files(instance()),
                                  str(tmp_path / 'disk.config'), 'vfat')
    label = subprocess.run(['mlabel', '-s', '-i', path, '::'],
                           capture_output=True, text=True).stdout
    assert 'CONFIG-2' in label.upper()
    out = subprocess.run(['mtype', '-i', path,
                          '::/openstack/latest/meta_data.json'],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out)['uuid'] == UUID


def test_missing_tools_and_bad_format_are_clear(tmp_path, monkeypatch):
    with pytest.raises(exception.Invalid):
        configdrive.make_drive({}, str(tmp_path / 'x'), 'udf')
    monkeypatch.setattr(shutil, 'which', lambda name: None)
    with pytest.raises(exception.InstanceDeployFailure) as err:
        configdrive.make_drive({}, str(tmp_path / 'x'))
    assert 'xorriso' in err.value.format_message()
    with pytest.raises(exception.InstanceDeployFailure) as err:
        configdrive.make_drive({}, str(tmp_path / 'x'), 'vfat')
    assert 'mkfs.vfat' in err.value.format_message()


def test_conf_adds_the_domain_and_vendor_data(tmp_path):
    from nova import conf as nova_conf
    vendor = tmp_path / 'vendor.json'
    vendor.write_text('{"site": "lab"}')
    conf = nova_conf.new_config()
    conf.set_override('vendordata_jsonfile_path', str(vendor), group='api')
    files = configdrive.metadata_files(instance(), conf=conf)
    assert json.loads(files['openstack/latest/meta_data.json'])['hostname'] == \
        'web-1.novalocal'
    assert json.loads(files['openstack/latest/vendor_data.json']) == {'site': 'lab'}
    assert json.loads(files['openstack/latest/vendor_data2.json']) == {
        'static': {'site': 'lab'}}


def test_network_info_cache_becomes_network_data():
    from nova.tests.unit.metadata import test_network_data as nd
    files = configdrive.metadata_files(instance(network_info=nd.NETWORK_INFO))
    assert json.loads(files['openstack/latest/network_data.json']) == nd.NETWORK_DATA
    # What spawn is given wins over the cache.
    files = configdrive.metadata_files(instance(network_info=[]),
                                       network_info=nd.NETWORK_INFO)
    assert json.loads(files['openstack/latest/network_data.json']) == nd.NETWORK_DATA
