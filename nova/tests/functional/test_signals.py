"""Signals on real service processes: SIGHUP reloads and reopens logs, SIGTERM stops them,
and systemd hears READY=1 and STOPPING=1."""

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
BIN = os.path.dirname(sys.executable)


def _wait_for(predicate, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def _base_conf(tmp_path, service):
    log = tmp_path / 'nova.log'
    text = ('[DEFAULT]\nstate_path = %s\nlog_file = %s\nmetadata_listen_port = 0\n'
            '[libvirt]\nconnection_uri = test:///default\n' % (tmp_path / 'state', log))
    if service == 'aio':
        return text + ('[aio]\ncompute_port = 0\nimage_port = 0\nvolume_port = 0\n'
                       '[vnc]\nnovncproxy_port = 0\n')
    # A split service: its own database (schema first) and an in-process broker,
    # which the conductor accepts as an explicit transport_url.
    text += ('[DEFAULT]\ntransport_url = fake:/\n'
             '[database]\nconnection = sqlite:///%s/nova.sqlite\n' % tmp_path)
    (tmp_path / 'nova.conf').write_text(text)
    subprocess.run([os.path.join(BIN, 'nova-manage'), '--config-file',
                    str(tmp_path / 'nova.conf'), 'db', 'sync'], check=True,
                   capture_output=True, env=dict(os.environ, PYTHONPATH=ROOT))
    return text


class _Systemd:
    """The notification socket systemd would bind for a Type=notify unit."""

    def __init__(self, tmp_path):
        self.path = str(tmp_path / 'notify.sock')
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(90)

    def receive(self):
        return self.sock.recv(4096).decode().split('\n')

    def close(self):
        self.sock.close()


def _start(tmp_path, service, conf, systemd):
    code = ('import sys; from nova.cmd import %s as m; sys.exit(m.main(sys.argv[1:]))'
            % service)
    out = open(tmp_path / 'out.log', 'wb')
    proc = subprocess.Popen([sys.executable, '-c', code, '--config-file', str(conf)],
                            stdout=out, stderr=subprocess.STDOUT,
                            env=dict(os.environ, PYTHONPATH=ROOT,
                                     NOTIFY_SOCKET=systemd.path), cwd=ROOT)
    out.close()
    return proc


@pytest.fixture
def systemd(tmp_path):
    sd = _Systemd(tmp_path)
    yield sd
    sd.close()


@pytest.mark.parametrize('service', ['aio', 'conductor'])
def test_sighup_reloads_config_and_reopens_logs_then_sigterm_stops(tmp_path, service,
                                                                   systemd):
    log = tmp_path / 'nova.log'
    conf = tmp_path / 'nova.conf'
    base = _base_conf(tmp_path, service)
    conf.write_text('[DEFAULT]\ndebug = false\n' + base)
    proc = _start(tmp_path, service, conf, systemd)
    try:
        assert 'READY=1' in systemd.receive()
        assert proc.poll() is None
        assert ' DEBUG ' not in log.read_text()
        # logrotate moves the file away; SIGHUP must make the service write
        # to a new one and pick up the edited, mutable debug option.
        log.rename(tmp_path / 'nova.log.1')
        conf.write_text('[DEFAULT]\ndebug = true\n' + base)
        proc.send_signal(signal.SIGHUP)
        assert _wait_for(lambda: log.exists() and 'Configuration reloaded' in log.read_text())
        assert proc.poll() is None
        assert 'debug changed from [false] to [true]' in log.read_text()
        # A second SIGHUP after an edit back: the process still lives.
        conf.write_text('[DEFAULT]\ndebug = false\n' + base)
        proc.send_signal(signal.SIGHUP)
        assert _wait_for(lambda: 'debug changed from [true] to [false]' in log.read_text())
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert 'STOPPING=1' in systemd.receive()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize('service', ['aio', 'conductor', 'novncproxy'])
def test_tells_systemd_ready_then_stopping(tmp_path, service, systemd):
    conf = tmp_path / 'nova.conf'
    text = _base_conf(tmp_path, 'conductor' if service == 'novncproxy' else service)
    if service == 'novncproxy':
        text += '[vnc]\nnovncproxy_host = 127.0.0.1\nnovncproxy_port = 0\n'
    conf.write_text(text)
    proc = _start(tmp_path, service, conf, systemd)
    try:
        fields = systemd.receive()
        assert 'READY=1' in fields, fields
        assert 'STATUS=running, pid %d' % proc.pid in fields
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert 'STOPPING=1' in systemd.receive()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # Nothing more came: one READY=1, one STOPPING=1 per life.
    systemd.sock.settimeout(0.5)
    with pytest.raises(socket.timeout):
        systemd.receive()
