"""Shadow tables: where `nova-manage db archive_deleted_rows` moves deleted instances."""

import sqlalchemy as sa

# The tables archived with a deleted instance, children before parents.
ARCHIVED = ('instance_actions_events', 'instance_actions', 'instance_faults',
            'block_device_mapping', 'instances')
PREFIX = 'shadow_'
# Indexes that keep purge by instance (and by date) cheap.
_INDEXES = {'instances': ('uuid', 'deleted_at'), 'instance_faults': ('instance_uuid',),
            'instance_actions': ('instance_uuid',), 'instance_actions_events': ('action_id',),
            'block_device_mapping': ('instance_uuid',)}


def _shadow(metadata, table):
    # Same columns, no constraints: archived history is kept as it was, and
    # SQLite may hand a purged id out again, so ids are not unique here.
    columns = [sa.Column(c.name, c.type, nullable=True) for c in table.columns]
    indexes = [sa.Index('%s%s_%s_idx' % (PREFIX, table.name, col), col)
               for col in _INDEXES[table.name]]
    return sa.Table(PREFIX + table.name, metadata, *columns, *indexes)


def add_shadow_tables(metadata):
    """Add a shadow table per archived table to ``metadata``.

    Returns {name: (table, shadow table)}. The models call it with their
    metadata, so this module needs nothing from them.
    """
    return {name: (metadata.tables[name], _shadow(metadata, metadata.tables[name]))
            for name in ARCHIVED}
