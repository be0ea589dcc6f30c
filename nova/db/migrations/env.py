"""Alembic environment: runs migrations on the connection the caller hands over."""

from alembic import context

from nova.db import models

config = context.config
target_metadata = models.BASE.metadata


def run_migrations_online():
    connection = config.attributes.get('connection')
    if connection is None:
        from sqlalchemy import create_engine
        engine = create_engine(config.get_main_option('sqlalchemy.url'))
        with engine.begin() as conn:
            _run(conn)
        return
    _run(connection)


def _run(connection):
    # render_as_batch lets column changes work on SQLite in later revisions.
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
