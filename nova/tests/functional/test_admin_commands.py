"""nova-manage db archive/purge, image_property and nova-status against real databases."""

import datetime
import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

from nova import context as nova_context
from nova.db import api as db_api
from nova.tests.functional import services

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
OLD = datetime.datetime(2020, 1, 1)


def run(module, *args):
    """(exit code, stdout, stderr) of ``nova-<module> ARGS`` in a new process."""
    code = 'import sys; from nova.cmd import %s as m; sys.exit(m.main())' % module
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, '-c', code, *args], capture_output=True,
                          text=True, env=env, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


SERVERS = {'postgresql': services.PG_URL, 'mysql': services.MYSQL_URL}


@pytest.fixture(params=['sqlite', pytest.param('postgresql', marks=pytest.mark.postgresql),
                        pytest.param('mysql', marks=pytest.mark.mysql)])
def database(request, tmp_path):
    """(Database, config file) on SQLite or a throwaway PostgreSQL/MariaDB database."""
    if request.param == 'sqlite':
        url = 'sqlite:///%s' % (tmp_path / 'nova.sqlite')
        tmp = None
    else:
        services.require(SERVERS[request.param], request.param)
        tmp = services.ThrowawayDatabase(SERVERS[request.param]).__enter__()
        url = tmp.url
    conf = tmp_path / 'nova.conf'
    conf.write_text('[database]\nconnection = %s\n' % url)
    db = db_api.Database(url)
    db.sync()
    yield db, str(conf)
    db.dispose()
    if tmp is not None:
        tmp.__exit__(None, None, None)


def _instance(db, deleted_at=None, **values):
    ctx = nova_context.RequestContext(user_id='u', project_id='p', request_id='req-%s' %
                                      len(db.instance_get_all({'deleted': True})))
    row = db.instance_create(dict(dict(project_id='p', user_id='u', display_name='vm',
                                       vm_state='active', created_at=db_api._now()),
                                  **values))
    action = db.action_start(ctx, row['uuid'], 'create')
    db.event_finish(db.event_start(row['uuid'], ctx.request_id, 'compute_build'), 'Success')
    db.action_finish(action)
    db.fault_create(row['uuid'], 500, 'boom')
    if deleted_at is not None:
        db.instance_destroy(row['uuid'])
        with db.engine.begin() as conn:
            table = db_api.INSTANCES
            conn.execute(table.update().where(table.c.uuid == row['uuid']).values(
                deleted_at=deleted_at))
    return row['uuid']


def _count(db, table, **where):
    table = sa.Table(table, sa.MetaData(), autoload_with=db.engine)
    query = sa.select(sa.func.count()).select_from(table)
    for key, value in where.items():
        query = query.where(table.c[key] == value)
    with db.engine.connect() as conn:
        return conn.execute(query).scalar()


def test_archive_moves_deleted_instances_and_their_rows(database):
    db, conf = database
    live = _instance(db)
    gone = [_instance(db, deleted_at=db_api._now()) for _ in range(3)]
    code, out, err = run('manage', '--config-file', conf, 'db', 'archive_deleted_rows',
                         '--max_rows', '2', '--verbose')
    assert code == 1, err
    assert 'Number of Rows Archived' in out
    assert '| instances ' in out and '| instance_actions_events ' in out
    assert _count(db, 'shadow_instances') == 2
    code, out, err = run('manage', '--config-file', conf, 'db', 'archive_deleted_rows',
                         '--max_rows', '1', '--until-complete', '--verbose')
    assert code == 1, err
    for uuid in gone:
        assert _count(db, 'instances', uuid=uuid) == 0
        assert _count(db, 'shadow_instances', uuid=uuid) == 1
        assert _count(db, 'shadow_instance_faults', instance_uuid=uuid) == 1
        assert _count(db, 'shadow_instance_actions', instance_uuid=uuid) == 1
    assert _count(db, 'shadow_instance_actions_events') == 3
    assert _count(db, 'instance_actions_events') == 1
    # The live server keeps everything.
    assert db.instance_get(live)['display_name'] == 'vm'
    assert _count(db, 'instance_faults', instance_uuid=live) == 1
    code, out, _err = run('manage', '--config-file', conf, 'db', 'archive_deleted_rows',
                          '--verbose')
    assert code == 0 and 'Nothing was archived.' in out


def test_archive_before_and_bad_input(database):
    db, conf = database
    old = _instance(db, deleted_at=OLD)
    recent = _instance(db, deleted_at=db_api._now())
    assert run('manage', '--config-file', conf, 'db', 'archive_deleted_rows',
               '--max_rows', '0')[0] == 2
    code, _out, err = run('manage', '--config-file', conf, 'db', 'archive_deleted_rows',
                          '--before', 'not-a-date')
    assert code == 4 and 'Invalid value for --before' in err
    assert _count(db, 'shadow_instances') == 0
    assert run('manage', '--config-file', conf, 'db', 'archive_deleted_rows',
               '--before', '2021-01-01')[0] == 1
    assert _count(db, 'shadow_instances', uuid=old) == 1
    assert _count(db, 'instances', uuid=recent) == 1


def test_purge(database):
    db, conf = database
    old = _instance(db, deleted_at=OLD)
    recent = _instance(db, deleted_at=db_api._now())
    assert run('manage', '--config-file', conf, 'db', 'archive_deleted_rows')[0] == 1
    assert run('manage', '--config-file', conf, 'db', 'purge')[0] == 1
    assert run('manage', '--config-file', conf, 'db', 'purge', '--before', 'x')[0] == 2
    assert run('manage', '--config-file', conf, 'db', 'purge', '--before', '2019-01-01')[
        0] == 3
    code, out, err = run('manage', '--config-file', conf, 'db', 'purge', '--before',
                         '2021-01-01', '--verbose')
    assert code == 0, err
    assert 'Deleted 1 rows from shadow_instances' in out
    assert _count(db, 'shadow_instances', uuid=old) == 0
    assert _count(db, 'shadow_instance_faults', instance_uuid=old) == 0
    assert _count(db, 'shadow_instance_actions_events') == 1
    assert _count(db, 'shadow_instances', uuid=recent) == 1
    assert run('manage', '--config-file', conf, 'db', 'purge', '--all')[0] == 0
    for table in ('shadow_instances', 'shadow_instance_actions',
                  'shadow_instance_actions_events', 'shadow_instance_faults'):
        assert _count(db, table) == 0
    assert run('manage', '--config-file', conf, 'db', 'purge', '--all')[0] == 3


def test_archive_and_purge_take_upstreams_all_cells_and_sleep(database):
    """Scripts written for upstream pass --all-cells (and --sleep between batches)."""
    db, conf = database
    gone = [_instance(db, deleted_at=OLD) for _ in range(2)]
    code, out, err = run('manage', '--config-file', conf, 'db', 'archive_deleted_rows',
                         '--all-cells', '--until-complete', '--max_rows', '1',
                         '--sleep', '1', '--verbose')
    assert code == 1, err
    assert 'Number of Rows Archived' in out
    for uuid in gone:
        assert _count(db, 'shadow_instances', uuid=uuid) == 1
    code, _out, err = run('manage', '--config-file', conf, 'db', 'archive_deleted_rows',
                          '--sleep', '-1')
    assert code == 2 and '--sleep' in err and 'Traceback' not in err
    code, out, err = run('manage', '--config-file', conf, 'db', 'purge', '--all',
                         '--all-cells', '--verbose')
    assert code == 0, err
    assert 'Deleted 2 rows from shadow_instances' in out
    assert run('manage', '--config-file', conf, 'db', 'purge', '--all-cells', '--all')[0] == 3


def test_db_version_prints_only_the_revision(database):
    """Scripts read the revision from standard output: nothing else is printed there."""
    from nova.db import migration
    _db, conf = database
    code, out, err = run('manage', '--config-file', conf, 'db', 'version')
    assert code == 0, err
    assert out.splitlines() == sorted(migration.script_heads())


def test_db_sync_logs_the_upgrades_only(tmp_path):
    conf = tmp_path / 'nova.conf'
    conf.write_text('[database]\nconnection = sqlite:///%s\n' % (tmp_path / 'nova.sqlite'))
    code, out, err = run('manage', '--config-file', str(conf), 'db', 'sync')
    assert code == 0, err
    assert 'Running upgrade' in out and 'Database at revision' in out
    assert 'setup plugin' not in out + err


def test_image_property_show_and_set(database):
    db, conf = database
    uuid = _instance(db, system_metadata={'image_hw_disk_bus': 'scsi'})
    manage = ('manage', '--config-file', conf, 'image_property')
    code, out, _err = run(*manage, 'show', uuid, 'hw_disk_bus')
    # The value is the last line (oslo.db may log a warning about MySQL modes first).
    assert (code, out.strip().splitlines()[-1]) == (0, 'scsi')
    assert run(*manage, 'show', uuid, 'hw_video_model')[0] == 4
    assert run(*manage, 'show', '00000000-0000-0000-0000-000000000000', 'hw_disk_bus')[
        0] == 2
    # Running: refused, nothing changes.
    code, _out, err = run(*manage, 'set', uuid, '--property', 'hw_disk_bus=virtio')
    assert code == 4 and 'stopped' in err
    assert db.instance_get(uuid)['system_metadata'] == {'image_hw_disk_bus': 'scsi'}
    db.instance_update(uuid, {'vm_state': 'stopped'})
    assert run(*manage, 'set', uuid, '--property', 'no_such_prop=1')[0] == 5
    assert run(*manage, 'set', uuid, '--property', 'hw_vif_multiqueue_enabled=maybe')[
        0] == 6
    assert db.instance_get(uuid)['system_metadata'] == {'image_hw_disk_bus': 'scsi'}
    code, _out, err = run(*manage, 'set', uuid, '--property', 'hw_disk_bus=virtio',
                          '--property', 'hw_video_model=vga')
    assert code == 0, err
    assert db.instance_get(uuid)['system_metadata'] == {
        'image_hw_disk_bus': 'virtio', 'image_hw_video_model': 'vga'}
    assert run(*manage, 'show', uuid, 'hw_video_model')[1].strip().splitlines()[-1] == 'vga'


def test_status_upgrade_check(database, tmp_path):
    db, conf = database
    code, out, err = run('status', '--config-file', conf, 'upgrade', 'check')
    assert code == 0, out + err
    assert 'Upgrade Check Results' in out and 'Check: Database schema' in out
    assert 'Result: Success' in out and 'Result: Failure' not in out
    # A compute that has not heartbeat since before versions were recorded.
    db.service_heartbeat('c1', 'nova-compute', 'compute')
    db.service_update('c1', 'nova-compute', {'version': None})
    code, out, _err = run('status', '--config-file', conf, 'upgrade', 'check')
    assert code == 1 and 'Result: Warning' in out and 'c1' in out
    db.service_heartbeat('c1', 'nova-compute', 'compute')
    assert run('status', '--config-file', conf, 'upgrade', 'check')[0] == 0
    # Schema behind this code: a failure.
    with db.engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '0002_apiservers'"))
    code, out, _err = run('status', '--config-file', conf, 'upgrade', 'check')
    assert code == 2 and 'nova-manage db sync' in out


def test_status_unreachable_database_and_json_policy(tmp_path):
    conf = tmp_path / 'nova.conf'
    conf.write_text('[database]\nconnection = sqlite:///%s\n'
                    '[oslo_policy]\npolicy_file = policy.json\n' % (tmp_path / 'none.sqlite'))
    code, out, _err = run('status', '--config-file', str(conf), 'upgrade', 'check')
    assert code == 2
    assert 'has no schema' in out and 'oslopolicy-convert-json-to-yaml' in out


@pytest.mark.parametrize('module', ['api', 'conductor', 'compute', 'manage', 'aio', 'status'])
def test_every_command_has_version(module):
    code, out, err = run(module, '--version')
    assert code == 0, err
    assert (out + err).strip()


def test_status_unexpected_error_is_255(tmp_path):
    code, _out, err = run('status', '--config-file', str(tmp_path / 'missing.conf'),
                          'upgrade', 'check')
    assert code == 255 and 'missing.conf' in err
