"""kill -9 in the middle of a move between two hosts of a real nova-aio, then restart."""

import os

import libvirt
import pytest

from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures
from nova.tests.functional import test_crash_reconcile as crash

pytestmark = fx.requires_libvirtd()
OTHER = 'crashhost2'


@pytest.fixture
def proc(tmp_path):
    p = crash.Process(tmp_path)
    p.conf.write_text(p.conf.read_text().replace(
        '[aio]\n', '[aio]\nextra_compute_hosts = %s\n' % OTHER))
    yield p
    p.stop()
    p.remove_guests()


def _migration(db, sid):
    return db.migration_list({'instance_uuid': sid})[0]


def _back_on_source(proc, c, sid):
    c.wait_for_status(sid, ['ACTIVE'], token='admin:admin')
    row = crash._row(proc.db, sid, 'active')
    assert row['host'] == crash.HOST
    assert crash._domain(sid)[0] == libvirt.VIR_DOMAIN_RUNNING
    assert _migration(proc.db, sid)['status'] == 'error'
    fault = proc.db.faults_latest([sid])[sid]
    assert 'interrupted by a restart' in fault['message'], fault
    instances = proc.state / 'instances'
    assert os.path.isfile(instances / sid / 'disk')
    assert not os.path.exists(instances / (sid + '_resize'))
    assert not os.path.exists(proc.state / 'hosts' / OTHER / 'instances' / sid)
    # Claims: the server's flavor on the source; the resident's alone on the other
    # host (a claim released twice would take the resident's away).
    assert proc.db.compute_node_get(crash.HOST)['memory_mb_used'] == 64
    assert proc.db.compute_node_get(OTHER)['memory_mb_used'] == 64


def _start_move(c, sid):
    status, _h, body = c.request('POST', '/servers/%s/action' % sid,
                                 {'migrate': {'host': OTHER}}, version='2.56',
                                 token='admin:admin')
    assert status == 202, body


def test_kill_9_on_either_host_during_a_move_brings_it_back_to_the_source(proc):
    # -- the source stopped the guest and kept its files, then died -----------
    c = proc.start('migrate.after_power_off')
    c.image = c.upload_image(fixtures.tiny_disk(proc.tmp / 'disk.img'))
    assert c.request('POST', '/flavors', {'flavor': {
        'name': 'crash', 'ram': 64, 'vcpus': 1, 'disk': 1, 'id': 'crash'}},
        token='admin:admin')[0] == 200
    for name, host in (('resident', OTHER), ('mover', crash.HOST)):
        status, _h, body = c.request('POST', '/servers', {'server': {
            'name': name, 'imageRef': c.image, 'flavorRef': 'crash', 'networks': 'none',
            'availability_zone': 'nova:' + host}}, version=crash.V, token='admin:admin')
        assert status == 202, body
        sid = body['server']['id']
        c.wait_for_status(sid, ['ACTIVE'], token='admin:admin')
    _start_move(c, sid)
    proc.crashed()
    assert crash._domain(sid) is None   # undefined on the source, not yet anywhere
    assert os.path.isdir(proc.state / 'instances' / (sid + '_resize'))

    # -- the destination copied the files and took the row, then died ---------
    c = proc.start('migrate.after_take')
    _back_on_source(proc, c, sid)
    _start_move(c, sid)
    proc.crashed()
    assert proc.db.instance_get(sid)['host'] == OTHER
    assert os.path.isdir(proc.state / 'hosts' / OTHER / 'instances' / sid)

    # -- a clean restart: back on the source, and a move now succeeds ---------
    c = proc.start()
    _back_on_source(proc, c, sid)
    _start_move(c, sid)
    c.wait_for_status(sid, ['VERIFY_RESIZE'], token='admin:admin')
    assert proc.db.instance_get(sid)['host'] == OTHER
    assert crash._domain(sid)[0] == libvirt.VIR_DOMAIN_RUNNING
    assert c.request('POST', '/servers/%s/action' % sid, {'confirmResize': None},
                     version=crash.V, token='admin:admin')[0] == 204
    c.wait_for_status(sid, ['ACTIVE'], token='admin:admin')
