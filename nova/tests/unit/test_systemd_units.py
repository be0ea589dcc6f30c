"""The example systemd units in etc/systemd: one per service, Type=notify, checked by systemd."""

import configparser
import os
import shutil
import subprocess
import sys

import pytest

from nova.conf import wsgi as wsgi_conf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
UNITS = os.path.join(ROOT, 'etc', 'systemd')
# Every long-running console script; nova-manage and nova-status are one-shot.
SERVICES = ['nova-aio', 'nova-api', 'nova-api-metadata', 'nova-compute', 'nova-conductor',
            'nova-novncproxy', 'nova-serialproxy', 'nova-spicehtml5proxy']


def _units():
    return sorted(name for name in os.listdir(UNITS) if name.endswith('.service'))


def _read(name):
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str
    parser.read(os.path.join(UNITS, name))
    return parser


def _console_scripts():
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(os.path.join(ROOT, 'setup.cfg'))
    lines = parser['entry_points']['console_scripts'].strip().splitlines()
    return {line.split('=')[0].strip() for line in lines}


def test_every_service_has_a_unit():
    assert set(SERVICES) <= _console_scripts()
    assert {name[:-len('.service')] for name in _units()} >= set(SERVICES)


@pytest.mark.parametrize('name', _units())
def test_unit_is_type_notify_with_reload_and_a_graceful_stop(name):
    unit = _read(name)
    service = unit['Service']
    assert service['Type'] == 'notify'
    command = service['ExecStart'].split()
    if name == 'nova-api-uwsgi.service':
        # uWSGI's master notifies; its workers are not the main process.
        assert service['NotifyAccess'] == 'all'
        assert os.path.basename(command[0]) == 'uwsgi'
        assert command[1:] == ['--ini', '/etc/nova/nova-api-uwsgi.ini']
    else:
        # Only the service itself may speak for it, not what it starts.
        assert service['NotifyAccess'] == 'main'
        assert os.path.basename(command[0]) == name[:-len('.service')]
        assert command[1:] == ['--config-file', '/etc/nova/nova.conf']
    assert service['ExecReload'] == '/bin/kill -HUP $MAINPID'
    assert service['KillMode'] == 'mixed'
    # systemd waits longer than the service lets work in flight finish.
    default = wsgi_conf.shutdown_opts[0].default
    assert int(service['TimeoutStopSec']) > default
    after = unit['Unit']['After'].split()
    assert len(after) == len(set(after)), after
    assert 'network-online.target' in after
    assert unit['Install']['WantedBy'] == 'multi-user.target'


@pytest.mark.parametrize('name', _units())
def test_systemd_accepts_the_unit(name, tmp_path):
    analyze = shutil.which('systemd-analyze')
    if not analyze:
        pytest.skip('systemd-analyze is not installed (package systemd)')
    # The installed commands instead of the example /opt/nova prefix, so that
    # systemd also checks the executables exist.
    with open(os.path.join(UNITS, name)) as handle:
        text = handle.read().replace('/opt/nova/.venv/bin', os.path.dirname(sys.executable))
    if 'uwsgi' in name and not os.path.exists(os.path.join(os.path.dirname(sys.executable),
                                                           'uwsgi')):
        pytest.skip('uwsgi is not installed (test-requirements.txt)')
    (tmp_path / name).write_text(text)
    proc = subprocess.run([analyze, 'verify', '--man=no', str(tmp_path / name)],
                          capture_output=True, text=True, timeout=60)
    # verify exits 0 on most mistakes; it only says so.
    assert proc.returncode == 0 and not proc.stderr.strip() and not proc.stdout.strip(), (
        proc.stdout + proc.stderr)
