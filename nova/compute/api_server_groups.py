"""Server groups in the compute API: create/list/show/delete and the group scheduler hint."""

from oslo_utils import uuidutils

from nova import exception

POLICIES = ('affinity', 'anti-affinity', 'soft-affinity', 'soft-anti-affinity')


class ServerGroupsAPI:
    """Server groups, their quotas and the 'group' scheduler hint."""

    def __init__(self, db, quota):
        self._db = db
        self._quota = quota

    def server_group_create(self, context, name, policy, rules=None):
        rules = rules or {}
        if policy != 'anti-affinity' and rules:
            raise exception.Invalid(reason='Only anti-affinity policy supports rules.')
        try:
            self._quota.check_deltas(context, {'server_groups': 1}, context.project_id,
                                     user_id=context.user_id)
        except exception.OverQuota:
            raise exception.ServerGroupLimitExceeded() from None
        return self._db.server_group_create(
            {'name': name, 'project_id': context.project_id, 'user_id': context.user_id},
            policy, rules)

    def server_group_get(self, context, group_uuid):
        """Any project's group: the handler's policy check decides who may see it."""
        return self._db.server_group_get(group_uuid)

    def server_group_list(self, context, all_projects=False, limit=None, offset=None):
        project = None if all_projects else context.project_id
        return self._db.server_group_get_all(project, limit=limit, offset=offset)

    def server_group_delete(self, context, group):
        self._db.server_group_delete(group['uuid'])

    def server_groups_of(self, instance_uuids):
        """{instance uuid: [group uuid]} for the server view (2.71)."""
        return self._db.server_groups_by_instance(instance_uuids)

    def group_from_hints(self, context, hints):
        """The group named by the 'group' scheduler hint (uuid, or name in the project)."""
        hint = (hints or {}).get('group')
        if not hint:
            return None
        if uuidutils.is_uuid_like(hint):
            group = self._db.server_group_get(hint)
            # Another project's group is not there for this caller (not even
            # as a different error): ids of other projects tell nothing.
            if group['project_id'] != context.project_id and not context.is_admin:
                raise exception.InstanceGroupNotFound(group_uuid=hint)
            return group
        for group in self._db.server_group_get_all(context.project_id):
            if group['name'] == hint:
                return group
        raise exception.InstanceGroupNotFound(group_uuid=hint)

    def check_group_room(self, context, group, count):
        """403 unless the group can take ``count`` more members (server_group_members)."""
        try:
            self._quota.check_deltas(context, {'server_group_members': count},
                                     group['project_id'] or context.project_id,
                                     group_uuid=group['uuid'])
        except exception.OverQuota:
            raise exception.GroupMemberLimitExceeded() from None
        return group
