"""Flavor extras: projects allowed to use a private flavor, description and extra specs."""

import json

import sqlalchemy as sa
from oslo_utils import timeutils

from nova import exception
from nova.db import models

FLAVOR_PROJECTS = models.FlavorProject.__table__
FLAVORS = models.Flavor.__table__


class FlavorAccessMixin:
    """Flavor access and updates for ``Database``."""

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
                         .values(updated_at=timeutils.utcnow().replace(microsecond=0),
                                 **values))
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
