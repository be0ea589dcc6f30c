"""kill -9 crash tests: a real nova-aio on qemu:///system dies at each failpoint and restarts."""

import http.client
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import uuid as uuidlib

import libvirt
import pytest

from nova.db import api as db_api
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures

pytestmark = fx.requires_libvirtd()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
V = '2.100'
CINDER = {'OpenStack-API-Version': 'volume 3.44'}
HOST = 'crashhost'
LOST = (ConnectionError, urllib.error.URLError, http.client.HTTPException, TimeoutError)


class Client(fixtures.RunningAio):
    """The fixtures' HTTP helpers, pointed at a nova-aio in another process."""

    def __init__(self, urls, state):  # noqa: D107 - no in-process start
        self.compute_url, self.image_url, volume = urls
        self.volume_url = volume[:-len('/v3')] if volume.endswith('/v3') else volume
        self.conf = type('Conf', (), {'state_path': str(state)})


class Process:
    """One nova-aio process after another on the same state directory."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.state = tmp / 'state'
        self.prefix = 'crash-%s-' % uuidlib.uuid4().hex[:8]
        self.conf = tmp / 'nova.conf'
        self.conf.write_text(
            '[DEFAULT]\nstate_path = %s\nhost = %s\nmetadata_listen_port = 0\n'
            'instance_name_template = %s%%08x\n'
            'sync_power_state_interval = -1\nreconcile_interval = 0\n'
            'ram_allocation_ratio = 100.0\ncpu_allocation_ratio = 100.0\n'
            'shutdown_timeout = 0\n[quota]\ninstances = -1\ncores = -1\nram = -1\n'
            '[aio]\ncompute_port = 0\nimage_port = 0\nvolume_port = 0\n'
            '[vnc]\nnovncproxy_port = 0\n[serial_console]\nserialproxy_port = 0\n'
            '[libvirt]\nconnection_uri = %s\n'
            % (self.state, HOST, self.prefix, fx.QEMU_URI))
        self.proc = None
        self.runs = 0
        self.db = None

    def start(self, failpoint=None):
        self.runs += 1
        log = self.tmp / ('run%d.log' % self.runs)
        env = dict(os.environ, PYTHONPATH=ROOT)
        env.pop('NOVA_FAILPOINT', None)
        if failpoint:
            env['NOVA_FAILPOINT'] = failpoint
        code = 'import sys; from nova.cmd import aio as m; sys.exit(m.main(sys.argv[1:]))'
        with open(log, 'w') as out:
            self.proc = subprocess.Popen([sys.executable, '-c', code, '--config-file',
                                          str(self.conf)], stdout=out,
                                         stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        deadline = time.monotonic() + 60
        while 'nova-aio ready' not in log.read_text():
            assert self.proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, 'nova-aio did not start'
            time.sleep(0.1)
        text = log.read_text()
        urls = [re.search(r'%s:\s+(\S+)' % k, text).group(1)
                for k in ('compute', 'image', 'volume')]
        self.log = log
        self.db = self.db or db_api.Database('sqlite:///%s/nova.sqlite' % self.state)
        return Client(urls, self.state)

    def crashed(self, timeout=60):
        """The armed failpoint killed the process with SIGKILL."""
        assert self.proc.wait(timeout=timeout) == -signal.SIGKILL, self.log.read_text()[-3000:]
        assert 'NOVA_FAILPOINT' in self.log.read_text()

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def remove_guests(self):
        conn = libvirt.open(fx.QEMU_URI)
        try:
            for dom in conn.listAllDomains():
                if dom.name().startswith(self.prefix):
                    if dom.isActive():
                        dom.destroy()
                    dom.undefine()
        finally:
            conn.close()


def _domain(sid):
    """(state, live XML) of the server's domain, or None without one."""
    conn = libvirt.open(fx.QEMU_URI)
    try:
        try:
            dom = conn.lookupByUUIDString(sid)
        except libvirt.libvirtError:
            return None
        return dom.state()[0], dom.XMLDesc(0), dom.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE)
    finally:
        conn.close()


def _serials(sid):
    _state, live, persistent = _domain(sid)
    return set(re.findall(r'<serial>([^<]+)</serial>', live + persistent))


def _act(c, sid, body):
    """Send an action that may kill the server process before it answers."""
    try:
        return c.request('POST', '/servers/%s/action' % sid, body, version=V)
    except LOST:
        return None


def _volume(c, status=None):
    if status is None:
        s, _h, body = c.request('POST', '/v3/demo/volumes', {'volume': {'size': 1}},
                                url=c.volume_url, headers=CINDER)
        assert s == 202, body
        return _volume(c, {'id': body['volume']['id'], 'want': 'available'})
    deadline = time.monotonic() + 30
    while True:
        body = c.request('GET', '/v3/demo/volumes/' + status['id'], url=c.volume_url,
                         headers=CINDER)[2]['volume']
        if body['status'] == status['want'] or time.monotonic() > deadline:
            assert body['status'] == status['want'], body
            return body
        time.sleep(0.1)


def _boot(c, name, flavor='crash', wait=True):
    try:
        s, _h, body = c.request('POST', '/servers', {'server': {
            'name': name, 'imageRef': c.image, 'flavorRef': flavor, 'networks': 'none'}},
            version=V)
    except LOST:
        return None
    if body is None and s == 202 and not wait:
        return None  # The crash cut the answer off after its status line.
    assert s == 202, body
    if wait:
        c.wait_for_status(body['server']['id'], ['ACTIVE'])
    return body['server']['id']


def _by_name(db, name):
    return next(r for r in db.instance_get_all({}) if r['display_name'] == name)


def _repaired(db, uuid, words):
    """The latest fault names the repair and a compute_reconcile event recorded it."""
    fault = db.faults_latest([uuid])[uuid]
    assert words in fault['message'], fault
    action = db.actions_get(uuid, limit=1)[0]
    events = {e['event']: e for e in db.events_get(action['id'])}
    assert events['compute_reconcile']['result'] == 'Success', events
    assert words in events['compute_reconcile']['details']
    assert all(e['finish_time'] is not None for e in events.values()), events
    return action


def _row(db, uuid, vm_state, task_state=None):
    row = db.instance_get(uuid)
    assert (row['vm_state'], row['task_state']) == (vm_state, task_state), dict(row)
    return row


def _attachments(c, sid):
    return {a['volumeId'] for a in c.request(
        'GET', '/servers/%s/os-volume_attachments' % sid, version=V)[2]['volumeAttachments']}


def _snapshot_abandoned(c, db, sid):
    _row(db, sid, 'active')
    _repaired(db, sid, 'snapshot was abandoned')
    assert _domain(sid)[0] == libvirt.VIR_DOMAIN_RUNNING
    images = c.request('GET', '/v2/images', url=c.image_url)[2]['images']
    assert [i['status'] for i in images if i.get('instance_uuid') == sid] == []


@pytest.fixture
def proc(tmp_path):
    p = Process(tmp_path)
    yield p
    p.stop()
    p.remove_guests()


def test_kill_9_at_each_failpoint_then_restart_reconciles(proc):
    # -- build: the guest runs, the row is still BUILD/spawning --------------
    c = proc.start('build.after_spawn')
    c.image = c.upload_image(fixtures.tiny_disk(proc.tmp / 'disk.img'))
    assert c.request('POST', '/flavors', {'flavor': {
        'name': 'crash', 'ram': 64, 'vcpus': 1, 'disk': 1, 'id': 'crash'}},
        token='admin:admin')[0] == 200
    va, vb, vc = _volume(c), _volume(c), _volume(c)
    _boot(c, 'build', wait=False)
    proc.crashed()
    build = _by_name(proc.db, 'build')['uuid']
    assert _domain(build) is not None  # the crash left the guest behind

    # -- unrescue: the guest is back on its disks, the row is RESCUE/unrescuing
    c = proc.start('unrescue.after_driver')
    c.image = _by_name(proc.db, 'build')['image_ref']
    _row(proc.db, build, 'error')
    _repaired(proc.db, build, 'build was abandoned')
    assert _domain(build) is None
    r, u, d, gone = (_boot(c, n) for n in ('r', 'u', 'd', 'gone'))
    plain_r = _domain(r)[2]
    assert c.request('POST', '/servers/%s/action' % u, {'rescue': {}}, version=V)[0] == 200
    c.wait_for_status(u, ['RESCUE'])
    c.request('POST', '/servers/%s/os-volume_attachments' % d,
              {'volumeAttachment': {'volumeId': vc['id']}}, version=V)
    _volume(c, {'id': vc['id'], 'want': 'in-use'})
    _act(c, d, {'os-stop': None})
    c.wait_for_status(d, ['SHUTOFF'])
    _act(c, u, {'unrescue': None})
    proc.crashed()

    # -- rescue: the guest boots the rescue media, the row is still rescuing --
    c = proc.start('rescue.after_driver')
    _row(proc.db, u, 'active')
    _repaired(proc.db, u, 'unrescue was finished')
    assert 'rescue' not in _domain(u)[2] and _domain(u)[0] == libvirt.VIR_DOMAIN_RUNNING
    _act(c, r, {'rescue': {}})
    proc.crashed()
    assert 'rescue' in _domain(r)[2]  # crashed in the rescue layout

    # -- the restart finds the rescue finished (its report was lost): it records
    # it, without a fault; a plain unrescue then brings the server back ---------
    c = proc.start('rescue.before_driver')
    _row(proc.db, r, 'rescued')
    action = proc.db.actions_get(r, limit=1)[0]
    events = {e['event']: e for e in proc.db.events_get(action['id'])}
    assert 'recorded as rescued' in events['compute_reconcile']['details'], events
    assert 'rescue' in _domain(r)[2]
    _act(c, r, {'unrescue': None})
    deadline = time.monotonic() + 120
    while proc.db.instance_get(r)['vm_state'] != 'active':
        assert time.monotonic() < deadline, dict(proc.db.instance_get(r))
        time.sleep(0.2)
    _row(proc.db, r, 'active')

    # -- rescue again, crash before the driver started: nothing to undo ------
    _act(c, r, {'rescue': {}})
    proc.crashed()
    c = proc.start('attach.after_connect')
    _row(proc.db, r, 'active')
    _repaired(proc.db, r, 'rescue was rolled back')
    state, _live, persistent = _domain(r)
    assert state == libvirt.VIR_DOMAIN_RUNNING and persistent == plain_r
    assert not os.path.exists(proc.state / 'instances' / r / 'unrescue.xml')

    # -- attach, crash after connecting: the guest does not have the volume ---
    try:
        c.request('POST', '/servers/%s/os-volume_attachments' % r,
                  {'volumeAttachment': {'volumeId': va['id']}}, version=V)
    except LOST:
        pass
    proc.crashed()

    # -- attach, crash after the guest got it: attachment not completed -------
    c = proc.start('attach.after_driver')
    _row(proc.db, r, 'active')
    _repaired(proc.db, r, 'attach was rolled back')
    _volume(c, {'id': va['id'], 'want': 'available'})
    assert _attachments(c, r) == set() and va['id'] not in _serials(r)
    try:
        c.request('POST', '/servers/%s/os-volume_attachments' % r,
                  {'volumeAttachment': {'volumeId': vb['id']}}, version=V)
    except LOST:
        pass
    proc.crashed()

    # -- attach, the API dies after reserving the volume: no mapping ----------
    c = proc.start('attach.api_reserved')
    _repaired(proc.db, r, 'attach was completed')
    _volume(c, {'id': vb['id'], 'want': 'in-use'})
    assert _attachments(c, r) == {vb['id']} and vb['id'] in _serials(r)
    try:
        c.request('POST', '/servers/%s/os-volume_attachments' % r,
                  {'volumeAttachment': {'volumeId': va['id']}}, version=V)
    except LOST:
        pass
    proc.crashed()

    # -- detach of a stopped server, crash after the guest lost it ------------
    c = proc.start('detach.after_driver')
    _repaired(proc.db, r, 'volume %s was reserved for the server but never mapped'
              % va['id'])
    _volume(c, {'id': va['id'], 'want': 'available'})
    assert _attachments(c, r) == {vb['id']} and va['id'] not in _serials(r)
    try:
        c.request('DELETE', '/servers/%s/os-volume_attachments/%s' % (d, vc['id']),
                  version=V)
    except LOST:
        pass
    proc.crashed()

    # -- snapshot, crash while the guest is paused for the copy --------------
    c = proc.start('snapshot.guest_paused')
    _row(proc.db, d, 'stopped')
    _repaired(proc.db, d, 'detach of volume %s was finished' % vc['id'])
    _volume(c, {'id': vc['id'], 'want': 'available'})
    assert _attachments(c, d) == set() and vc['id'] not in _serials(d)
    # A disk no mapping names (as a rollback that could not take it out of
    # the definition leaves): the stopped guest keeps it, the mapping and the
    # attachment are gone.
    c.request('POST', '/servers/%s/os-volume_attachments' % d,
              {'volumeAttachment': {'volumeId': vc['id']}}, version=V)
    _volume(c, {'id': vc['id'], 'want': 'in-use'})
    bdm = next(b for b in proc.db.bdm_get_by_instance(d) if b['volume_id'] == vc['id'])
    assert c.request('DELETE', '/v3/demo/attachments/' + bdm['attachment_id'],
                     url=c.volume_url, headers=CINDER)[0] == 200
    proc.db.bdm_destroy(bdm['uuid'])
    _act(c, u, {'createImage': {'name': 'snap'}})
    proc.crashed()
    assert _domain(u)[0] == libvirt.VIR_DOMAIN_PAUSED
    assert vc['id'] in _serials(d)

    # -- snapshot, crash after the copy, before the upload: image queued ------
    c = proc.start('snapshot.after_copy')
    _snapshot_abandoned(c, proc.db, u)
    _repaired(proc.db, d, 'the guest had volume %s that no mapping names' % vc['id'])
    assert vc['id'] not in _serials(d)
    _act(c, u, {'createImage': {'name': 'snap'}})
    proc.crashed()

    # -- delete, crash after the guest is gone: row deleting, claim held ------
    c = proc.start('delete.after_destroy')
    _snapshot_abandoned(c, proc.db, u)
    try:
        c.request('DELETE', '/servers/' + gone)
    except LOST:
        pass
    proc.crashed()

    # -- a build request lost before the conductor picked a host --------------
    c = proc.start('schedule.before_claim')
    assert c.request('GET', '/servers/' + gone)[0] == 404
    assert _domain(gone) is None
    c.image = _by_name(proc.db, 'r')['image_ref']
    _boot(c, 'lost', wait=False)
    proc.crashed()

    # -- ... and one lost after the host was claimed (the claim must not leak)
    c = proc.start('schedule.after_claim')
    _lost_build(proc.db, 'lost')
    c.image = _by_name(proc.db, 'r')['image_ref']
    _boot(c, 'lost2', wait=False)
    proc.crashed()

    c = proc.start()
    lost = _lost_build(proc.db, 'lost2')
    # Usage recomputed from what is on the host: build (ERROR keeps its
    # claim), r, u, d; nothing of 'gone', 'lost' or 'lost2' leaks.
    node = proc.db.compute_node_get(HOST)
    assert (node['vcpus_used'], node['memory_mb_used']) == (4, 4 * 64)
    status, _h, body = c.request('GET', '/servers/' + lost['uuid'], version=V)
    assert body['server']['status'] == 'ERROR' and body['server']['fault']['code'] == 500


def _lost_build(db, name):
    lost = _by_name(db, name)
    _row(db, lost['uuid'], 'error')
    assert lost['host'] is None
    assert 'lost before a host was chosen' in \
        db.faults_latest([lost['uuid']])[lost['uuid']]['message']
    events = db.events_get(db.actions_get(lost['uuid'], limit=1)[0]['id'])
    assert ('conductor_reconcile_lost_build', 'Error') in [
        (e['event'], e['result']) for e in events]
    assert all(e['finish_time'] is not None for e in events), events
    return lost
