"""The migrations build exactly the tables and columns the models declare."""

import sqlalchemy as sa

from nova.db import models


def test_migrated_columns_match_models(db):
    inspector = sa.inspect(db.engine)
    migrated = {name: {c['name'] for c in inspector.get_columns(name)}
                for name in inspector.get_table_names() if name != 'alembic_version'}
    declared = {name: set(table.c.keys())
                for name, table in models.BASE.metadata.tables.items()}
    assert migrated == declared
