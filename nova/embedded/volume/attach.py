"""Attachment state machine of the embedded volume service (Cinder's new attach flow, 3.27+)."""

import uuid

from nova.embedded.volume import errors, store
from nova.embedded.volume.manager import ATTACH_DRIVEN
from nova.embedded.volume.store import ATTACHMENTS, VOLUMES

# Volume (status, attach_status) by the most advanced attachment state.
_VOLUME_STATE = (
    ('attached', ('in-use', 'attached')),
    ('attaching', ('attaching', 'attaching')),
    ('reserved', ('reserved', 'reserved')),
)
DRIVER_VOLUME_TYPE = 'file'


def get_attachment(manager, caller, attachment_id):
    attachment = manager.store.get(ATTACHMENTS, attachment_id)
    if attachment is None or not (caller.is_admin or
                                  attachment['project_id'] ==
                                  caller.project_id):
        raise errors.NotFound('Volume attachment could not be found with '
                              'filter: attachment_id = %s.' % attachment_id)
    return attachment


def settle_attach_status(manager, volume_id):
    """Derive the volume's status from its attachments.

    A volume in another status (error, extending, ...) is left alone.
    Call with the store lock held.
    """
    volume = manager.store.get(VOLUMES, volume_id)
    if volume is None or volume['status'] not in ATTACH_DRIVEN:
        return volume
    attachments = manager.attachments_of(volume_id)
    present = {a['status'] for a in attachments}
    if volume.get('multiattach'):
        # Another server joining takes the volume back through reserved and
        # attaching until its host connects it, as Cinder shows it; a
        # server's own extra attachment (a move) leaves it in-use.
        joined = {a['instance_uuid'] for a in attachments
                  if a['status'] == 'attached'}
        joining = {a['status'] for a in attachments
                   if a['instance_uuid'] not in joined}
        if joining - {'attached'}:
            present = joining
    status, attach_status = 'available', 'detached'
    for attachment_status, state in _VOLUME_STATE:
        if attachment_status in present:
            status, attach_status = state
            break
    if (volume['status'], volume['attach_status']) == (status, attach_status):
        return volume
    return manager.store.update(VOLUMES, volume_id, status=status,
                                attach_status=attach_status)


def connection_info(manager, volume, attachment):
    """What the compute host needs to open the volume: its file."""
    return {
        'driver_volume_type': DRIVER_VOLUME_TYPE,
        'data': {
            'device_path': manager.store.volume_path(volume['id']),
            'format': volume['format'],
            'name': 'volume-' + volume['id'],
            'volume_id': volume['id'],
            'attachment_id': attachment['id'],
            'access_mode': attachment['attach_mode'],
            'encrypted': False,
            'qos_specs': None,
        },
    }


def _connect(manager, volume, attachment, connector):
    changes = {
        'connector': connector,
        'connection_info': connection_info(manager, volume, attachment),
        'mountpoint': connector.get('mountpoint') or attachment['mountpoint'],
        'attached_host': connector.get('host') or attachment['attached_host'],
    }
    # A completed attachment being re-connected (live migration) stays
    # attached; otherwise it is now waiting for os-complete.
    if attachment['status'] != 'attached':
        changes['status'] = 'attaching'
    return manager.store.update(ATTACHMENTS, attachment['id'], **changes)


def create(manager, caller, volume_id, instance_uuid, connector=None,
           mode=None):
    """Reserve the volume for an instance; connect it too with a connector."""
    with manager.store.lock:
        volume = manager.get_volume(caller, volume_id)
        existing = manager.attachments_of(volume_id)
        if volume['status'] != 'available':
            # Like Cinder: one more attachment for an instance that already
            # has one (live migration, rebuild) is allowed, and any number
            # for a multiattach volume; nothing else.
            same_instance = any(a['instance_uuid'] == instance_uuid
                                for a in existing)
            if not ((same_instance or volume.get('multiattach')) and
                    volume['status'] in ('reserved', 'attaching', 'in-use')):
                raise errors.BadRequest(
                    'Invalid volume: Volume %s status must be available to '
                    'reserve, but the status is %s.'
                    % (volume_id, volume['status']))
        attachment = manager.store.put(ATTACHMENTS, {
            'id': str(uuid.uuid4()), 'volume_id': volume_id,
            'instance_uuid': instance_uuid,
            'project_id': volume['project_id'], 'status': 'reserved',
            'attach_mode': mode or (connector or {}).get('mode') or 'rw',
            'connector': None, 'connection_info': None, 'mountpoint': None,
            'attached_host': None, 'attach_time': None, 'detach_time': None,
            'created_at': store.now(), 'updated_at': None,
        })
        if connector:
            attachment = _connect(manager, volume, attachment, connector)
        settle_attach_status(manager, volume_id)
        return attachment


def update(manager, caller, attachment_id, connector):
    """Record the host's connector and hand back the connection info."""
    with manager.store.lock:
        attachment = get_attachment(manager, caller, attachment_id)
        volume = manager.store.get(VOLUMES, attachment['volume_id'])
        if volume['status'] not in ('reserved', 'attaching', 'in-use'):
            raise errors.BadRequest('Invalid volume: Volume %s status must be '
                                    'reserved, attaching or in-use to connect '
                                    'it, but it is %s.'
                                    % (volume['id'], volume['status']))
        attachment = _connect(manager, volume, attachment, connector)
        settle_attach_status(manager, volume['id'])
        return attachment


def complete(manager, caller, attachment_id):
    """The host connected the volume: attachment attached, volume in-use."""
    with manager.store.lock:
        attachment = get_attachment(manager, caller, attachment_id)
        if attachment['status'] != 'attached':
            attachment = manager.store.update(
                ATTACHMENTS, attachment_id, status='attached',
                attach_time=store.now())
        settle_attach_status(manager, attachment['volume_id'])
        return attachment


def delete(manager, caller, attachment_id):
    """Drop an attachment; returns the volume's remaining attachments."""
    with manager.store.lock:
        attachment = get_attachment(manager, caller, attachment_id)
        manager.store.remove(ATTACHMENTS, attachment_id)
        settle_attach_status(manager, attachment['volume_id'])
        return manager.attachments_of(attachment['volume_id'])
