"""Schema sync: script heads read without alembic agree with alembic's own view."""

import subprocess
import sys

from alembic.script import ScriptDirectory

from nova.db import migration


def test_script_heads_match_alembic():
    scripts = ScriptDirectory.from_config(migration._config())
    assert migration.script_heads() == set(scripts.get_heads())


def test_sync_at_heads_does_not_load_alembic(tmp_path):
    url = 'sqlite:///%s' % (tmp_path / 'nova.sqlite')
    code = ('import sys; from nova.db import api; db = api.Database(%r); db.sync(); '
            'print("alembic" in sys.modules)' % url)
    first = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                           check=True)
    again = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                           check=True)
    # A new database is migrated with alembic; one at the newest revision is left alone.
    assert first.stdout.split()[-1] == 'True', first.stderr
    assert again.stdout.split()[-1] == 'False', again.stderr
    check = ('from nova.db import api, migration; db = api.Database(%r); '
             'print(migration.db_version(db.engine) in migration.script_heads())' % url)
    out = subprocess.run([sys.executable, '-c', check], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split()[-1] == 'True'


def test_sync_in_child_migrates_without_loading_alembic_here(tmp_path):
    url = 'sqlite:///%s' % (tmp_path / 'nova.sqlite')
    code = ('import sys; from nova.db import api, migration; db = api.Database(%r); '
            'db.sync_in_child(); print("alembic" in sys.modules, migration.at_heads(db.engine))'
            % url)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split()[-2:] == ['False', 'True'], out.stderr


def test_sync_in_child_reports_the_failure(tmp_path):
    from nova.db import api
    db = api.Database('sqlite:///%s' % (tmp_path / 'nova.sqlite'))
    bad = 'sqlite:///%s' % (tmp_path / 'missing-dir' / 'nova.sqlite')
    try:
        migration.db_sync_in_child(bad)
    except RuntimeError as exc:
        assert 'database migration failed' in str(exc)
    else:
        raise AssertionError('a migration into a missing directory succeeded')
    db.dispose()
