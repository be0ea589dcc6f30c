"""The openstack CLI with the hooks installed, against a recording stub cloud."""

from novaextclient.tests.unit import stub
from novaextclient.tests.unit.conftest import cli_json, run_cli

CREATE = ('server', 'create', '--image', stub.IMAGE_ID, '--flavor', '1', '--nic', 'none')


def test_create_sends_the_overrides_at_the_negotiated_version(make_cloud):
    cloud = make_cloud('2.106')
    shown = cli_json(cloud, *CREATE, '--image-prop-override', 'os_command_line=console=ttyS0',
                     '--image-prop-override', 'hw_numa_nodes=2', 'vm1')
    [post] = cloud.recorder.posts('/servers')
    # The highest version both sides know, with the value's own '=' kept.
    assert post['version'] == '2.106'
    assert post['body']['server']['image_props_override'] == {
        'os_command_line': 'console=ttyS0', 'hw_numa_nodes': '2'}
    assert post['body']['server']['name'] == 'vm1'
    assert shown['image_props_override'] == {'os_command_line': 'console=ttyS0',
                                             'hw_numa_nodes': '2'}
    assert shown['image_properties']['hw_disk_bus'] == 'virtio'


def test_create_at_2_105_server(make_cloud):
    cloud = make_cloud('2.105')
    cli_json(cloud, *CREATE, '--image-prop-override', 'hw_disk_bus=sata', 'vm1')
    [post] = cloud.recorder.posts('/servers')
    assert post['version'] == '2.105'
    assert post['body']['server']['image_props_override'] == {'hw_disk_bus': 'sata'}


def test_create_without_overrides_is_the_stock_request(make_cloud):
    cloud = make_cloud('2.106')
    cli_json(cloud, *CREATE, 'vm1')
    [post] = cloud.recorder.posts('/servers')
    assert 'image_props_override' not in post['body']['server']


def test_old_server_gets_the_message_and_nothing_is_sent(make_cloud):
    cloud = make_cloud('2.104')
    proc = run_cli(cloud, *CREATE, '--image-prop-override', 'hw_disk_bus=sata', 'vm1',
                   check=False)
    assert proc.returncode == 1
    assert ('--image-prop-override requires compute API 2.105 or greater '
            '(the compute service supports up to 2.104)') in proc.stderr
    assert cloud.recorder.posts('/servers') == []


def test_pinned_old_version_is_refused(make_cloud):
    cloud = make_cloud('2.106')
    proc = run_cli(cloud, '--os-compute-api-version', '2.100', *CREATE,
                   '--image-prop-override', 'hw_disk_bus=sata', 'vm1', check=False)
    assert proc.returncode == 1
    assert 'requires compute API 2.105 or greater (the compute API version is pinned ' \
           'to 2.100)' in proc.stderr
    assert cloud.recorder.posts('/servers') == []


def test_malformed_overrides_are_refused_locally(make_cloud):
    cloud = make_cloud('2.106')
    for bad, message in (('hw_disk_bus', "expected KEY=VALUE, got 'hw_disk_bus'"),
                         ('=sata', "'' is not a valid property name"),
                         ('hw disk=sata', "'hw disk' is not a valid property name"),
                         ('hw_disk_bus=' + 'x' * 256, 'longer than 255')):
        proc = run_cli(cloud, *CREATE, '--image-prop-override', bad, 'vm1', check=False)
        assert proc.returncode == 2, bad
        assert message in proc.stderr, proc.stderr
    proc = run_cli(cloud, *CREATE, '--image-prop-override', 'a=1', '--image-prop-override',
                   'a=2', 'vm1', check=False)
    assert 'a given twice with different values' in proc.stderr
    assert [r for r in cloud.recorder.requests if r['method'] == 'POST'] == []


def test_rescue_with_overrides_at_2_106(make_cloud):
    cloud = make_cloud('2.106')
    sid = cloud.add_server()
    run_cli(cloud, 'server', 'rescue', '--image', stub.IMAGE_ID, '--password', 'pw',
            '--image-prop-override', 'hw_rescue_bus=usb', sid)
    [post] = cloud.recorder.posts('/action')
    assert post['version'] == '2.106'
    assert post['body'] == {'rescue': {'adminPass': 'pw', 'rescue_image_ref': stub.IMAGE_ID,
                                       'image_props_override': {'hw_rescue_bus': 'usb'}}}


def test_rescue_override_needs_2_106(make_cloud):
    cloud = make_cloud('2.105')
    sid = cloud.add_server()
    proc = run_cli(cloud, 'server', 'rescue', '--image-prop-override', 'hw_rescue_bus=usb',
                   sid, check=False)
    assert proc.returncode == 1
    assert 'requires compute API 2.106 or greater (the compute service supports up to ' \
           '2.105)' in proc.stderr
    assert cloud.recorder.posts('/action') == []


def test_rescue_without_overrides_is_the_stock_request(make_cloud):
    cloud = make_cloud('2.106')
    sid = cloud.add_server()
    run_cli(cloud, 'server', 'rescue', sid)
    [post] = cloud.recorder.posts('/action')
    assert post['body'] == {'rescue': {}}


def test_show_has_the_fields_when_the_service_has_them(make_cloud):
    cloud = make_cloud('2.106')
    sid = cloud.add_server(image_props_override={'hw_disk_bus': 'sata'})
    shown = cli_json(cloud, 'server', 'show', sid)
    assert shown['image_props_override'] == {'hw_disk_bus': 'sata'}
    assert shown['image_properties'] == {'hw_disk_bus': 'sata'}
    # Negotiated, not forced: the extra GET used the highest common version.
    assert [r['version'] for r in cloud.recorder.requests
            if r['path'].endswith(sid)][-1] == '2.106'


def test_show_on_an_older_service_or_pin(make_cloud):
    cloud = make_cloud('2.100')
    sid = cloud.add_server(image_props_override={'hw_disk_bus': 'sata'})
    shown = cli_json(cloud, 'server', 'show', sid)
    assert 'image_props_override' not in shown
    assert shown['image_properties'] == {'hw_disk_bus': 'sata'}
    cloud = make_cloud('2.106')
    sid = cloud.add_server(image_props_override={'hw_disk_bus': 'sata'})
    shown = cli_json(cloud, '--os-compute-api-version', '2.90', 'server', 'show', sid)
    assert 'image_props_override' not in shown and 'image_properties' not in shown


def test_list_long_has_the_columns(make_cloud):
    cloud = make_cloud('2.106')
    sid = cloud.add_server(image_props_override={'hw_disk_bus': 'sata'})
    other = cloud.add_server(name='plain')
    rows = {r['ID']: r for r in cli_json(cloud, 'server', 'list', '--long')}
    assert rows[sid]['Image Props Override'] == {'hw_disk_bus': 'sata'}
    assert rows[sid]['Image Properties'] == {'hw_disk_bus': 'sata'}
    assert rows[other]['Image Props Override'] == {}
    short = cli_json(cloud, 'server', 'list')
    assert all('Image Props Override' not in r for r in short)
