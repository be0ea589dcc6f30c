"""Policies of the server actions (POST /servers/{id}/action) and sub-resources."""

from oslo_policy import policy

from nova.policies import base


def _rule(name, check, description, method='POST', path='/servers/{server_id}/action'):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'method': method, 'path': path}], scope_types=['project'])


# The rule names, for the handlers that check them.
REBOOT = 'os_compute_api:servers:reboot'
STOP = 'os_compute_api:servers:stop'
START = 'os_compute_api:servers:start'
PAUSE = 'os_compute_api:os-pause-server:pause'
UNPAUSE = 'os_compute_api:os-pause-server:unpause'
SUSPEND = 'os_compute_api:os-suspend-server:suspend'
RESUME = 'os_compute_api:os-suspend-server:resume'
LOCK = 'os_compute_api:os-lock-server:lock'
UNLOCK = 'os_compute_api:os-lock-server:unlock'
UNLOCK_OVERRIDE = 'os_compute_api:os-lock-server:unlock:unlock_override'
SECURITY_GROUP_ADD = 'os_compute_api:os-security-groups:add'
SECURITY_GROUP_REMOVE = 'os_compute_api:os-security-groups:remove'
CREATE_IMAGE = 'os_compute_api:servers:create_image'
REBUILD = 'os_compute_api:servers:rebuild'
CONSOLE_OUTPUT = 'os_compute_api:os-console-output'
RESCUE = 'os_compute_api:os-rescue'
RESCUE_IMAGE_PROPS_OVERRIDE = 'os_compute_api:os-rescue:image_props_override'
UNRESCUE = 'os_compute_api:os-unrescue'
METADATA_INDEX = 'os_compute_api:server-metadata:index'
METADATA_SHOW = 'os_compute_api:server-metadata:show'
METADATA_CREATE = 'os_compute_api:server-metadata:create'
METADATA_UPDATE_ALL = 'os_compute_api:server-metadata:update_all'
METADATA_UPDATE = 'os_compute_api:server-metadata:update'
METADATA_DELETE = 'os_compute_api:server-metadata:delete'
TAGS_INDEX = 'os_compute_api:os-server-tags:index'
TAGS_SHOW = 'os_compute_api:os-server-tags:show'
TAGS_UPDATE = 'os_compute_api:os-server-tags:update'
TAGS_UPDATE_ALL = 'os_compute_api:os-server-tags:update_all'
TAGS_DELETE = 'os_compute_api:os-server-tags:delete'
TAGS_DELETE_ALL = 'os_compute_api:os-server-tags:delete_all'
VOLUME_ATTACHMENTS_INDEX = 'os_compute_api:os-volumes-attachments:index'
VOLUME_ATTACHMENTS_SHOW = 'os_compute_api:os-volumes-attachments:show'
VOLUME_ATTACHMENTS_CREATE = 'os_compute_api:os-volumes-attachments:create'
VOLUME_ATTACHMENTS_UPDATE = 'os_compute_api:os-volumes-attachments:update'
VOLUME_ATTACHMENTS_DELETE = 'os_compute_api:os-volumes-attachments:delete'
VOLUME_ATTACHMENTS_SWAP = 'os_compute_api:os-volumes-attachments:swap'
INSTANCE_ACTIONS_LIST = 'os_compute_api:os-instance-actions:list'
INSTANCE_ACTIONS_SHOW = 'os_compute_api:os-instance-actions:show'
INSTANCE_ACTIONS_EVENTS = 'os_compute_api:os-instance-actions:events'
INSTANCE_ACTIONS_EVENT_DETAILS = 'os_compute_api:os-instance-actions:events:details'

MEMBER = base.PROJECT_MEMBER_OR_ADMIN
READER = base.PROJECT_READER_OR_ADMIN

rules = [
    _rule(REBOOT, MEMBER, 'Reboot a server (reboot)'),
    _rule(STOP, MEMBER, 'Stop a server (os-stop)'),
    _rule(START, MEMBER, 'Start a server (os-start)'),
    _rule(PAUSE, MEMBER, 'Pause a server (pause)'),
    _rule(UNPAUSE, MEMBER, 'Unpause a server (unpause)'),
    _rule(SUSPEND, MEMBER, 'Suspend a server (suspend)'),
    _rule(RESUME, MEMBER, 'Resume a server (resume)'),
    _rule(LOCK, MEMBER, 'Lock a server (lock)'),
    _rule(UNLOCK, MEMBER, 'Unlock a server (unlock)'),
    _rule(UNLOCK_OVERRIDE, base.ADMIN,
          'Unlock a server locked by an administrator'),
    _rule(SECURITY_GROUP_ADD, MEMBER,
          'Add a security group to a server (addSecurityGroup)'),
    _rule(SECURITY_GROUP_REMOVE, MEMBER,
          'Remove a security group from a server (removeSecurityGroup)'),
    _rule(CREATE_IMAGE, MEMBER, 'Snapshot a server (createImage)'),
    _rule(REBUILD, MEMBER, 'Rebuild a server (rebuild)'),
    _rule(CONSOLE_OUTPUT, MEMBER,
          'Show console output (os-getConsoleOutput)'),
    _rule(RESCUE, MEMBER, 'Rescue a server (rescue)'),
    # By default whoever may override at boot may override at rescue, so a
    # policy file restricting the boot rule restricts rescue too.
    _rule(RESCUE_IMAGE_PROPS_OVERRIDE,
          'rule:os_compute_api:servers:create:image_props_override',
          'Rescue a server with image_props_override (rescue, microversion 2.106)'),
    _rule(UNRESCUE, MEMBER, 'Unrescue a server (unrescue)'),
    _rule(METADATA_INDEX, READER, 'List server metadata', 'GET',
          '/servers/{server_id}/metadata'),
    _rule(METADATA_SHOW, READER, 'Show a server metadata item',
          'GET', '/servers/{server_id}/metadata/{key}'),
    _rule(METADATA_CREATE, MEMBER, 'Add server metadata', 'POST',
          '/servers/{server_id}/metadata'),
    _rule(METADATA_UPDATE_ALL, MEMBER, 'Replace server metadata',
          'PUT', '/servers/{server_id}/metadata'),
    _rule(METADATA_UPDATE, MEMBER, 'Set a server metadata item',
          'PUT', '/servers/{server_id}/metadata/{key}'),
    _rule(METADATA_DELETE, MEMBER, 'Delete a server metadata item',
          'DELETE', '/servers/{server_id}/metadata/{key}'),
    _rule(TAGS_INDEX, READER, 'List server tags', 'GET',
          '/servers/{server_id}/tags'),
    _rule(TAGS_SHOW, READER, 'Check a server tag', 'GET',
          '/servers/{server_id}/tags/{tag}'),
    _rule(TAGS_UPDATE, MEMBER, 'Add a server tag', 'PUT',
          '/servers/{server_id}/tags/{tag}'),
    _rule(TAGS_UPDATE_ALL, MEMBER, 'Replace server tags', 'PUT',
          '/servers/{server_id}/tags'),
    _rule(TAGS_DELETE, MEMBER, 'Delete a server tag', 'DELETE',
          '/servers/{server_id}/tags/{tag}'),
    _rule(TAGS_DELETE_ALL, MEMBER, 'Delete all server tags',
          'DELETE', '/servers/{server_id}/tags'),
    _rule(VOLUME_ATTACHMENTS_INDEX, READER, 'List volume attachments',
          'GET', '/servers/{server_id}/os-volume_attachments'),
    _rule(VOLUME_ATTACHMENTS_SHOW, READER, 'Show a volume attachment',
          'GET', '/servers/{server_id}/os-volume_attachments/{volume_id}'),
    _rule(VOLUME_ATTACHMENTS_CREATE, MEMBER, 'Attach a volume',
          'POST', '/servers/{server_id}/os-volume_attachments'),
    _rule(VOLUME_ATTACHMENTS_UPDATE, MEMBER,
          'Update a volume attachment (delete_on_termination, 2.85)', 'PUT',
          '/servers/{server_id}/os-volume_attachments/{volume_id}'),
    # Cinder's service user (or an administrator), whatever the server's project.
    _rule(VOLUME_ATTACHMENTS_SWAP, 'role:service or ' + base.ADMIN,
          'Swap the volume of an attachment (called by Cinder)', 'PUT',
          '/servers/{server_id}/os-volume_attachments/{volume_id}'),
    _rule(VOLUME_ATTACHMENTS_DELETE, MEMBER, 'Detach a volume',
          'DELETE', '/servers/{server_id}/os-volume_attachments/{volume_id}'),
    _rule(INSTANCE_ACTIONS_LIST, READER, 'List instance actions', 'GET',
          '/servers/{server_id}/os-instance-actions'),
    _rule(INSTANCE_ACTIONS_SHOW, READER, 'Show an instance action',
          'GET', '/servers/{server_id}/os-instance-actions/{request_id}'),
    _rule(INSTANCE_ACTIONS_EVENTS, base.ADMIN,
          'Show the events of an instance action', 'GET',
          '/servers/{server_id}/os-instance-actions/{request_id}'),
    _rule(INSTANCE_ACTIONS_EVENT_DETAILS, base.ADMIN,
          'Show the details of instance action events', 'GET',
          '/servers/{server_id}/os-instance-actions/{request_id}'),
]


def list_rules():
    return rules
