"""Schema migrations: `nova-manage db sync` runs alembic on the configured database."""

import ast
import os
import re
import subprocess
import sys

import sqlalchemy as sa

_INI = os.path.join(os.path.dirname(__file__), 'alembic.ini')
_VERSIONS = os.path.join(os.path.dirname(__file__), 'migrations', 'versions')
_ASSIGN = re.compile(r'^(revision|down_revision)\s*(?::[^=]+)?=\s*(.+)$', re.M)

# alembic is imported on use: services that never migrate need not load it.


def _quiet_plugins():
    """Before alembic is imported: it logs a line per built-in plugin it sets up.

    The upgrades it runs ("Running upgrade ...") stay at INFO.
    """
    import logging
    logging.getLogger('alembic.runtime.plugins').setLevel(logging.WARNING)


def _config(connection=None):
    _quiet_plugins()
    from alembic.config import Config as AlembicConfig
    cfg = AlembicConfig(_INI)
    if connection is not None:
        cfg.attributes['connection'] = connection
    return cfg


def script_heads():
    """The newest revisions of the migration scripts, read without alembic."""
    revisions, parents = set(), set()
    for name in os.listdir(_VERSIONS):
        if not name.endswith('.py'):
            continue
        with open(os.path.join(_VERSIONS, name)) as handle:
            values = dict((key, ast.literal_eval(value.strip()))
                          for key, value in _ASSIGN.findall(handle.read()))
        revisions.add(values['revision'])
        down = values.get('down_revision')
        parents.update(down if isinstance(down, (tuple, list)) else [down])
    return revisions - parents


def at_heads(engine):
    """Is the database behind ``engine`` at the newest script revisions?"""
    with engine.connect() as conn:
        if not sa.inspect(conn).has_table('alembic_version'):
            return False
        current = {row[0] for row in conn.execute(sa.text(
            'SELECT version_num FROM alembic_version'))}
    return current == script_heads()


def db_sync(engine, version='heads'):
    """Upgrade the schema behind ``engine`` to ``version``.

    A database already at the newest revision is left alone without loading
    alembic (about 12 MB a process keeps for good).
    """
    if version == 'heads' and at_heads(engine):
        return
    _quiet_plugins()
    from alembic import command as alembic_command
    with engine.begin() as conn:
        alembic_command.upgrade(_config(conn), version)


def db_sync_in_child(url):
    """db_sync in a child process; the URL (it may hold a password) goes over stdin.

    The child imports exactly the code this process runs (its sys.path), never
    whatever a ``nova`` directory in the working directory holds.
    """
    code = ('import sys; sys.path[:] = %r; from nova.db import api; '
            'api.Database(sys.stdin.read(), max_retries=1).sync()' % (sys.path,))
    proc = subprocess.run([sys.executable, '-I', '-c', code], input=url,
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        lines = (proc.stderr or '').strip().splitlines() or ['exit %d' % proc.returncode]
        raise RuntimeError('database migration failed: %s' % lines[-1])


def db_version(engine):
    """The schema revision, read without alembic (whose import logs a line per plugin)."""
    with engine.connect() as conn:
        if not sa.inspect(conn).has_table('alembic_version'):
            return None
        current = sorted(row[0] for row in conn.execute(sa.text(
            'SELECT version_num FROM alembic_version')))
    return ', '.join(current) or None
