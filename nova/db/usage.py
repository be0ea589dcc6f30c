"""Instances that ran during a time window: what usage reports (simple tenant usage) add up."""

import json

import sqlalchemy as sa

from nova import exception
from nova.db import models, store

_INSTANCES = models.InstanceRecord.__table__


class UsageDB(store.DBStore):
    """Instances that ran during a window, deleted ones included."""

    def instances_active_in_window(self, begin, end, project_id=None, limit=None,
                                   marker=None):
        """Launched before ``end`` and not terminated before ``begin``, by id."""
        query = sa.select(_INSTANCES).where(
            sa.or_(_INSTANCES.c.terminated_at.is_(None), _INSTANCES.c.terminated_at > begin),
            _INSTANCES.c.launched_at < end)
        if project_id is not None:
            query = query.where(_INSTANCES.c.project_id == project_id)
        with self.engine.connect() as conn:
            if marker is not None:
                marker_id = conn.execute(sa.select(_INSTANCES.c.id).where(
                    _INSTANCES.c.uuid == marker)).scalar()
                if marker_id is None:
                    raise exception.Invalid(reason='Marker %s could not be found.' % marker)
                query = query.where(_INSTANCES.c.id > marker_id)
            query = query.order_by(_INSTANCES.c.id)
            if limit is not None:
                query = query.limit(limit)
            rows = [dict(r._mapping) for r in conn.execute(query)]
        for row in rows:
            row['flavor'] = json.loads(row['flavor'] or 'null')
        return rows
