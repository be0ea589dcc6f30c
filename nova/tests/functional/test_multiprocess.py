"""nova-api, nova-conductor and nova-compute as separate processes on RabbitMQ + PostgreSQL."""

import os
import subprocess

import pytest

from nova.tests.functional import fixtures, services
from nova.tests.functional import split_cluster as sc

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]


@pytest.fixture
def cluster(tmp_path):
    services.require(services.PG_URL, 'PostgreSQL')
    with services.ThrowawayVhost() as vhost:
        with sc.run(tmp_path, vhost.url) as running:
            yield running.as_dict()


def test_boot_through_three_processes(cluster):
    api = cluster['api']
    sc.wait(lambda: sc.api_up(api), 30, 'nova-api')
    for proc in cluster['procs']:
        assert proc.poll() is None, 'a service exited early'
    image_id = sc.upload_image(cluster['image'],
                               fixtures.tiny_disk(cluster['tmp'] / 'disk.img'))

    def created():
        # The compute service may still be registering its node.
        status, body = sc.call('POST', api + '/servers', {'server': {
            'name': 'mp1', 'imageRef': image_id, 'flavorRef': '1', 'networks': 'none'}})
        assert status == 202, body
        sid = body['server']['id']
        # Generous: on a loaded two-core host the three processes are still
        # importing and connecting when the first build is cast.
        server = sc.wait(lambda: sc.terminal(api, sid), 90, 'build')
        if server['status'] == 'ERROR':
            sc.call('DELETE', api + '/servers/' + sid)
            return None
        return server
    server = sc.wait(created, 120, 'an ACTIVE server')
    assert server['status'] == 'ACTIVE'
    assert server['OS-EXT-STS:power_state'] == 1
    status, admin_view = sc.call('GET', api + '/servers/' + server['id'], token='admin:admin')
    assert admin_view['server']['OS-EXT-SRV-ATTR:host'] == 'mp-compute'
    assert sc.call('DELETE', api + '/servers/' + server['id'])[0] == 204
    sc.wait(lambda: sc.call('GET', api + '/servers/' + server['id'])[0] == 404, 30, 'delete')
    _assert_compute_without_database(cluster['tmp'])
    # Every call of nova-compute was signed and accepted; the conductor had keys.
    conductor_log = (cluster['tmp'] / 'nova-conductor.log').read_text()
    assert 'Refused' not in conductor_log, conductor_log
    assert 'Compute host identity is not authenticated' not in conductor_log
    _assert_impersonation_refused(cluster['tmp'])


def _assert_impersonation_refused(tmp):
    """A host with a key of its own, naming mp-compute, is turned away at its first call."""
    manage = [os.path.join(sc.BIN, 'nova-manage'), '--config-file', str(tmp / 'nova.conf')]
    subprocess.run(manage + ['conductor', 'host-key', 'create', 'mp-other',
                             '--key-file', str(tmp / 'other.key')],
                   check=True, capture_output=True)
    intruder = tmp / 'intruder.conf'
    intruder.write_text((tmp / 'nova-compute.conf').read_text().replace(
        str(tmp / 'compute.key'), str(tmp / 'other.key')))
    proc = subprocess.run([os.path.join(sc.BIN, 'nova-compute'), '--config-file', str(intruder)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert ('nova-compute: error: nova-conductor refused this host: The ping call naming '
            'host mp-compute carries a wrong signature.') in proc.stderr
    assert 'Traceback' not in proc.stderr
    assert 'Refused: a call naming host mp-compute (ping) carries a wrong signature' in (
        tmp / 'nova-conductor.log').read_text()


def _assert_compute_without_database(tmp):
    """nova-compute built, ran and deleted a server without loading a database layer."""
    modules = {line.rsplit('|', 1)[1].strip()
               for line in (tmp / 'nova-compute.imports').read_text().splitlines()
               if line.startswith('import time:')}
    assert {'nova.compute.manager', 'nova.compute.conductor_db'} <= modules
    loaded = sorted(m for m in modules if m.split('.')[0] in (
        'sqlalchemy', 'psycopg2', 'pymysql', '_sqlite3', 'sqlite3')
        or m.startswith(('nova.db', 'oslo_db.sqlalchemy', 'nova.conductor.compute_db')))
    assert loaded == []
    # Its default [database] connection (SQLite under state_path) was never opened.
    assert not (tmp / 'state' / 'nova.sqlite').exists()

