"""Host aggregates: their hosts, their metadata, and the zones it names."""

import sqlalchemy as sa
from oslo_utils import uuidutils

from nova import exception
from nova.db import models, store

AGGREGATES = models.AggregateRecord.__table__
AGG_HOSTS = models.AggregateHostRecord.__table__
AGG_META = models.AggregateMetadataRecord.__table__


class AggregatesDB(store.DBStore):
    """The aggregates, aggregate_hosts and aggregate_metadata tables."""

    def _aggregate_full(self, conn, row):
        agg = dict(row._mapping)
        agg['hosts'] = [r.host for r in conn.execute(sa.select(AGG_HOSTS.c.host).where(
            AGG_HOSTS.c.aggregate_id == agg['id']).order_by(AGG_HOSTS.c.id))]
        agg['metadata'] = {r.key: r.value for r in conn.execute(sa.select(AGG_META).where(
            AGG_META.c.aggregate_id == agg['id']).order_by(AGG_META.c.id))}
        return agg

    def _aggregate_row(self, conn, aggregate_id):
        col = AGGREGATES.c.uuid if uuidutils.is_uuid_like(str(aggregate_id)) else AGGREGATES.c.id
        if col is AGGREGATES.c.id and not str(aggregate_id).isdigit():
            raise exception.AggregateNotFound(aggregate_id=aggregate_id)
        row = conn.execute(sa.select(AGGREGATES).where(col == aggregate_id)).first()
        if row is None:
            raise exception.AggregateNotFound(aggregate_id=aggregate_id)
        return row

    def aggregate_create(self, name, metadata=None):
        with self.writer.begin() as conn:
            if conn.execute(sa.select(AGGREGATES.c.id).where(
                    AGGREGATES.c.name == name)).first():
                raise exception.AggregateNameExists(aggregate_name=name)
            agg_id = self._insert(conn, AGGREGATES, dict(name=name,
                                                         uuid=uuidutils.generate_uuid()))
            for key, value in (metadata or {}).items():
                self._insert(conn, AGG_META, dict(aggregate_id=agg_id, key=key, value=value))
            return self._aggregate_full(conn, self._aggregate_row(conn, agg_id))

    def aggregate_get(self, aggregate_id):
        with self.engine.connect() as conn:
            return self._aggregate_full(conn, self._aggregate_row(conn, aggregate_id))

    def aggregate_get_all(self):
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(AGGREGATES).order_by(AGGREGATES.c.id)).fetchall()
            return [self._aggregate_full(conn, r) for r in rows]

    def aggregate_update(self, aggregate_id, name=None):
        with self.writer.begin() as conn:
            row = self._aggregate_row(conn, aggregate_id)
            if name is not None and name != row.name:
                if conn.execute(sa.select(AGGREGATES.c.id).where(
                        AGGREGATES.c.name == name)).first():
                    raise exception.AggregateNameExists(aggregate_name=name)
                conn.execute(AGGREGATES.update().where(AGGREGATES.c.id == row.id)
                             .values(name=name, updated_at=store.now()))
            return self._aggregate_full(conn, self._aggregate_row(conn, row.id))

    def aggregate_destroy(self, aggregate_id):
        with self.writer.begin() as conn:
            row = self._aggregate_row(conn, aggregate_id)
            for table in (AGG_META, AGG_HOSTS):
                conn.execute(table.delete().where(table.c.aggregate_id == row.id))
            conn.execute(AGGREGATES.delete().where(AGGREGATES.c.id == row.id))

    def aggregate_host_add(self, aggregate_id, host):
        with self.writer.begin() as conn:
            row = self._aggregate_row(conn, aggregate_id)
            if conn.execute(sa.select(AGG_HOSTS.c.id).where(
                    AGG_HOSTS.c.aggregate_id == row.id, AGG_HOSTS.c.host == host)).first():
                raise exception.AggregateHostExists(aggregate_id=aggregate_id, host=host)
            self._insert(conn, AGG_HOSTS, dict(aggregate_id=row.id, host=host))
            return self._aggregate_full(conn, row)

    def aggregate_host_remove(self, aggregate_id, host):
        with self.writer.begin() as conn:
            row = self._aggregate_row(conn, aggregate_id)
            if not conn.execute(AGG_HOSTS.delete().where(
                    AGG_HOSTS.c.aggregate_id == row.id, AGG_HOSTS.c.host == host)).rowcount:
                raise exception.AggregateHostNotFound(aggregate_id=aggregate_id, host=host)
            return self._aggregate_full(conn, row)

    def aggregate_metadata_set(self, aggregate_id, metadata):
        """Apply ``metadata``; a None value deletes that key."""
        with self.writer.begin() as conn:
            row = self._aggregate_row(conn, aggregate_id)
            for key, value in metadata.items():
                conn.execute(AGG_META.delete().where(AGG_META.c.aggregate_id == row.id,
                                                     AGG_META.c.key == key))
                if value is not None:
                    self._insert(conn, AGG_META, dict(aggregate_id=row.id, key=key,
                                                      value=str(value)))
            conn.execute(AGGREGATES.update().where(AGGREGATES.c.id == row.id)
                         .values(updated_at=store.now()))
            return self._aggregate_full(conn, row)

    def host_zones(self):
        """{host: zone} for hosts in an aggregate carrying availability_zone metadata."""
        query = sa.select(AGG_HOSTS.c.host, AGG_META.c.value).join(
            AGG_META, AGG_META.c.aggregate_id == AGG_HOSTS.c.aggregate_id).where(
            AGG_META.c.key == 'availability_zone').order_by(AGG_HOSTS.c.id)
        with self.engine.connect() as conn:
            zones = {}
            for row in conn.execute(query):
                zones.setdefault(row.host, row.value)
            return zones
