"""The stock oslo-config-generator and oslo-config-validator work on this tree."""

import os
import subprocess
import sys

import pytest

from nova import conf as nova_conf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
BIN = os.path.dirname(sys.executable)
GENERATOR_CONF = os.path.join(ROOT, 'etc', 'nova', 'nova-config-generator.conf')


def _run(tool, *args):
    path = os.path.join(BIN, tool)
    if not os.path.exists(path):
        pytest.skip('%s is not installed in this virtualenv' % tool)
    # This tree first, as the installed entry points import "nova".
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([path, *args], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)


def test_generated_sample_is_the_committed_one(tmp_path):
    out = tmp_path / 'nova.conf.sample'
    result = _run('oslo-config-generator', '--config-file', GENERATOR_CONF,
                  '--output-file', str(out))
    assert result.returncode == 0, result.stderr
    with open(os.path.join(ROOT, 'etc', 'nova', 'nova.conf.sample')) as committed:
        assert out.read_text() == committed.read(), \
            'regenerate etc/nova/nova.conf.sample with oslo-config-generator'
    sample = out.read_text()
    for needle in ('[notifications]', '#notification_format = unversioned',
                   '[oslo_messaging_notifications]', '#transport_url = <None>'):
        assert needle in sample


def test_namespace_option_alone_works(tmp_path):
    result = _run('oslo-config-generator', '--namespace', 'nova.conf',
                  '--output-file', str(tmp_path / 'out'))
    assert result.returncode == 0, result.stderr
    assert '[notifications]' in (tmp_path / 'out').read_text()


@pytest.mark.parametrize('body,code', [
    ('[notifications]\nnotification_format = versioned\n'
     '[oslo_messaging_notifications]\ndriver = messagingv2\n', 0),
    ('[notifications]\nno_such_option = 1\n', 1),
    # Removed because nothing read them.
    ('[libvirt]\nimages_type = qcow2\n', 1),
    # oslo.db's options that the engine honours are in the sample; the
    # others (slave connection, its API wrapper's retries) are not.
    ('[database]\nmax_pool_size = 10\nmysql_sql_mode = TRADITIONAL\n', 0),
    ('[database]\nslave_connection = sqlite://\n', 1),
    ('[database]\ndb_max_retries = 3\n', 1),
    # The Kafka driver's dependency is not installed: its options do nothing.
    ('[oslo_messaging_kafka]\nproducer_batch_size = 16\n', 1),
    ('[oslo_messaging_rabbit]\nheartbeat_timeout_threshold = 30\n', 0),
])
def test_validator(tmp_path, body, code):
    path = tmp_path / 'nova.conf'
    path.write_text(body)
    result = _run('oslo-config-validator', '--config-file', GENERATOR_CONF,
                  '--input-file', str(path))
    assert result.returncode == code, result.stdout + result.stderr


def test_every_service_option_is_read_somewhere():
    """An option nothing reads is a promise the service does not keep."""
    sources = []
    for base, _dirs, files in os.walk(os.path.join(ROOT, 'nova')):
        if os.sep + 'tests' in base or base.endswith(os.sep + 'conf'):
            continue
        for name in files:
            if name.endswith('.py'):
                with open(os.path.join(base, name)) as handle:
                    sources.append(handle.read())
    text = '\n'.join(sources)
    unread = []
    for mod in nova_conf.modules():
        own = {'DEFAULT': mod.opts} if mod.__name__.endswith('.rpc') else mod.list_opts()
        for group, opts in own.items():
            for opt in opts:
                if opt.dest not in text:
                    unread.append('%s.%s' % (getattr(group, 'name', group), opt.dest))
    # The [glance]/[cinder]/[database] library options are read by
    # keystoneauth1 and oslo.db, not by name here.
    unread = [u for u in unread if u.split('.')[0] not in ('glance', 'cinder', 'database')]
    # [neutron]'s keystoneauth options likewise; its own ones are read by nova/network,
    # except the metadata proxy's pair, which the metadata API reads.
    from nova import ksa_utils
    library = {opt.dest for opt in ksa_utils.list_opts('network')}
    unread = [u for u in unread if not (u.startswith('neutron.') and
                                        u.split('.', 1)[1] in library)]
    for option in ('neutron.service_metadata_proxy', 'neutron.metadata_proxy_shared_secret'):
        if option in unread:
            unread.remove(option)
    # Read through the upstream-name table in nova/conf/quota.py.
    unread.remove('quota.injected_file_path_length')
    assert unread == []


def test_sample_lists_the_database_options_the_engine_reads():
    from nova.conf import database
    from nova.db import api as db_api
    listed = {opt.name for opt in database.list_opts()['database']}
    assert listed == {'connection', 'max_retries', 'retry_interval', *db_api.ENGINE_OPTIONS}
    assert set(database.HONOURED) == listed
