"""Microversion 2.105 image_props_override on server create: validation, storage, views."""

import pytest

from nova.tests.functional import fixtures

V = '2.105'


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('overrides')
    policy = tmp / 'policy.yaml'
    policy.write_text('"os_compute_api:servers:create:image_props_override": '
                      '"rule:project_member_or_admin and not user_id:restricted"\n')
    running = fixtures.RunningAio(tmp, extra={('oslo_policy', 'policy_file'): str(policy)})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'),
                                            hw_disk_bus='scsi', os_command_line='quiet')
    yield running
    running.stop()


def _create(aio, overrides, version=V, token='demo:demo', name='ovr'):
    server = {'name': name, 'imageRef': aio.image_id, 'flavorRef': '1', 'networks': 'none'}
    if overrides is not None:
        server['image_props_override'] = overrides
    return aio.request('POST', '/servers', {'server': server}, version=version, token=token)


@pytest.mark.parametrize('overrides,version,code,needle', [
    ({'hw_disk_bus': 'virtio'}, '2.104', 400, 'image_props_override'),
    ({'no_such_prop': 'x'}, V, 400, 'no_such_prop'),
    ({'hw_disk_bus': 'floppy-ish'}, V, 400, 'must be one of virtio'),
    ({'hw_numa_nodes': 'two'}, V, 400, 'hw_numa_nodes'),
    ({'hw_boot_menu': 'maybe'}, V, 400, 'hw_boot_menu'),
    ({'hw_numa_nodes': 2}, V, 400, 'hw_numa_nodes'),
    ({'os_command_line': 'x' * 256}, V, 400, 'os_command_line'),
    ('hw_disk_bus=virtio', V, 400, 'image_props_override'),
    (['hw_disk_bus'], V, 400, 'image_props_override'),
    ({'img_signature': 'abc'}, V, 403, 'img_signature'),
    ({'owner_id': 'someone'}, V, 403, 'owner_id'),
    ({'hw_prop_%d' % i: 'x' for i in range(65)}, V, 400, None),
    # Refused at the API, not accepted and then failed on the host.
    ({'os_command_line': 'quiet\nroot=/dev/sda'}, V, 400, 'control characters'),
    ({'os_command_line': 'init="/bin/sh"'}, V, 400, 'quotes'),
    ({'hw_disk_bus': 'xen'}, V, 400, 'xen'),
    ({'hw_disk_bus': 'ide', 'hw_machine_type': 'q35'}, V, 400, 'No compute host'),
    ({'hw_cdrom_bus': 'virtio'}, V, 400, 'No compute host'),
])
def test_invalid_overrides_create_nothing(aio, overrides, version, code, needle):
    before = aio.db.instance_count()
    status, _h, body = _create(aio, overrides, version=version)
    assert status == code, body
    message = next(iter(body.values()))['message']
    if needle:
        assert needle in message
    assert aio.db.instance_count() == before


def test_too_many_keys(aio):
    overrides = {'hw_numa_cpus.%d' % i: '0' for i in range(65)}
    status, _h, body = _create(aio, overrides)
    assert status == 400 and 'at most 64' in body['badRequest']['message']


def test_policy_refusal_is_403_and_creates_nothing(aio):
    before = aio.db.instance_count()
    status, _h, body = _create(aio, {'hw_disk_bus': 'virtio'}, token='restricted:demo')
    assert status == 403
    assert 'image_props_override' in body['forbidden']['message']
    assert _create(aio, None, token='restricted:demo')[0] == 202
    assert aio.db.instance_count() == before + 1


def test_effective_properties_recorded_and_shown(aio):
    status, _h, body = _create(aio, {'hw_disk_bus': 'virtio',
                                     'hw_os_command_line': 'console=ttyS0 nova=1'})
    assert status == 202, body
    sid = body['server']['id']
    server = aio.wait_for_status(sid, ['ACTIVE'], version=V)
    assert server['image_props_override'] == {'hw_disk_bus': 'virtio',
                                              'hw_os_command_line': 'console=ttyS0 nova=1'}
    assert server['image']['properties']['hw_disk_bus'] == 'virtio'
    assert server['image']['properties']['os_command_line'] == 'console=ttyS0 nova=1'
    row = aio.db.instance_get(sid)
    assert row['system_metadata']['image_hw_disk_bus'] == 'virtio'
    assert row['system_metadata']['image_os_command_line'] == 'console=ttyS0 nova=1'
    older = aio.request('GET', '/servers/' + sid, version='2.104')[2]['server']
    assert 'image_props_override' not in older
    assert older['image']['properties']['hw_disk_bus'] == 'virtio'
    assert 'properties' not in aio.request('GET', '/servers/' + sid,
                                           version='2.97')[2]['server']['image']


def test_no_override_keeps_image_properties(aio):
    status, _h, body = _create(aio, None)
    sid = body['server']['id']
    server = aio.wait_for_status(sid, ['ACTIVE'], version=V)
    assert server['image_props_override'] == {}
    assert server['image']['properties']['hw_disk_bus'] == 'scsi'


def test_rebuild_reapplies_overrides_over_the_new_image(aio, tmp_path):
    status, _h, body = _create(aio, {'hw_disk_bus': 'virtio'})
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    new_image = aio.upload_image(fixtures.tiny_disk(tmp_path / 'new.img'), name='new',
                                 hw_disk_bus='ide', hw_video_model='vga')
    status, _h, body = aio.request('POST', '/servers/%s/action' % sid,
                                   {'rebuild': {'imageRef': new_image}}, version=V)
    assert status == 202, body
    server = aio.wait_for_status(sid, ['ACTIVE'], version=V)
    assert server['image']['id'] == new_image
    assert server['image']['properties']['hw_disk_bus'] == 'virtio'
    assert server['image']['properties']['hw_video_model'] == 'vga'


def test_override_no_host_can_satisfy_fails_scheduling_cleanly(aio):
    # The test hypervisor is i686; an x86_64-only request must not land on it.
    status, _h, body = _create(aio, {'hw_architecture': 'x86_64'})
    assert status == 202
    server = aio.wait_for_status(body['server']['id'], ['ERROR'], version=V)
    assert 'No valid host' in server['fault']['message']
