"""Archive deleted instances to the shadow tables, and purge the shadow tables."""

import sqlalchemy as sa

from nova.db import models, shadow


def _conditions(tables, uuids):
    """Which rows of each archived table belong to the instances ``uuids``."""
    instances = tables['instances']
    actions = tables['instance_actions']
    events = tables['instance_actions_events']
    return {
        'instance_actions_events': events.c.action_id.in_(
            sa.select(actions.c.id).where(actions.c.instance_uuid.in_(uuids))),
        'instance_actions': actions.c.instance_uuid.in_(uuids),
        'instance_faults': tables['instance_faults'].c.instance_uuid.in_(uuids),
        'block_device_mapping': tables['block_device_mapping'].c.instance_uuid.in_(uuids),
        'instances': instances.c.uuid.in_(uuids),
    }


def archive_deleted_rows(engine, max_rows=1000, before=None):
    """Move up to ``max_rows`` deleted instances, and their rows, to the shadow tables.

    Instances are taken oldest first; ``before`` keeps those deleted at or
    after it. One transaction: a failure moves nothing. Returns
    {table: rows moved} for tables that had any.
    """
    main = {name: pair[0] for name, pair in models.SHADOW_TABLES.items()}
    instances = main['instances']
    query = sa.select(instances.c.uuid).where(instances.c.deleted != 0)
    if before is not None:
        query = query.where(instances.c.deleted_at < before)
    counts = {}
    with engine.begin() as conn:
        uuids = list(conn.execute(query.order_by(instances.c.id).limit(max_rows)).scalars())
        if not uuids:
            return counts
        where = _conditions(main, uuids)
        for name in shadow.ARCHIVED:
            table, shadow_table = models.SHADOW_TABLES[name]
            columns = [c.name for c in shadow_table.columns if c.name in table.c]
            conn.execute(shadow_table.insert().from_select(
                columns, sa.select(*[table.c[c] for c in columns]).where(where[name])))
            moved = conn.execute(table.delete().where(where[name])).rowcount
            if moved:
                counts[name] = moved
    return counts


def purge_shadow_tables(engine, before=None):
    """Delete archived rows: all of them, or those of instances deleted before ``before``."""
    shadows = {name: pair[1] for name, pair in models.SHADOW_TABLES.items()}
    counts = {}
    with engine.begin() as conn:
        if before is None:
            for name in shadow.ARCHIVED:
                deleted = conn.execute(shadows[name].delete()).rowcount
                if deleted:
                    counts[shadows[name].name] = deleted
            return counts
        instances = shadows['instances']
        uuids = sa.select(instances.c.uuid).where(instances.c.deleted_at < before)
        where = _conditions(shadows, uuids)
        for name in shadow.ARCHIVED:
            deleted = conn.execute(shadows[name].delete().where(where[name])).rowcount
            if deleted:
                counts[shadows[name].name] = deleted
    return counts
