"""Flavors: create, list and delete, the projects allowed a private one, extra specs."""

import json

import sqlalchemy as sa
from oslo_db.sqlalchemy import utils as db_utils

from nova import exception
from nova.db import models, store

FLAVOR_PROJECTS = models.FlavorProjectRecord.__table__
FLAVORS = models.FlavorRecord.__table__


class FlavorsDB(store.DBStore):
    """The flavors and flavor_projects tables."""

    def flavor_create(self, values):
        with self.writer.begin() as conn:
            for key in ('flavorid', 'name'):
                if conn.execute(sa.select(FLAVORS.c.id).where(
                        FLAVORS.c[key] == values[key])).first():
                    raise exception.FlavorExists(key=key, value=values[key])
            fid = self._insert(conn, FLAVORS, values)
            return self._one_by(conn, FLAVORS, id=fid)

    def flavor_get(self, flavorid):
        with self.engine.connect() as conn:
            flavor = self._one(conn, FLAVORS, FLAVORS.c.flavorid == str(flavorid))
        if flavor is None:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        return flavor

    def flavor_get_all(self, is_public=True, min_ram=None, min_disk=None,
                       sort_key='flavorid', sort_dir='asc', limit=None, marker=None,
                       project_id=None):
        """Flavors; with ``project_id`` the private ones that project may use count too."""
        query = sa.select(FLAVORS).where(FLAVORS.c.disabled == sa.false())
        if is_public is not None:
            clause = FLAVORS.c.is_public == bool(is_public)
            if project_id is not None and is_public:
                clause = sa.or_(clause, FLAVORS.c.id.in_(
                    sa.select(FLAVOR_PROJECTS.c.flavor_id).where(
                        FLAVOR_PROJECTS.c.project_id == project_id)))
            query = query.where(clause)
        if min_ram is not None:
            query = query.where(FLAVORS.c.memory_mb >= min_ram)
        if min_disk is not None:
            query = query.where(FLAVORS.c.root_gb >= min_disk)
        with self.engine.connect() as conn:
            mrow = None
            if marker is not None:
                mrow = conn.execute(sa.select(FLAVORS).where(
                    FLAVORS.c.flavorid == marker)).first()
                if mrow is None:
                    raise exception.Invalid(reason='marker [%s] not found' % marker)
            # Keyset pagination that copes with NULL sort values (description).
            query = db_utils.paginate_query(query, models.FlavorRecord, limit,
                                            [sort_key, 'id'], marker=mrow,
                                            sort_dirs=[sort_dir, 'asc'])
            return [store.decode_row(FLAVORS, r) for r in conn.execute(query)]

    def flavor_destroy(self, flavorid):
        with self.writer.begin() as conn:
            # Its access list goes with it (SQLite does not enforce the cascade).
            conn.execute(FLAVOR_PROJECTS.delete().where(
                FLAVOR_PROJECTS.c.flavor_id.in_(sa.select(FLAVORS.c.id).where(
                    FLAVORS.c.flavorid == str(flavorid)))))
            if not conn.execute(FLAVORS.delete().where(
                    FLAVORS.c.flavorid == str(flavorid))).rowcount:
                raise exception.FlavorNotFound(flavor_id=flavorid)

    def _flavor_row(self, conn, flavorid):
        row = conn.execute(sa.select(FLAVORS).where(FLAVORS.c.flavorid == str(flavorid))).first()
        if row is None:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        return row

    def flavor_access_get(self, flavorid):
        with self.engine.connect() as conn:
            flavor = self._flavor_row(conn, flavorid)
            rows = conn.execute(sa.select(FLAVOR_PROJECTS.c.project_id).where(
                FLAVOR_PROJECTS.c.flavor_id == flavor.id).order_by(FLAVOR_PROJECTS.c.id))
            return [r.project_id for r in rows]

    def flavor_access_add(self, flavorid, project_id):
        with self.writer.begin() as conn:
            flavor = self._flavor_row(conn, flavorid)
            if conn.execute(sa.select(FLAVOR_PROJECTS.c.id).where(
                    FLAVOR_PROJECTS.c.flavor_id == flavor.id,
                    FLAVOR_PROJECTS.c.project_id == project_id)).first():
                raise exception.FlavorAccessExists(flavor_id=flavorid, project_id=project_id)
            self._insert(conn, FLAVOR_PROJECTS, dict(flavor_id=flavor.id,
                                                     project_id=project_id))

    def flavor_access_remove(self, flavorid, project_id):
        with self.writer.begin() as conn:
            flavor = self._flavor_row(conn, flavorid)
            if not conn.execute(FLAVOR_PROJECTS.delete().where(
                    FLAVOR_PROJECTS.c.flavor_id == flavor.id,
                    FLAVOR_PROJECTS.c.project_id == project_id)).rowcount:
                raise exception.FlavorAccessNotFound(flavor_id=flavorid,
                                                     project_id=project_id)

    def flavor_projects_flavor_ids(self, project_id):
        """Internal ids of the private flavors ``project_id`` may use."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(FLAVOR_PROJECTS.c.flavor_id).where(
                FLAVOR_PROJECTS.c.project_id == project_id))
            return {r.flavor_id for r in rows}

    def flavor_update(self, flavorid, values):
        with self.writer.begin() as conn:
            self._flavor_row(conn, flavorid)
            values = dict(values)
            if 'extra_specs' in values:
                values['extra_specs'] = json.dumps(values['extra_specs'])
            conn.execute(FLAVORS.update().where(FLAVORS.c.flavorid == str(flavorid))
                         .values(updated_at=store.now(), **values))
            return self._one(conn, FLAVORS, FLAVORS.c.flavorid == str(flavorid))

    def flavor_extra_specs_update(self, flavorid, specs, delete_key=None):
        """Merge ``specs`` into (or drop ``delete_key`` from) the flavor's extra specs."""
        with self.writer.begin() as conn:
            row = self._flavor_row(conn, flavorid)
            current = json.loads(row.extra_specs or '{}')
            if delete_key is not None:
                if delete_key not in current:
                    raise exception.FlavorExtraSpecsNotFound(flavor_id=flavorid,
                                                             extra_specs_key=delete_key)
                del current[delete_key]
            current.update(specs)
            conn.execute(FLAVORS.update().where(FLAVORS.c.id == row.id)
                         .values(extra_specs=json.dumps(current)))
            return current
