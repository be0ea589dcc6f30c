"""Signals on a real nova-aio process: SIGHUP reloads and reopens logs, SIGTERM stops it."""

import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def _wait_for(predicate, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_sighup_reloads_config_and_reopens_logs_then_sigterm_stops(tmp_path):
    log = tmp_path / 'nova.log'
    conf = tmp_path / 'nova.conf'
    base = ('[DEFAULT]\nstate_path = %s\nlog_file = %s\n[aio]\ncompute_port = 0\n'
            'image_port = 0\nvolume_port = 0\n[vnc]\nnovncproxy_port = 0\n'
            '[libvirt]\nconnection_uri = test:///default\n'
            % (tmp_path / 'state', log))
    conf.write_text('[DEFAULT]\ndebug = false\n' + base)
    code = 'import sys; from nova.cmd import aio as m; sys.exit(m.main(sys.argv[1:]))'
    proc = subprocess.Popen([sys.executable, '-c', code, '--config-file', str(conf)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT)
    try:
        for line in proc.stdout:
            if 'nova-aio ready' in line:
                break
        assert proc.poll() is None
        # logrotate moves the file away; SIGHUP must make the service write
        # to a new one and pick up the edited, mutable debug option.
        log.rename(tmp_path / 'nova.log.1')
        conf.write_text('[DEFAULT]\ndebug = true\n' + base)
        proc.send_signal(signal.SIGHUP)
        assert _wait_for(lambda: log.exists() and 'Configuration reloaded' in log.read_text())
        assert proc.poll() is None
        assert 'debug changed from [false] to [true]' in log.read_text()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_tells_systemd_it_is_ready(tmp_path):
    import socket
    sock_path = str(tmp_path / 'notify.sock')
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(sock_path)
    listener.settimeout(60)
    conf = tmp_path / 'nova.conf'
    conf.write_text('[DEFAULT]\nstate_path = %s\n[aio]\ncompute_port = 0\nimage_port = 0\n'
                    'volume_port = 0\n[vnc]\nnovncproxy_port = 0\n[libvirt]\nconnection_uri = test:///default\n'
                    % (tmp_path / 'state'))
    code = 'import sys; from nova.cmd import aio as m; sys.exit(m.main(sys.argv[1:]))'
    proc = subprocess.Popen([sys.executable, '-c', code, '--config-file', str(conf)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, PYTHONPATH=ROOT, NOTIFY_SOCKET=sock_path),
                            cwd=ROOT)
    try:
        assert b'READY=1' in listener.recv(256)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        listener.close()
