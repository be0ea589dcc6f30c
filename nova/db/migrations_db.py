"""The migrations table (resize, cold and live migration): create, update, list."""

import json

import sqlalchemy as sa
from oslo_utils import uuidutils

from nova import exception
from nova.db import models, store

MIGRATIONS = models.MigrationRecord.__table__
_INSTANCES = models.InstanceRecord.__table__
# Statuses of a migration that is still under way (upstream's "in progress").
IN_PROGRESS = ('queued', 'pre-migrating', 'migrating', 'post-migrating', 'finished',
               'confirming', 'reverting', 'running', 'preparing')


def _decode(row):
    values = dict(row._mapping)
    for col in ('old_flavor', 'new_flavor'):
        values[col] = json.loads(values[col]) if values.get(col) else None
    return values


class MigrationsDB(store.DBStore):
    """Create, update and list migration rows; one short transaction each."""

    def migration_create(self, values):
        values = dict(values)
        for col in ('old_flavor', 'new_flavor'):
            if values.get(col) is not None and not isinstance(values[col], str):
                values[col] = json.dumps(values[col])
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.setdefault('created_at', store.now())
        with self.writer.begin() as conn:
            mid = conn.execute(MIGRATIONS.insert().values(**values)).inserted_primary_key[0]
            return _decode(conn.execute(sa.select(MIGRATIONS).where(
                MIGRATIONS.c.id == mid)).first())

    def migration_update(self, migration_id, values, expected_status=None):
        """Update one row; with ``expected_status`` only while the status is one of those."""
        values = dict(values, updated_at=store.now())
        where = [MIGRATIONS.c.id == migration_id]
        if expected_status is not None:
            where.append(MIGRATIONS.c.status.in_(list(expected_status)))
        with self.writer.begin() as conn:
            count = conn.execute(MIGRATIONS.update().where(*where).values(**values)).rowcount
            row = conn.execute(sa.select(MIGRATIONS).where(
                MIGRATIONS.c.id == migration_id)).first()
        if row is None:
            raise exception.NotFound('Migration %s could not be found.' % migration_id)
        if not count:
            raise exception.Conflict('Migration %s is %s, not %s.' % (
                migration_id, row.status, '/'.join(expected_status)))
        return _decode(row)

    def migration_get_by_instance_and_status(self, instance_uuid, statuses):
        """The newest migration of an instance in one of ``statuses``, or None."""
        query = sa.select(MIGRATIONS).where(
            MIGRATIONS.c.instance_uuid == instance_uuid, MIGRATIONS.c.deleted == 0,
            MIGRATIONS.c.status.in_(list(statuses))).order_by(MIGRATIONS.c.id.desc())
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return _decode(row) if row is not None else None

    def migrations_in_progress(self, host):
        """Migrations still under way that start or end on ``host`` (usage recount)."""
        query = sa.select(MIGRATIONS).where(
            sa.or_(MIGRATIONS.c.source_compute == host, MIGRATIONS.c.dest_compute == host),
            MIGRATIONS.c.deleted == 0, MIGRATIONS.c.status.in_(IN_PROGRESS))
        with self.engine.connect() as conn:
            return [_decode(r) for r in conn.execute(query)]

    def evacuations_from(self, host, statuses):
        """Evacuations away from ``host`` in one of ``statuses`` (its clean-up)."""
        query = sa.select(MIGRATIONS).where(
            MIGRATIONS.c.source_compute == host, MIGRATIONS.c.migration_type == 'evacuation',
            MIGRATIONS.c.deleted == 0, MIGRATIONS.c.status.in_(list(statuses)))
        with self.engine.connect() as conn:
            return [_decode(r) for r in conn.execute(query)]

    def migrations_finished_before(self, host, cutoff):
        """'finished' resizes on ``host`` last updated before ``cutoff`` (auto-confirm)."""
        query = sa.select(MIGRATIONS).where(
            MIGRATIONS.c.dest_compute == host, MIGRATIONS.c.status == 'finished',
            MIGRATIONS.c.deleted == 0, MIGRATIONS.c.updated_at <= cutoff)
        with self.engine.connect() as conn:
            return [_decode(r) for r in conn.execute(query)]

    def migration_list(self, filters=None, limit=None, marker=None):
        """Migrations newest first (created_at, id), as upstream lists them.

        ``filters``: instance_uuid, status, migration_type, host (source or
        destination), source_compute, hidden, user_id, project_id,
        changes-since / changes-before (updated_at, else created_at).
        ``marker`` is a migration uuid; unknown markers raise MarkerNotFound.
        """
        filters = filters or {}
        query = sa.select(MIGRATIONS).where(MIGRATIONS.c.deleted == 0)
        for key in ('instance_uuid', 'status', 'migration_type', 'source_compute',
                    'user_id', 'project_id'):
            if filters.get(key) is not None:
                query = query.where(MIGRATIONS.c[key] == filters[key])
        if filters.get('host') is not None:
            query = query.where(sa.or_(MIGRATIONS.c.source_compute == filters['host'],
                                       MIGRATIONS.c.dest_compute == filters['host']))
        if filters.get('hidden') is not None:
            query = query.where(MIGRATIONS.c.hidden == bool(filters['hidden']))
        changed = sa.func.coalesce(MIGRATIONS.c.updated_at, MIGRATIONS.c.created_at)
        if filters.get('changes-since') is not None:
            query = query.where(changed >= filters['changes-since'])
        if filters.get('changes-before') is not None:
            query = query.where(changed <= filters['changes-before'])
        with self.engine.connect() as conn:
            if marker is not None:
                mark = conn.execute(sa.select(MIGRATIONS.c.id, MIGRATIONS.c.created_at).where(
                    MIGRATIONS.c.uuid == marker)).first()
                if mark is None:
                    raise exception.MarkerNotFound(marker=marker)
                query = query.where(sa.or_(
                    MIGRATIONS.c.created_at < mark.created_at,
                    sa.and_(MIGRATIONS.c.created_at == mark.created_at,
                            MIGRATIONS.c.id < mark.id)))
            query = query.order_by(MIGRATIONS.c.created_at.desc(), MIGRATIONS.c.id.desc())
            if limit is not None:
                query = query.limit(limit)
            return [_decode(r) for r in conn.execute(query)]

    def migration_hard_delete_for_instance(self, conn, instance_uuid):
        conn.execute(MIGRATIONS.delete().where(MIGRATIONS.c.instance_uuid == instance_uuid))

    def instances_by_uuid_any(self, uuids):
        """{uuid: row} including deleted instances (migrations outlive their servers)."""
        if not uuids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(_INSTANCES.c.uuid, _INSTANCES.c.user_id,
                                          _INSTANCES.c.project_id).where(
                _INSTANCES.c.uuid.in_(list(uuids))))
            return {r.uuid: dict(r._mapping) for r in rows}

    def migration_get(self, migration_id):
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(MIGRATIONS).where(
                MIGRATIONS.c.id == migration_id)).first()
        if row is None:
            raise exception.NotFound('Migration %s could not be found.' % migration_id)
        return _decode(row)
