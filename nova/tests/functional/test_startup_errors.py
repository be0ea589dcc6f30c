"""Misconfigured services say what is wrong in one line and exit non-zero, never hang."""

import os
import socket
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def _run(module, *args, timeout=60):
    env = dict(os.environ, PYTHONPATH=ROOT)
    code = 'import sys; from nova.cmd import %s as m; sys.exit(m.main(sys.argv[1:]))' % module
    proc = subprocess.run([sys.executable, '-c', code, *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def _conf(tmp_path, text):
    path = tmp_path / 'nova.conf'
    path.write_text(text)
    return str(path)


def _assert_one_line(rc, err, *needles):
    assert rc == 1, err
    assert 'Traceback' not in err, err
    line = [ln for ln in err.splitlines() if ln.startswith('nova-')]
    assert len(line) == 1, err
    for needle in needles:
        assert needle in line[0], line[0]


def _console_scripts():
    """Every console script setup.cfg installs, so that a new one is covered too."""
    import configparser
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, 'setup.cfg'))
    lines = cfg['entry_points']['console_scripts'].strip().splitlines()
    return [line.split('=')[0].strip() for line in lines]


def test_console_scripts_include_the_documented_ones():
    assert {'nova-aio', 'nova-api', 'nova-api-metadata', 'nova-conductor', 'nova-compute',
            'nova-manage', 'nova-status', 'nova-novncproxy', 'nova-serialproxy',
            'nova-spicehtml5proxy'} <= set(_console_scripts())


@pytest.mark.parametrize('command', _console_scripts())
def test_every_command_answers_version(command):
    from nova import version
    # The installed console script (setup.cfg entry point), not only the module.
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), command),
                           '--version'], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert (proc.stdout + proc.stderr).strip() == version.version_string()


@pytest.mark.parametrize('module', ['api', 'conductor', 'compute'])
def test_split_service_without_transport_url(tmp_path, module):
    conf = _conf(tmp_path, '[DEFAULT]\nstate_path = %s\n' % tmp_path)
    rc, _out, err = _run(module, '--config-file', conf)
    _assert_one_line(rc, err, 'transport_url is not set')


def test_unreachable_broker(tmp_path):
    conf = _conf(tmp_path, '[DEFAULT]\nstate_path = %s\n'
                           'transport_url = rabbit://guest:guest@127.0.0.1:1/\n' % tmp_path)
    rc, _out, err = _run('api', '--config-file', conf)
    _assert_one_line(rc, err, 'cannot reach the message broker at 127.0.0.1:1')


def test_unreachable_database(tmp_path):
    conf = _conf(tmp_path, '[DEFAULT]\nstate_path = %s\ntransport_url = fake:/\n'
                           '[database]\nconnection = mysql+pymysql://root@127.0.0.1:1/x\n'
                           'max_retries = 0\n' % tmp_path)
    rc, _out, err = _run('manage', '--config-file', conf, 'db', 'sync')
    _assert_one_line(rc, err, 'cannot connect to the database')


def _aio_conf(tmp_path):
    """The text of a working all-in-one configuration, for a test to spoil."""
    return ('[DEFAULT]\nstate_path = %s\nmetadata_listen_port = 0\n'
            '[aio]\ncompute_port = 0\nimage_port = 0\n'
            'volume_port = 0\n[vnc]\nnovncproxy_port = 0\n[libvirt]\nconnection_uri = test:///default\n'
            % (tmp_path / 'state'))


def test_port_in_use_is_named(tmp_path):
    with socket.socket() as busy:
        busy.bind(('127.0.0.1', 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        conf = _aio_conf(tmp_path).replace('compute_port = 0', 'compute_port = %d' % port)
        rc, _out, err = _run('aio', '--config-file', _conf(tmp_path, conf))
    _assert_one_line(rc, err, 'cannot listen on 127.0.0.1:%d' % port)


def test_unreachable_libvirtd(tmp_path):
    conf = _aio_conf(tmp_path).replace(
        'test:///default', 'qemu+unix:///system?socket=%s/no-such.sock' % tmp_path)
    rc, _out, err = _run('aio', '--config-file', _conf(tmp_path, conf))
    _assert_one_line(rc, err, 'is libvirtd running?')


def test_unusable_state_path(tmp_path):
    blocker = tmp_path / 'file'
    blocker.write_text('')
    conf = _conf(tmp_path, '[DEFAULT]\nstate_path = %s/state\n' % blocker)
    rc, _out, err = _run('aio', '--config-file', conf)
    _assert_one_line(rc, err, 'state_path')


@pytest.mark.parametrize('module,section', [('novncproxy', '[vnc]\nnovncproxy_'),
                                            ('serialproxy', '[serial_console]\nserialproxy_')])
def test_console_proxy_port_in_use_is_named(tmp_path, module, section):
    with socket.socket() as busy:
        busy.bind(('127.0.0.1', 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        # A broker the proxy can use (it asks compute hosts about tokens).
        conf = _conf(tmp_path, '[DEFAULT]\nstate_path = %s\ntransport_url = fake:/\n'
                     '%shost = 127.0.0.1\n%sport = %d\n'
                     % (tmp_path, section, section.split('\n')[1], port))
        rc, _out, err = _run(module, '--config-file', conf)
    _assert_one_line(rc, err, 'cannot listen on 127.0.0.1:%d' % port, 'Address already in use')


def test_console_proxy_without_a_broker_says_so(tmp_path):
    conf = _conf(tmp_path, '[DEFAULT]\nstate_path = %s\n' % tmp_path)
    rc, _out, err = _run('novncproxy', '--config-file', conf)
    _assert_one_line(rc, err, 'transport_url is not set')


def test_sqlite_database_in_missing_directory(tmp_path):
    conf = _conf(tmp_path, '[database]\nconnection = sqlite:///%s/missing/nova.sqlite\n'
                 % tmp_path)
    rc, out, err = _run('manage', '--config-file', conf, 'db', 'sync')
    assert 'Traceback' not in out, out
    _assert_one_line(rc, err, 'cannot open the database ([database] connection)',
                     'unable to open database file')
