"""nova-manage conductor host-key create, run as an operator would, in a new process."""

import stat

from nova.conductor import host_auth
from nova.tests.functional.test_admin_commands import run


def _mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_create_writes_both_keys_private_and_never_overwrites(tmp_path):
    keys = tmp_path / 'host-keys'
    conf = tmp_path / 'nova.conf'
    conf.write_text('[conductor]\nhost_keys_dir = %s\n' % keys)
    own = tmp_path / 'compute-1.key'
    code, out, err = run('manage', '--config-file', str(conf), 'conductor', 'host-key',
                         'create', 'compute-1', '--key-file', str(own))
    assert code == 0, err
    assert 'copy %s to that host' % own in out
    stored = keys / 'compute-1'
    assert stored.read_text() == own.read_text()
    assert len(host_auth.read_key(stored)) == 64
    assert (_mode(stored), _mode(own), _mode(keys)) == (0o600, 0o600, 0o700)
    # The conductor reads exactly what nova-compute signs with.
    assert host_auth.HostKeys(str(keys)).get('compute-1') == host_auth.read_key(own)

    before = stored.read_text()
    code, _out, err = run('manage', '--config-file', str(conf), 'conductor', 'host-key',
                          'create', 'compute-1')
    assert (code, stored.read_text()) == (2, before)
    assert 'use --force' in err
    code, _out, _err = run('manage', '--config-file', str(conf), 'conductor', 'host-key',
                           'create', 'compute-1', '--force', '--key-file', str(own))
    assert code == 0 and stored.read_text() != before
    assert stored.read_text() == own.read_text()

    # Without --key-file the key goes to stdout, for the operator to carry over.
    code, out, _err = run('manage', '--config-file', str(conf), 'conductor', 'host-key',
                          'create', 'compute-2')
    assert code == 0 and out.strip() == (keys / 'compute-2').read_text().strip()


def test_create_refuses_a_path_for_a_host_name_and_a_missing_directory(tmp_path):
    conf = tmp_path / 'nova.conf'
    conf.write_text('[conductor]\nhost_keys_dir = %s\n' % (tmp_path / 'keys'))
    code, _out, err = run('manage', '--config-file', str(conf), 'conductor', 'host-key',
                          'create', '../escape')
    assert code == 3 and 'is not a host name' in err
    assert not (tmp_path / 'escape').exists() and not (tmp_path / 'keys').exists()
    bare = tmp_path / 'bare.conf'
    bare.write_text('[DEFAULT]\n')
    code, _out, err = run('manage', '--config-file', str(bare), 'conductor', 'host-key',
                          'create', 'compute-1')
    assert code == 3 and 'host_keys_dir is not set' in err
