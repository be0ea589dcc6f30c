"""Policies of the server actions (POST /servers/{id}/action) and sub-resources."""

from oslo_policy import policy

from nova.policies import base


def _rule(name, check, description, method='POST', path='/servers/{server_id}/action'):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'method': method, 'path': path}], scope_types=['project'])


MEMBER = base.PROJECT_MEMBER_OR_ADMIN
READER = base.PROJECT_READER_OR_ADMIN

rules = [
    _rule('os_compute_api:servers:reboot', MEMBER, 'Reboot a server (reboot)'),
    _rule('os_compute_api:servers:stop', MEMBER, 'Stop a server (os-stop)'),
    _rule('os_compute_api:servers:start', MEMBER, 'Start a server (os-start)'),
    _rule('os_compute_api:os-pause-server:pause', MEMBER, 'Pause a server (pause)'),
    _rule('os_compute_api:os-pause-server:unpause', MEMBER, 'Unpause a server (unpause)'),
    _rule('os_compute_api:os-suspend-server:suspend', MEMBER, 'Suspend a server (suspend)'),
    _rule('os_compute_api:os-suspend-server:resume', MEMBER, 'Resume a server (resume)'),
    _rule('os_compute_api:os-lock-server:lock', MEMBER, 'Lock a server (lock)'),
    _rule('os_compute_api:os-lock-server:unlock', MEMBER, 'Unlock a server (unlock)'),
    _rule('os_compute_api:os-lock-server:unlock:unlock_override', base.ADMIN,
          'Unlock a server locked by an administrator'),
    _rule('os_compute_api:os-security-groups:add', MEMBER,
          'Add a security group to a server (addSecurityGroup)'),
    _rule('os_compute_api:os-security-groups:remove', MEMBER,
          'Remove a security group from a server (removeSecurityGroup)'),
    _rule('os_compute_api:servers:create_image', MEMBER, 'Snapshot a server (createImage)'),
    _rule('os_compute_api:servers:rebuild', MEMBER, 'Rebuild a server (rebuild)'),
    _rule('os_compute_api:os-console-output', MEMBER,
          'Show console output (os-getConsoleOutput)'),
    _rule('os_compute_api:os-rescue', MEMBER, 'Rescue a server (rescue)'),
    # By default whoever may override at boot may override at rescue, so a
    # policy file restricting the boot rule restricts rescue too.
    _rule('os_compute_api:os-rescue:image_props_override',
          'rule:os_compute_api:servers:create:image_props_override',
          'Rescue a server with image_props_override (rescue, microversion 2.106)'),
    _rule('os_compute_api:os-unrescue', MEMBER, 'Unrescue a server (unrescue)'),
    _rule('os_compute_api:server-metadata:index', READER, 'List server metadata', 'GET',
          '/servers/{server_id}/metadata'),
    _rule('os_compute_api:server-metadata:show', READER, 'Show a server metadata item',
          'GET', '/servers/{server_id}/metadata/{key}'),
    _rule('os_compute_api:server-metadata:create', MEMBER, 'Add server metadata', 'POST',
          '/servers/{server_id}/metadata'),
    _rule('os_compute_api:server-metadata:update_all', MEMBER, 'Replace server metadata',
          'PUT', '/servers/{server_id}/metadata'),
    _rule('os_compute_api:server-metadata:update', MEMBER, 'Set a server metadata item',
          'PUT', '/servers/{server_id}/metadata/{key}'),
    _rule('os_compute_api:server-metadata:delete', MEMBER, 'Delete a server metadata item',
          'DELETE', '/servers/{server_id}/metadata/{key}'),
    _rule('os_compute_api:os-server-tags:index', READER, 'List server tags', 'GET',
          '/servers/{server_id}/tags'),
    _rule('os_compute_api:os-server-tags:show', READER, 'Check a server tag', 'GET',
          '/servers/{server_id}/tags/{tag}'),
    _rule('os_compute_api:os-server-tags:update', MEMBER, 'Add a server tag', 'PUT',
          '/servers/{server_id}/tags/{tag}'),
    _rule('os_compute_api:os-server-tags:update_all', MEMBER, 'Replace server tags', 'PUT',
          '/servers/{server_id}/tags'),
    _rule('os_compute_api:os-server-tags:delete', MEMBER, 'Delete a server tag', 'DELETE',
          '/servers/{server_id}/tags/{tag}'),
    _rule('os_compute_api:os-server-tags:delete_all', MEMBER, 'Delete all server tags',
          'DELETE', '/servers/{server_id}/tags'),
    _rule('os_compute_api:os-volumes-attachments:index', READER, 'List volume attachments',
          'GET', '/servers/{server_id}/os-volume_attachments'),
    _rule('os_compute_api:os-volumes-attachments:show', READER, 'Show a volume attachment',
          'GET', '/servers/{server_id}/os-volume_attachments/{volume_id}'),
    _rule('os_compute_api:os-volumes-attachments:create', MEMBER, 'Attach a volume',
          'POST', '/servers/{server_id}/os-volume_attachments'),
    _rule('os_compute_api:os-volumes-attachments:update', MEMBER,
          'Update a volume attachment (delete_on_termination, 2.85)', 'PUT',
          '/servers/{server_id}/os-volume_attachments/{volume_id}'),
    _rule('os_compute_api:os-volumes-attachments:delete', MEMBER, 'Detach a volume',
          'DELETE', '/servers/{server_id}/os-volume_attachments/{volume_id}'),
    _rule('os_compute_api:os-instance-actions:list', READER, 'List instance actions', 'GET',
          '/servers/{server_id}/os-instance-actions'),
    _rule('os_compute_api:os-instance-actions:show', READER, 'Show an instance action',
          'GET', '/servers/{server_id}/os-instance-actions/{request_id}'),
    _rule('os_compute_api:os-instance-actions:events', base.ADMIN,
          'Show the events of an instance action', 'GET',
          '/servers/{server_id}/os-instance-actions/{request_id}'),
    _rule('os_compute_api:os-instance-actions:events:details', base.ADMIN,
          'Show the details of instance action events', 'GET',
          '/servers/{server_id}/os-instance-actions/{request_id}'),
]


def list_rules():
    return rules
