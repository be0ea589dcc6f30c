"""Versioned and legacy notification payloads, in upstream Nova's wire shapes."""

import inspect
import json
import traceback as tb

from nova import crypto, power_state

NAMESPACE = 'nova'

# Upstream's payload object versions for the fields we send. Our one
# addition, ``image_props_override`` in every instance payload, is an
# extension beyond upstream's schema at these versions (see the admin guide).
VERSIONS = {
    'InstanceActionPayload': '1.7',
    'InstanceActionVolumePayload': '1.5',
    'InstanceActionRescuePayload': '1.2',
    'InstanceActionRebuildPayload': '1.8',
    'InstanceActionSnapshotPayload': '1.8',
    'InstanceCreatePayload': '1.11',
    'FlavorPayload': '1.4',
    'ExceptionPayload': '1.1',
    'BlockDevicePayload': '1.0',
    'KeypairPayload': '1.0',
}


def versioned(name, data):
    """Wrap ``data`` as a serialised notification object, as upstream's consumers expect."""
    return {'nova_object.name': name, 'nova_object.namespace': NAMESPACE,
            'nova_object.version': VERSIONS[name], 'nova_object.data': data}


def isotime(value):
    """Upstream's DateTimeField form: '2012-10-29T13:42:11Z'."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return value.strftime('%Y-%m-%dT%H:%M:%SZ')


def _get(obj, name, default=None):
    if isinstance(obj, dict):
        return obj.get(name, default)
    if hasattr(obj, 'obj_attr_is_set') and name in getattr(obj, 'fields', {}) \
            and not obj.obj_attr_is_set(name):
        return default
    return getattr(obj, name, default)


def flavor(values):
    values = values or {}
    return versioned('FlavorPayload', {
        'flavorid': _get(values, 'flavorid'), 'name': _get(values, 'name'),
        'memory_mb': _get(values, 'memory_mb'), 'vcpus': _get(values, 'vcpus'),
        'root_gb': _get(values, 'root_gb'), 'ephemeral_gb': _get(values, 'ephemeral_gb'),
        'swap': _get(values, 'swap') or 0, 'rxtx_factor': _get(values, 'rxtx_factor', 1.0),
        'vcpu_weight': None, 'disabled': bool(_get(values, 'disabled', False)),
        'is_public': bool(_get(values, 'is_public', True)),
        'extra_specs': dict(_get(values, 'extra_specs') or {}),
        # Not loaded with the instance's copy of the flavor (nullable upstream too).
        'projects': None, 'description': _get(values, 'description')})


def exception(exc):
    """ExceptionPayload: where it was raised, its class, message and traceback."""
    last = exc.__traceback__
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    module = inspect.getmodule(last.tb_frame) if last is not None else None
    function = last.tb_frame.f_code.co_name if last is not None else 'unknown'
    module = module.__name__ if module else 'unknown'
    message = exc.format_message() if hasattr(exc, 'format_message') else str(exc)
    return versioned('ExceptionPayload', {
        'module_name': module, 'function_name': function,
        'exception': exc.__class__.__name__, 'exception_message': message,
        'traceback': ''.join(tb.format_exception(type(exc), exc, exc.__traceback__))})


def block_device(bdm):
    return versioned('BlockDevicePayload', {
        'device_name': bdm.get('device_name'), 'boot_index': bdm.get('boot_index'),
        'delete_on_termination': bool(bdm.get('delete_on_termination')),
        'volume_id': bdm.get('volume_id'), 'tag': bdm.get('tag')})


def _image_props_override(instance):
    value = _get(instance, 'image_props_override')
    if isinstance(value, str):
        value = json.loads(value) if value else None
    return dict(value) if value else None


def instance_data(context, instance, bdms=None):
    """The InstancePayload fields (plus our ``image_props_override``)."""
    sysmeta = _get(instance, 'system_metadata') or {}
    user = getattr(context, 'user_id', None)
    project = getattr(context, 'project_id', None)
    return {
        'uuid': _get(instance, 'uuid'), 'user_id': _get(instance, 'user_id'),
        'tenant_id': _get(instance, 'project_id'),
        'reservation_id': _get(instance, 'reservation_id'),
        'display_name': _get(instance, 'display_name'),
        'display_description': _get(instance, 'display_description'),
        'host_name': _get(instance, 'hostname'), 'host': _get(instance, 'host'),
        'node': _get(instance, 'node'), 'os_type': sysmeta.get('image_os_type'),
        'architecture': sysmeta.get('image_hw_architecture') or sysmeta.get(
            'image_architecture'),
        'availability_zone': _get(instance, 'availability_zone'),
        'flavor': flavor(_get(instance, 'flavor')),
        'image_uuid': _get(instance, 'image_ref') or '',
        'key_name': _get(instance, 'key_name'),
        'kernel_id': _get(instance, 'kernel_id') or '',
        'ramdisk_id': _get(instance, 'ramdisk_id') or '',
        'created_at': isotime(_get(instance, 'created_at')),
        'launched_at': isotime(_get(instance, 'launched_at')),
        'terminated_at': isotime(_get(instance, 'terminated_at')),
        'deleted_at': isotime(_get(instance, 'deleted_at')),
        'updated_at': isotime(_get(instance, 'updated_at')),
        'state': _get(instance, 'vm_state'),
        'power_state': power_state.STATE_MAP.get(_get(instance, 'power_state') or 0),
        'task_state': _get(instance, 'task_state'), 'progress': 0,
        # No Neutron here: the guests have no ports to report.
        'ip_addresses': [],
        'block_devices': None if bdms is None else [
            block_device(b) for b in bdms if b.get('volume_id')],
        'metadata': dict(_get(instance, 'metadata') or {}),
        'locked': bool(_get(instance, 'locked')), 'auto_disk_config': 'MANUAL',
        # As upstream: periodic tasks (no user) carry no request id.
        'request_id': context.request_id if user and project else None,
        'action_initiator_user': user, 'action_initiator_project': project,
        # Our extension: the boot-time image property overrides of the server.
        'image_props_override': _image_props_override(instance),
    }


def _keypairs(instance):
    raw = _get(instance, 'key_data')
    if not raw:
        return []
    key = json.loads(raw) if isinstance(raw, str) else raw
    key_type = key.get('type') or 'ssh'
    try:
        fingerprint = crypto.fingerprint(key_type, key.get('public_key') or '')
    except Exception:  # noqa: BLE001 - a key we cannot parse still has a name.
        fingerprint = None
    return [versioned('KeypairPayload', {
        'user_id': _get(instance, 'user_id'), 'name': key.get('name'),
        'public_key': key.get('public_key'), 'fingerprint': fingerprint,
        'type': key_type})]


def _trusted_certs(instance):
    value = (_get(instance, 'system_metadata') or {}).get('trusted_certs')
    return json.loads(value) if value else None


def action(context, instance, kind='InstanceActionPayload', fault=None, bdms=None,
           **extra):
    """An instance action payload of class ``kind``; ``extra`` adds its own fields."""
    data = instance_data(context, instance, bdms)
    data['fault'] = exception(fault) if fault is not None else None
    if kind == 'InstanceCreatePayload':
        data.update(keypairs=_keypairs(instance), tags=list(_get(instance, 'tags') or []),
                    trusted_image_certificates=_trusted_certs(instance),
                    instance_name=_get(instance, 'name'))
    elif kind == 'InstanceActionRebuildPayload':
        data['trusted_image_certificates'] = _trusted_certs(instance)
    data.update(extra)
    return versioned(kind, data)


def legacy(context, instance, fault=None, **extra):
    """The unversioned (legacy) payload: a flat dict, as upstream's info_from_instance."""
    flv = _get(instance, 'flavor') or {}
    sysmeta = _get(instance, 'system_metadata') or {}
    payload = {
        'tenant_id': _get(instance, 'project_id'), 'user_id': _get(instance, 'user_id'),
        'instance_id': _get(instance, 'uuid'), 'display_name': _get(instance, 'display_name'),
        'reservation_id': _get(instance, 'reservation_id'),
        'hostname': _get(instance, 'hostname'), 'host': _get(instance, 'host'),
        'node': _get(instance, 'node'), 'availability_zone': _get(instance, 'availability_zone'),
        'instance_type': _get(flv, 'name'), 'instance_flavor_id': _get(flv, 'flavorid'),
        'memory_mb': _get(instance, 'memory_mb'), 'vcpus': _get(instance, 'vcpus'),
        'root_gb': _get(instance, 'root_gb'), 'ephemeral_gb': _get(instance, 'ephemeral_gb'),
        'disk_gb': (_get(instance, 'root_gb') or 0) + (_get(instance, 'ephemeral_gb') or 0),
        'image_ref_url': _get(instance, 'image_ref'),
        'state': _get(instance, 'vm_state'), 'state_description': _get(instance, 'task_state')
        or '', 'power_state': _get(instance, 'power_state'),
        'created_at': isotime(_get(instance, 'created_at')),
        'launched_at': isotime(_get(instance, 'launched_at')) or '',
        'terminated_at': isotime(_get(instance, 'terminated_at')) or '',
        'deleted_at': isotime(_get(instance, 'deleted_at')) or '',
        'metadata': dict(_get(instance, 'metadata') or {}),
        'image_meta': {k[len('image_'):]: v for k, v in sysmeta.items()
                       if k.startswith('image_')},
        'image_props_override': _image_props_override(instance),
    }
    if fault is not None:
        payload['message'] = (fault.format_message() if hasattr(fault, 'format_message')
                              else str(fault))
        payload['exception'] = fault.__class__.__name__
    payload.update(extra)
    return payload
