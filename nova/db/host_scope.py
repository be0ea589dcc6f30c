"""Lookups of the instance (and so the host) a row belongs to, for host-scoped access."""

import functools
import json

import sqlalchemy as sa

from nova.db import migrations_db, models, statements, store

_T = {t.name: t for t in models.BASE.metadata.sorted_tables}
INSTANCES = _T['instances']
BDMS = _T['block_device_mapping']
ACTIONS = _T['instance_actions']
EVENTS = _T['instance_actions_events']
MIGRATIONS = migrations_db.MIGRATIONS


class HostScopeDB(store.DBStore):
    """Which instance, host and project a row belongs to (read-only)."""

    def instance_owner(self, uuid):
        """{'host', 'shelved_host', 'project_id'} of an instance (deleted ones too), or None."""
        with self.engine.connect() as conn:
            row = conn.execute(statements.select_by(
                INSTANCES, ('uuid',), columns=('host', 'project_id', 'system_metadata')),
                statements.params({'uuid': uuid})).first()
        if row is None:
            return None
        sysmeta = json.loads(row.system_metadata or '{}')
        return {'host': row.host, 'project_id': row.project_id,
                'shelved_host': sysmeta.get('shelved_host')}

    def migration_hosts(self, instance_uuid):
        """Source and destination hosts of the instance's migrations still in progress."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(
                MIGRATIONS.c.source_compute, MIGRATIONS.c.dest_compute).where(
                MIGRATIONS.c.instance_uuid == instance_uuid, MIGRATIONS.c.deleted == 0,
                MIGRATIONS.c.status.in_(migrations_db.IN_PROGRESS)))
            return {host for row in rows for host in row if host}

    def bdm_owner(self, bdm_uuid):
        """instance_owner() of the mapping's instance, plus its 'uuid'; None if no mapping."""
        return self._owner('bdm', bdm_uuid)

    def action_owner(self, action_id):
        return self._owner('action', action_id)

    def event_owner(self, event_id):
        return self._owner('event', event_id)

    def _owner(self, kind, key):
        """One query from a row (a mapping, action or event) to its instance's owner."""
        with self.engine.connect() as conn:
            row = conn.execute(_owner_query(kind), {'key': key}).first()
        if row is None:
            return None
        sysmeta = json.loads(row.system_metadata or '{}')
        return {'uuid': row.uuid, 'host': row.host, 'project_id': row.project_id,
                'shelved_host': sysmeta.get('shelved_host')}


@functools.cache
def _owner_query(kind):
    """The owner of the instance of the row whose key is the 'key' parameter."""
    if kind == 'bdm':
        joined, where = BDMS.join(INSTANCES, BDMS.c.instance_uuid == INSTANCES.c.uuid), BDMS.c.uuid
    elif kind == 'action':
        joined = ACTIONS.join(INSTANCES, ACTIONS.c.instance_uuid == INSTANCES.c.uuid)
        where = ACTIONS.c.id
    else:
        joined = EVENTS.join(ACTIONS, EVENTS.c.action_id == ACTIONS.c.id).join(
            INSTANCES, ACTIONS.c.instance_uuid == INSTANCES.c.uuid)
        where = EVENTS.c.id
    return sa.select(INSTANCES.c.uuid, INSTANCES.c.host, INSTANCES.c.project_id,
                     INSTANCES.c.system_metadata).select_from(joined).where(
        where == sa.bindparam('key'))
