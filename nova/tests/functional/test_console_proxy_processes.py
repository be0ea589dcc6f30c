"""The console proxies (serial, noVNC, spice-html5) as their own processes, on a real DB."""

import os
import socket
import subprocess
import sys
import threading
import time

import oslo_messaging as messaging
import pytest

from nova import conf as nova_conf
from nova import exception, objects, rpc
from nova.console import tokens
from nova.db import api as db_api
from nova.tests.functional import services
from nova.tests.functional.consoles_client import WebSocketClient

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
UUID = '6c1f3b2e-3f0b-4a59-9a53-0d2f9a7c1e11'
HOST = 'console-host'


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _echo_server():
    """A TCP 'guest console' that echoes in upper case."""
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen()

    def serve():
        while True:
            try:
                conn, _addr = listener.accept()
            except OSError:
                return
            with conn:
                while data := conn.recv(4096):
                    conn.sendall(data.upper())
    threading.Thread(target=serve, daemon=True).start()
    return listener


class ConsoleHost:
    """The compute host's side of the check: where the guest's console is now.

    A real RPC server on the test's own RabbitMQ virtual host, answering the
    compute manager's ``get_console_connect_info`` with ``where`` (None: the
    guest is stopped).
    """
    target = messaging.Target(version='1.5')

    def __init__(self, where):
        self.where = where

    @messaging.expected_exceptions(exception.InstanceNotReady)
    def get_console_connect_info(self, context, instance, console_type):
        if self.where is None:
            raise exception.InstanceNotReady(instance_id=instance.uuid)
        return dict(self.where)


@pytest.fixture(scope='module')
def vhost():
    with services.ThrowawayVhost() as made:
        yield made.url


@pytest.mark.parametrize('command,console_type,group,port_opt,url_opt,url', [
    ('serialproxy', 'serial', 'serial_console', 'serialproxy_port', 'base_url',
     'ws://127.0.0.1:%d/'),
    ('novncproxy', 'novnc', 'vnc', 'novncproxy_port', 'novncproxy_base_url',
     'http://127.0.0.1:%d/vnc_auto.html'),
    ('spicehtml5proxy', 'spice-html5', 'spice', 'html5proxy_port', 'html5proxy_base_url',
     'http://127.0.0.1:%d/spice_auto.html'),
])
def test_proxy_process_relays_with_a_valid_token_only(tmp_path, vhost, command, console_type,
                                                      group, port_opt, url_opt, url):
    db_url = 'sqlite:///%s' % (tmp_path / 'nova.sqlite')
    db = db_api.Database(db_url)
    db.sync()
    db.instance_create({'uuid': UUID, 'project_id': 'p', 'user_id': 'u',
                        'display_name': 'vm', 'host': HOST, 'vm_state': 'active'})
    guest = _echo_server()
    info = {'host': '127.0.0.1', 'port': guest.getsockname()[1]}
    objects.register_all()
    rpc_conf = nova_conf.new_config()
    rpc_conf([], default_config_files=[])
    rpc_conf.set_override('transport_url', vhost)
    console_host = ConsoleHost(info)
    rpc_server = rpc.get_server(rpc_conf, 'compute', HOST, [console_host])
    rpc_server.start()
    port = _free_port()
    base = url % port
    conf = tmp_path / 'nova.conf'
    conf.write_text('[DEFAULT]\ntransport_url = %s\n[database]\nconnection = %s\n'
                    '[%s]\n%s = %d\n%s = %s\n'
                    % (vhost, db_url, group, port_opt, port, url_opt, base))
    code = ('import sys; from nova.cmd import %s as m; sys.exit(m.main(sys.argv[1:]))'
            % command)
    proc = subprocess.Popen([sys.executable, '-c', code, '--config-file', str(conf)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(('127.0.0.1', port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read()
                assert time.monotonic() < deadline, 'proxy did not listen'
                time.sleep(0.1)
        _token, good = tokens.issue(db, 600, UUID, console_type, info, base)
        client = WebSocketClient(good)
        assert client.status == 101, client.status_line
        client.send(b'hello')
        assert client.recv_data() == b'HELLO'
        client.close()
        _token, expired = tokens.issue(db, 0, UUID, console_type, info, base)
        other = 'novnc' if console_type == 'serial' else 'serial'
        _token, wrong = tokens.issue(db, 600, UUID, other, info, base)
        for refused in (expired, wrong, good.replace('token', 'token=x&t')):
            client = WebSocketClient(refused)
            assert client.status == 403, (refused, client.status_line)
            client.close()
        # The guest's console moved (another guest took the port) or stopped:
        # the proxy asks the host first, refuses, and the token is gone.
        for where in ({'host': '127.0.0.1', 'port': info['port'] + 1}, None):
            console_host.where = where
            good_token, stale = tokens.issue(db, 600, UUID, console_type, info, base)
            client = WebSocketClient(stale)
            assert client.status == 403, (where, client.status_line)
            client.close()
            with pytest.raises(exception.InvalidToken):
                tokens.validate(db, good_token)
    finally:
        proc.terminate()
        proc.wait(30)
        rpc_server.stop()
        rpc_server.wait()
        guest.close()
