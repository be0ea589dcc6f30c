"""Split services misconfigured: one line naming the problem, exit 1, no traceback, no hang."""

import os
import socket
import subprocess
import sys

import pytest

from nova.tests.functional import services
from nova.tests.functional.test_startup_errors import _assert_one_line, _conf, _run


def _split_conf(tmp_path, rabbit_url, extra=''):
    return ('[DEFAULT]\nstate_path = %s\ntransport_url = %s\napi_listen = 127.0.0.1\n'
            'metadata_listen = 127.0.0.1\nmetadata_listen_port = 0\n'
            '[database]\nconnection = sqlite:///%s/nova.sqlite\n'
            '[libvirt]\nconnection_uri = test:///default\n%s'
            % (tmp_path / 'state', rabbit_url, tmp_path, extra))


@pytest.fixture(scope='module')
def rabbit():
    """A virtual host of this module's own: no other deployment answers its services."""
    with services.ThrowawayVhost() as vhost:
        yield vhost.url


def test_api_port_in_use_is_named(tmp_path, rabbit):
    with socket.socket() as busy:
        busy.bind(('127.0.0.1', 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        conf = _split_conf(tmp_path, rabbit).replace(
            'api_listen = 127.0.0.1\n', 'api_listen = 127.0.0.1\napi_listen_port = %d\n' % port)
        rc, _out, err = _run('api', '--config-file', _conf(tmp_path, conf))
    _assert_one_line(rc, err, 'cannot listen on 127.0.0.1:%d' % port,
                     'Address already in use')


@pytest.mark.parametrize('module', ['api', 'conductor'])
def test_unreachable_database(tmp_path, rabbit, module):
    conf = _split_conf(tmp_path, rabbit).replace(
        'sqlite:///%s/nova.sqlite' % tmp_path,
        'postgresql+psycopg2://postgres@127.0.0.1:1/nova\nmax_retries = 1\nretry_interval = 1')
    rc, _out, err = _run(module, '--config-file', _conf(tmp_path, conf))
    _assert_one_line(rc, err, 'cannot connect to the database ([database] connection)')


def test_compute_unreachable_libvirtd(tmp_path, rabbit):
    conf = _split_conf(tmp_path, rabbit).replace(
        'test:///default', 'qemu+unix:///system?socket=%s/no-such.sock' % tmp_path)
    rc, _out, err = _run('compute', '--config-file', _conf(tmp_path, conf))
    _assert_one_line(rc, err, 'is libvirtd running?')


def test_compute_unwritable_instances_path(tmp_path, rabbit):
    blocker = tmp_path / 'file'
    blocker.write_text('')
    conf = _split_conf(tmp_path, rabbit).replace(
        '[database]', 'instances_path = %s/instances\n[database]' % blocker)
    rc, _out, err = _run('compute', '--config-file', _conf(tmp_path, conf))
    _assert_one_line(rc, err, 'instances_path', str(blocker))


def test_compute_refuses_a_conductor_pin_below_its_database_calls(tmp_path, rabbit):
    """nova-compute needs conductor RPC 1.2 for every row it touches: a lower pin stops it."""
    conf = _split_conf(tmp_path, rabbit, '[upgrade_levels]\nconductor = 1.1\n')
    conf = conf[:conf.index('[database]')] + conf[conf.index('[libvirt]'):]
    rc, _out, err = _run('compute', '--config-file', _conf(tmp_path, conf))
    _assert_one_line(rc, err, 'nova-compute needs conductor RPC 1.2',
                     '[upgrade_levels] conductor pins it to 1.1')


def test_compute_with_an_unreadable_host_key_file_stops_at_start(tmp_path, rabbit):
    conf = _split_conf(tmp_path, rabbit, '[conductor]\nhost_key_file = %s/none.key\n' % tmp_path)
    conf = conf[:conf.index('[database]')] + conf[conf.index('[libvirt]'):]
    rc, _out, err = _run('compute', '--config-file', _conf(tmp_path, conf))
    _assert_one_line(rc, err, 'cannot read [conductor] host_key_file %s/none.key' % tmp_path,
                     'No such file or directory')



@pytest.mark.parametrize('module', ['conductor', 'compute'])
def test_a_virtual_host_the_broker_refuses(tmp_path, rabbit, module):
    """NOT_ALLOWED (a vhost this user may not open, e.g. permissions being changed): one
    line and exit 1, for the unit's Restart=on-failure to try again; no traceback."""
    refused = services.RABBIT_URL.rstrip('/') + '/nova_test_no_such_vhost'
    conf = _conf(tmp_path, _split_conf(tmp_path, refused))
    subprocess.run([os.path.join(os.path.dirname(sys.executable), 'nova-manage'),
                    '--config-file', conf, 'db', 'sync'], check=True, capture_output=True)
    rc, _out, err = _run(module, '--config-file', conf)
    _assert_one_line(rc, err, 'the message broker refused the connection', 'NOT_ALLOWED')
