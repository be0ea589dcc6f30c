"""Payload building and format selection for instance-action notifications."""

import datetime
import json

import pytest

from nova import conf as nova_conf
from nova import context as nova_context
from nova import exception
from nova.notifications import action as notify
from nova.notifications import notifier as notifier_mod
from nova.notifications import payloads
from nova.objects import instance as instance_obj

UUID = '0b1f1f3a-6c3c-4b0e-9d1e-2f1f0f6d9a01'
WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)


def _instance(**extra):
    values = dict(
        uuid=UUID, user_id='u1', project_id='p1', display_name='vm', hostname='vm',
        host='h1', node='h1', vm_state='active', task_state=None, power_state=1,
        image_ref='11111111-2222-3333-4444-555555555555', key_name='k',
        key_data=json.dumps({'name': 'k', 'type': 'ssh', 'public_key': None}),
        created_at=WHEN, launched_at=WHEN, metadata={'a': 'b'}, tags=['t'], name='inst-1',
        system_metadata={'image_os_type': 'linux', 'image_hw_architecture': 'x86_64'},
        image_props_override={'hw_disk_bus': 'virtio'}, locked=False,
        flavor=dict(
            flavorid='1', name='m1.tiny', vcpus=1, memory_mb=512, root_gb=1,
            ephemeral_gb=0, swap=0, rxtx_factor=1.0, is_public=True, disabled=False,
            extra_specs={'hw:cpu_policy': 'shared'}))
    values.update(extra)
    return instance_obj.Instance.from_db(values)


@pytest.fixture
def ctx():
    return nova_context.RequestContext(user_id='u1', project_id='p1', request_id='req-1')


def test_action_payload_has_upstream_envelope_and_fields(ctx):
    payload = payloads.action(ctx, _instance())
    assert payload['nova_object.name'] == 'InstanceActionPayload'
    assert payload['nova_object.namespace'] == 'nova'
    assert payload['nova_object.version'] == '1.7'
    data = payload['nova_object.data']
    assert data['uuid'] == UUID and data['tenant_id'] == 'p1'
    assert data['state'] == 'active' and data['power_state'] == 'running'
    assert data['created_at'] == '2026-01-02T03:04:05Z'
    assert data['os_type'] == 'linux' and data['architecture'] == 'x86_64'
    assert data['request_id'] == 'req-1' and data['action_initiator_user'] == 'u1'
    assert data['fault'] is None and data['block_devices'] is None
    assert data['flavor']['nova_object.version'] == '1.4'
    assert data['flavor']['nova_object.data']['extra_specs'] == {'hw:cpu_policy': 'shared'}
    # Our extension beyond upstream's schema.
    assert data['image_props_override'] == {'hw_disk_bus': 'virtio'}
    json.dumps(payload)  # what goes on the wire


def test_periodic_context_carries_no_request_id():
    ctx = nova_context.get_admin_context()
    data = payloads.action(ctx, _instance())['nova_object.data']
    assert data['request_id'] is None


@pytest.mark.parametrize('kind,extra,fields', [
    ('InstanceActionRescuePayload', {'rescue_image_ref': UUID}, {'rescue_image_ref': UUID}),
    ('InstanceActionVolumePayload', {'volume_id': UUID}, {'volume_id': UUID}),
    ('InstanceActionSnapshotPayload', {'snapshot_image_id': UUID},
     {'snapshot_image_id': UUID}),
    ('InstanceActionRebuildPayload', {}, {'trusted_image_certificates': None}),
    ('InstanceCreatePayload', {}, {'tags': ['t'], 'instance_name': 'inst-1',
                                   'trusted_image_certificates': None}),
])
def test_specific_payloads(ctx, kind, extra, fields):
    payload = payloads.action(ctx, _instance(), kind, **extra)
    assert payload['nova_object.name'] == kind
    assert payload['nova_object.version'] == payloads.VERSIONS[kind]
    for key, value in fields.items():
        assert payload['nova_object.data'][key] == value


def test_create_payload_lists_the_keypair(ctx):
    data = payloads.action(ctx, _instance(), 'InstanceCreatePayload')['nova_object.data']
    [key] = data['keypairs']
    assert key['nova_object.name'] == 'KeypairPayload'
    assert key['nova_object.data']['name'] == 'k' and key['nova_object.data']['type'] == 'ssh'


def _raise():
    raise exception.InstanceNotFound(instance_id=UUID)


def test_exception_payload_names_where_it_was_raised(ctx):
    try:
        _raise()
    except exception.NovaException as exc:
        fault = payloads.exception(exc)
    assert fault['nova_object.name'] == 'ExceptionPayload'
    data = fault['nova_object.data']
    assert data['function_name'] == '_raise'
    assert data['module_name'] == __name__
    assert data['exception'] == 'InstanceNotFound'
    assert UUID in data['exception_message']
    assert 'Traceback' in data['traceback']


def test_block_devices_only_volumes(ctx):
    bdms = [{'volume_id': UUID, 'device_name': '/dev/vdb', 'boot_index': None,
             'delete_on_termination': 0, 'tag': None},
            {'volume_id': None, 'device_name': '/dev/vdc'}]
    data = payloads.action(ctx, _instance(), bdms=bdms)['nova_object.data']
    [bdm] = data['block_devices']
    assert bdm['nova_object.data'] == {'device_name': '/dev/vdb', 'boot_index': None,
                                       'delete_on_termination': False,
                                       'volume_id': UUID, 'tag': None}


def test_legacy_payload_is_flat(ctx):
    legacy = payloads.legacy(ctx, _instance(), fault=ValueError('boom'))
    assert legacy['instance_id'] == UUID and legacy['instance_type'] == 'm1.tiny'
    assert legacy['image_meta'] == {'os_type': 'linux', 'hw_architecture': 'x86_64'}
    assert legacy['message'] == 'boom' and legacy['exception'] == 'ValueError'


@pytest.mark.parametrize('fmt,legacy,versioned', [
    ('unversioned', True, False), ('versioned', False, True), ('both', True, True)])
def test_format_selects_the_notifiers(fmt, legacy, versioned):
    conf = nova_conf.new_config()
    conf.set_override('driver', ['test'], group='oslo_messaging_notifications')
    conf.set_override('transport_url', 'fake:/', group='oslo_messaging_notifications')
    conf.set_override('notification_format', fmt, group='notifications')
    n = notifier_mod.Notifier(conf, 'h1')
    assert (n.send_legacy, n.send_versioned) == (legacy, versioned)
    n.cleanup()


def test_no_driver_means_no_notifications():
    conf = nova_conf.new_config()
    assert conf.notifications.notification_format == 'unversioned'
    assert conf.notifications.versioned_notifications_topics == ['versioned_notifications']
    assert not notifier_mod.Notifier(conf, 'h1').enabled


def test_bad_format_is_refused():
    conf = nova_conf.new_config()
    with pytest.raises(ValueError):
        conf.set_override('notification_format', 'xml', group='notifications')


def test_power_events_are_upstreams_names():
    assert [notify.power_event({'action': a}) for a in
            ('stop', 'start', 'reboot_soft', 'reboot_hard')] == [
        'power_off', 'power_on', 'reboot', 'reboot']
