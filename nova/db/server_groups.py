"""Server groups (instance groups): their policy, rules and live members."""

import json

import sqlalchemy as sa
from oslo_utils import uuidutils

from nova import exception
from nova.db import models, store

GROUPS = models.InstanceGroupRecord.__table__
POLICIES = models.InstanceGroupPolicyRecord.__table__
MEMBERS = models.InstanceGroupMemberRecord.__table__
_INSTANCES = models.InstanceRecord.__table__


class ServerGroupsDB(store.DBStore):
    """Groups are returned as dicts with policy, rules and live members."""

    def server_group_create(self, values, policy, rules=None):
        values = dict(values, uuid=values.get('uuid') or uuidutils.generate_uuid(),
                      created_at=store.now())
        with self.writer.begin() as conn:
            group_id = conn.execute(GROUPS.insert().values(**values)).inserted_primary_key[0]
            conn.execute(POLICIES.insert().values(group_id=group_id, policy=policy,
                                                  rules=json.dumps(rules or {})))
        return self.server_group_get(values['uuid'])

    def server_group_get(self, uuid, project_id=None):
        where = [GROUPS.c.uuid == uuid]
        if project_id is not None:
            where.append(GROUPS.c.project_id == project_id)
        groups = self._server_groups(sa.and_(*where))
        if not groups:
            raise exception.InstanceGroupNotFound(group_uuid=uuid)
        return groups[0]

    def server_group_get_all(self, project_id=None, limit=None, offset=None):
        """Oldest first, as upstream lists them; None project means every project."""
        where = GROUPS.c.project_id == project_id if project_id is not None else sa.true()
        return self._server_groups(where, limit=limit, offset=offset)

    def _server_groups(self, where, limit=None, offset=None):
        query = sa.select(GROUPS, POLICIES.c.policy, POLICIES.c.rules).join(
            POLICIES, POLICIES.c.group_id == GROUPS.c.id).where(where).order_by(GROUPS.c.id)
        if offset:
            query = query.offset(offset)
        if limit is not None:
            query = query.limit(limit)
        with self.engine.connect() as conn:
            groups = [dict(r._mapping) for r in conn.execute(query)]
            members = self._live_members(conn, [g['id'] for g in groups])
        for group in groups:
            group['rules'] = json.loads(group['rules'] or '{}')
            group['members'] = members.get(group['id'], [])
        return groups

    @staticmethod
    def _live_members(conn, group_ids):
        """Members whose instance is not deleted, one query for the whole page."""
        if not group_ids:
            return {}
        rows = conn.execute(sa.select(MEMBERS.c.group_id, MEMBERS.c.instance_uuid).join(
            _INSTANCES, _INSTANCES.c.uuid == MEMBERS.c.instance_uuid).where(
            MEMBERS.c.group_id.in_(group_ids), _INSTANCES.c.deleted == 0).order_by(
            MEMBERS.c.id))
        result = {}
        for row in rows:
            result.setdefault(row.group_id, []).append(row.instance_uuid)
        return result

    def server_group_delete(self, uuid):
        with self.writer.begin() as conn:
            group_id = conn.execute(sa.select(GROUPS.c.id).where(
                GROUPS.c.uuid == uuid)).scalar()
            if group_id is None:
                raise exception.InstanceGroupNotFound(group_uuid=uuid)
            # No reliance on ON DELETE CASCADE: SQLite enforces it only with a pragma.
            conn.execute(MEMBERS.delete().where(MEMBERS.c.group_id == group_id))
            conn.execute(POLICIES.delete().where(POLICIES.c.group_id == group_id))
            conn.execute(GROUPS.delete().where(GROUPS.c.id == group_id))

    def server_group_add_members(self, uuid, instance_uuids):
        with self.writer.begin() as conn:
            group_id = conn.execute(sa.select(GROUPS.c.id).where(
                GROUPS.c.uuid == uuid)).scalar()
            if group_id is None:
                raise exception.InstanceGroupNotFound(group_uuid=uuid)
            for instance_uuid in instance_uuids:
                conn.execute(MEMBERS.insert().values(group_id=group_id,
                                                     instance_uuid=instance_uuid,
                                                     created_at=store.now()))

    def server_group_remove_instance(self, instance_uuid):
        with self.writer.begin() as conn:
            conn.execute(MEMBERS.delete().where(MEMBERS.c.instance_uuid == instance_uuid))

    def server_groups_by_instance(self, instance_uuids):
        """{instance uuid: [group uuid, ...]} for a page of instances, one query."""
        if not instance_uuids:
            return {}
        query = sa.select(MEMBERS.c.instance_uuid, GROUPS.c.uuid).join(
            GROUPS, GROUPS.c.id == MEMBERS.c.group_id).where(
            MEMBERS.c.instance_uuid.in_(list(instance_uuids))).order_by(MEMBERS.c.id)
        result = {}
        with self.engine.connect() as conn:
            for row in conn.execute(query):
                result.setdefault(row.instance_uuid, []).append(row.uuid)
        return result

    def server_group_member_hosts(self, uuid, exclude_instance=None):
        """Hosts of the group's live, placed members, with how many members each has."""
        query = sa.select(_INSTANCES.c.host, sa.func.count()).select_from(MEMBERS).join(
            GROUPS, GROUPS.c.id == MEMBERS.c.group_id).join(
            _INSTANCES, _INSTANCES.c.uuid == MEMBERS.c.instance_uuid).where(
            GROUPS.c.uuid == uuid, _INSTANCES.c.deleted == 0,
            _INSTANCES.c.host.is_not(None)).group_by(_INSTANCES.c.host)
        if exclude_instance is not None:
            query = query.where(_INSTANCES.c.uuid != exclude_instance)
        with self.engine.connect() as conn:
            return {row[0]: row[1] for row in conn.execute(query)}

    def server_group_count(self, project_id, user_id=None):
        """Groups a project (and optionally a user) owns: the server_groups quota usage."""
        query = sa.select(sa.func.count()).select_from(GROUPS).where(
            GROUPS.c.project_id == project_id)
        if user_id is not None:
            query = query.where(GROUPS.c.user_id == user_id)
        with self.engine.connect() as conn:
            return conn.execute(query).scalar()

    def server_group_member_count(self, uuid):
        """Live members of a group: the server_group_members quota usage."""
        query = sa.select(sa.func.count()).select_from(MEMBERS).join(
            GROUPS, GROUPS.c.id == MEMBERS.c.group_id).join(
            _INSTANCES, _INSTANCES.c.uuid == MEMBERS.c.instance_uuid).where(
            GROUPS.c.uuid == uuid, _INSTANCES.c.deleted == 0)
        with self.engine.connect() as conn:
            return conn.execute(query).scalar()
