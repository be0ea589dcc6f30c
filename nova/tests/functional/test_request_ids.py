"""A request id sent to the API tags the conductor and compute log lines of that request."""

import os
import re
import subprocess
import sys
import urllib.request
import uuid

import pytest

from nova.tests.functional import fixtures
from nova.tests.functional import split_cluster as sc
from nova.tests.functional.test_multiprocess import cluster  # noqa: F401 - a fixture.

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def _upload_image(image_url, tmp_path):
    status, image = sc.call('POST', image_url + '/v2/images',
                             {'name': 'img', 'disk_format': 'raw',
                              'container_format': 'bare'})
    assert status == 201
    with open(fixtures.tiny_disk(tmp_path / 'disk.img'), 'rb') as handle:
        req = urllib.request.Request(image_url + '/v2/images/%s/file' % image['id'],
                                     data=handle.read(), method='PUT')
    req.add_header('Content-Type', 'application/octet-stream')
    req.add_header('X-Auth-Token', 'demo:demo')
    urllib.request.urlopen(req, timeout=10).close()
    return image['id']


def _create(api, image_id, name, global_id):
    """POST /servers with ``global_id``; (server id, the API's local request id)."""
    req = urllib.request.Request(api + '/servers', method='POST', data=(
        '{"server": {"name": "%s", "imageRef": "%s", "flavorRef": "1", '
        '"networks": "none"}}' % (name, image_id)).encode())
    for key, value in (('X-Auth-Token', 'demo:demo'), ('Content-Type', 'application/json'),
                       ('OpenStack-API-Version', 'compute 2.100'),
                       ('X-OpenStack-Request-ID', global_id)):
        req.add_header(key, value)
    with urllib.request.urlopen(req, timeout=30) as resp:
        import json
        body = json.loads(resp.read())
        return body['server']['id'], resp.headers['x-openstack-request-id']


def _boot_two_and_check(api, image_url, tmp_path, logs):
    """Two servers one after the other, each with its own global request id.

    The same RPC worker threads handle both builds: every line about a
    server must carry that server's ids and never the other request's.
    """
    image_id = _upload_image(image_url, tmp_path)
    ids = []
    for name in ('rid-a', 'rid-b'):
        global_id = 'req-%s' % uuid.uuid4()
        server_id, local_id = sc.wait(
            lambda name=name, global_id=global_id: _try_create(api, image_id, name, global_id),
            40, 'an ACTIVE server')
        ids.append((server_id, global_id, local_id))
    text = ''.join(open(path).read() for path in logs)
    for server_id, global_id, local_id in ids:
        mine = [ln for ln in text.splitlines() if server_id in ln]
        for logger, message in (('nova.conductor.manager_build', 'scheduled to host'),
                                ('nova.compute.manager_build', 'Building instance'),
                                ('nova.compute.manager_build', 'built and running')):
            found = [ln for ln in mine if logger in ln and message in ln]
            assert found, 'no %s line %r for %s' % (logger, message, server_id)
            for line in found:
                assert '[%s %s ' % (global_id, local_id) in line, line
        for other_server, other_global, other_local in ids:
            if other_server != server_id:
                assert not [ln for ln in mine if other_global in ln or other_local in ln]


def _try_create(api, image_id, name, global_id):
    server_id, local_id = _create(api, image_id, name, global_id)
    server = sc.wait(lambda: sc.terminal(api, server_id), 30, 'build')
    if server['status'] != 'ACTIVE':
        # The compute service may still be registering its node.
        sc.call('DELETE', api + '/servers/' + server_id)
        return None
    return server_id, local_id


def test_request_id_reaches_compute_log_lines_all_in_one(tmp_path):
    log = tmp_path / 'nova.log'
    conf = tmp_path / 'nova.conf'
    conf.write_text('[DEFAULT]\nstate_path = %s\nlog_file = %s\nmetadata_listen_port = 0\n'
                    '[aio]\ncompute_port = 0\n'
                    'image_port = 0\nvolume_port = 0\n[vnc]\nnovncproxy_port = 0\n'
                    '[serial_console]\nserialproxy_port = 0\n[libvirt]\n'
                    'connection_uri = test:///default\n' % (tmp_path / 'state', log))
    code = 'import sys; from nova.cmd import aio as m; sys.exit(m.main(sys.argv[1:]))'
    proc = subprocess.Popen([sys.executable, '-c', code, '--config-file', str(conf)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT)
    try:
        urls = {}
        for line in proc.stdout:
            match = re.match(r'\s+(compute|image):\s+(\S+)', line)
            if match:
                urls[match.group(1)] = match.group(2)
            if len(urls) == 2:
                break
        assert len(urls) == 2, 'nova-aio did not start'
        _boot_two_and_check(urls['compute'], urls['image'], tmp_path, [log])
    finally:
        proc.terminate()
        proc.wait(timeout=60)


@pytest.mark.rabbit
@pytest.mark.postgresql
def test_request_id_reaches_compute_log_lines_split_services(cluster):  # noqa: F811
    sc.wait(lambda: sc.api_up(cluster['api']), 30, 'nova-api')
    tmp = cluster['tmp']
    _boot_two_and_check(cluster['api'], cluster['image'], tmp,
                        [tmp / 'nova-conductor.log', tmp / 'nova-compute.log'])
