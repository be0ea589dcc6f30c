"""Schema migrations: `nova-manage db sync` runs alembic on the configured database."""

import os

_INI = os.path.join(os.path.dirname(__file__), 'alembic.ini')

# alembic is imported on use: services that never migrate need not load it.


def _config(connection=None):
    from alembic.config import Config as AlembicConfig
    cfg = AlembicConfig(_INI)
    if connection is not None:
        cfg.attributes['connection'] = connection
    return cfg


def db_sync(engine, version='heads'):
    """Upgrade the schema behind ``engine`` to ``version``."""
    from alembic import command as alembic_command
    with engine.begin() as conn:
        alembic_command.upgrade(_config(conn), version)


def db_version(engine):
    from alembic import migration as alembic_migration
    with engine.connect() as conn:
        return alembic_migration.MigrationContext.configure(conn).get_current_revision()
