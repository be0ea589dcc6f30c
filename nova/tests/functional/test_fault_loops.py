"""A split deployment through broker, conductor and API faults: no 500, nothing stuck or leaked."""

import collections
import datetime
import shutil
import subprocess
import threading
import time
import urllib.error

import pytest
import sqlalchemy as sa

from nova.tests.functional import fixtures, services
from nova.tests.functional import split_cluster as sc

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]
ADMIN = 'admin:admin'
# Before 2.88 os-hypervisors/detail shows the node's usage counters.
USAGE_VERSION = '2.87'
# flavor 1 (m1.tiny): vCPUs, MB, GB.
TINY = (1, 512, 1)
SERVERS = 3
# Each server's round, with the status each step ends in.
STEPS = (('create', 'ACTIVE'), ('rescue', 'RESCUE'), ('unrescue', 'ACTIVE'),
         ('stop', 'SHUTOFF'), ('start', 'ACTIVE'), ('delete', 'DELETED'))
ACTIONS = {'rescue': {'rescue': {}}, 'unrescue': {'unrescue': None},
           'stop': {'os-stop': None}, 'start': {'os-start': None}}
# One fault (or two at once) before or during (right after the answer to) every
# other step: nine in all. In the pairs the broker refuses the virtual host to
# a fresh nova-api's first send, and to a conductor starting.
SCHEDULE = ((('close_connections',), False), (('revoke_permissions',), True),
            (('kill_conductor',), False), (('kill_api',), True),
            (('kill_api', 'revoke_permissions'), False), (('close_connections',), True),
            (('revoke_permissions', 'kill_conductor'), False), (('kill_conductor',), True),
            (('kill_api',), False))
# Seconds the permissions stay revoked.
REVOKED = 5
# How long the loop gives one request to be taken, and one step to end.
ACCEPT_WINDOW, STEP_WINDOW = 60, 60


@pytest.fixture
def cluster(tmp_path):
    services.require(services.PG_URL, 'PostgreSQL')
    with services.ThrowawayVhost() as vhost:
        if vhost.name is None:
            pytest.skip('the fault loop changes its virtual host: it needs one of its own')
        # A call to a dead conductor gives up after 10 s, not 60.
        with sc.run(tmp_path, vhost.url,
                    '[DEFAULT]\nrpc_response_timeout = 10\n') as running:
            running.vhost = vhost.name
            yield running


def _ctl(*args):
    done = subprocess.run([shutil.which('rabbitmqctl'), '-q'] + list(args),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


class Loop:
    """Requests, answers, faults and failures of one run, and what each fault cost."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.answers = collections.Counter()
        self.operations = collections.Counter()
        self.faults = collections.Counter()
        self.failures = []
        self.recovery = collections.defaultdict(list)
        self.exits = collections.Counter()
        # Held while a fault kills and starts a service: not an exit to restart.
        self.lock = threading.Lock()
        self._probes = []

    def request(self, method, path, body=None, token='demo:demo', version='2.100'):
        """One answer of the API, counted; the API being down is waited for, not an answer."""
        deadline = time.monotonic() + ACCEPT_WINDOW
        while True:
            try:
                status, reply = sc.call(method, self.cluster.api + path, body, token=token,
                                        version=version, timeout=30)
            except urllib.error.URLError as exc:
                if not isinstance(exc.reason, ConnectionRefusedError):
                    raise
                assert time.monotonic() < deadline, 'nova-api did not come back'
                time.sleep(0.2)
                continue
            self.answers[status] += 1
            return status, reply

    def send(self, name, sid, body):
        """A request the loop tries again while it answers 503; the last answer."""
        deadline = time.monotonic() + ACCEPT_WINDOW
        while True:
            if name == 'create':
                status, reply = self.request('POST', '/servers', body)
            elif name == 'delete':
                status, reply = self.request('DELETE', '/servers/' + sid)
            else:
                status, reply = self.request('POST', '/servers/%s/action' % sid, body)
            if status != 503 or time.monotonic() > deadline:
                return status, reply
            self.operations['refused (503)'] += 1
            time.sleep(0.5)

    def server(self, sid):
        status, body = self.request('GET', '/servers/' + sid, token=ADMIN)
        if status == 404:
            return {'status': 'DELETED', 'OS-EXT-STS:task_state': None}
        assert status == 200, body
        return body['server']

    def settle(self, sid, want):
        """Wait for ``want`` or for a server no task holds (the step ended); the server.

        The API sets the task before it answers, so no task means the step
        ended, done or rolled back.
        """
        deadline = time.monotonic() + STEP_WINDOW
        while True:
            server = self.server(sid)
            if server['status'] == want or (server['status'] != 'BUILD'
                                            and not server['OS-EXT-STS:task_state']):
                return server
            if time.monotonic() > deadline:
                return server
            time.sleep(0.3)

    # -- faults ------------------------------------------------------------------
    def inject(self, group):
        started = time.monotonic()
        vhost = self.cluster.vhost
        for fault in group:
            self.faults[fault] += 1
            if fault == 'close_connections':
                _ctl('close_all_connections', '--vhost', vhost, 'nova fault loop')
            elif fault == 'revoke_permissions':
                # Open connections keep their rights: closed too, every service
                # reconnects to a broker that refuses it until the permissions are back.
                _ctl('clear_permissions', '-p', vhost, 'guest')
                _ctl('close_all_connections', '--vhost', vhost, 'nova fault loop: revoked')
                timer = threading.Timer(REVOKED, _ctl, (
                    'set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*'))
                timer.start()
                self._probes.append(timer)
                started += REVOKED
            else:
                binary = 'nova-conductor' if fault == 'kill_conductor' else 'nova-api'
                with self.lock:
                    self.cluster.kill(binary)
                    self.cluster.start(binary)
                if binary == 'nova-api':
                    # Serving (its version document needs no broker) before the next fault.
                    sc.wait(lambda: sc.api_up(self.cluster.api), 30, 'nova-api')
        probe = threading.Thread(target=self._measure, args=('+'.join(group), started),
                                 daemon=True)
        probe.start()
        self._probes.append(probe)

    def _measure(self, fault, since):
        """Seconds from the fault's end until the service answered again.

        nova-api: its version document. The rest: a heartbeat of nova-compute
        (compute -> broker -> conductor -> database) written after the fault.
        """
        time.sleep(max(0.0, since - time.monotonic()))
        # Rows carry UTC whole seconds: a heartbeat in a later second is newer.
        after = datetime.datetime.utcnow().replace(microsecond=0)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if fault == 'kill_api':
                ok = sc.api_up(self.cluster.api)
            else:
                ok = _last_heartbeat(self.cluster.db_url) > after
            if ok:
                self.recovery[fault].append(round(time.monotonic() - since, 1))
                return
            time.sleep(0.2)
        self.recovery[fault].append(None)

    def supervise(self, stop):
        """Start again a service that exited, as the units' Restart=on-failure does."""
        while not stop.wait(0.5):
            with self.lock:
                for binary, proc in list(self.cluster.procs.items()):
                    if proc.poll() is not None:
                        self.exits[binary] += 1
                        self.cluster.start(binary)

    def wait_probes(self):
        for probe in self._probes:
            probe.join(timeout=130)

    def report(self):
        return ('fault loop: operations %s; answers %s; faults %s; recovery seconds %s; '
                'exits restarted %s; failures %d: %s'
                % (dict(self.operations), dict(self.answers), dict(self.faults),
                   dict(self.recovery), dict(self.exits), len(self.failures), self.failures))


def _last_heartbeat(url):
    """When nova-compute's heartbeat last reached the database (the conductor wrote it)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text('SELECT last_seen_up FROM services WHERE "binary" = :b'),
                                {'b': 'nova-compute'}).scalar()
    finally:
        engine.dispose()


def _node_up(api):
    status, body = sc.call('GET', api + '/os-hypervisors', token=ADMIN)
    return status == 200 and [h for h in body['hypervisors'] if h['state'] == 'up']


def _usage(loop):
    status, body = loop.request('GET', '/os-hypervisors/detail', token=ADMIN,
                                version=USAGE_VERSION)
    assert status == 200, body
    node = body['hypervisors'][0]
    return node['vcpus_used'], node['memory_mb_used'], node['local_gb_used']


def _first_server(loop, image_id):
    """A server that stays: the usage at the end is its flavor's."""
    def created():
        # nova-compute may still be registering its node.
        status, body = loop.request('POST', '/servers', {'server': {
            'name': 'stays', 'imageRef': image_id, 'flavorRef': '1', 'networks': 'none'}})
        assert status == 202, body
        server = loop.settle(body['server']['id'], 'ACTIVE')
        if server['status'] != 'ACTIVE':
            loop.request('DELETE', '/servers/' + body['server']['id'])
            return None
        return server
    return sc.wait(created, 60, 'a first ACTIVE server')


def _round(loop, index, image_id, schedule):
    """One server's create ... delete, a fault before or during every other step."""
    sid = None
    for step, (name, want) in enumerate(STEPS):
        fault, during = schedule.get((index, step), (None, False))
        if fault and not during:
            loop.inject(fault)
        body = ACTIONS.get(name)
        if name == 'create':
            body = {'server': {'name': 'loop-%d' % index, 'imageRef': image_id,
                               'flavorRef': '1', 'networks': 'none'}}
        loop.operations[name] += 1
        status, reply = loop.send(name, sid, body)
        if fault and during:
            loop.inject(fault)
        if name == 'create':
            assert status == 202, reply
            sid = reply['server']['id']
        if status >= 300:
            loop.failures.append('%s %s: %d %s' % (name, sid, status, reply))
            continue
        server = loop.settle(sid, want)
        if server['status'] != want:
            loop.failures.append('%s %s: ended %s/%s' % (
                name, sid, server['status'], server['OS-EXT-STS:task_state']))
    return sid


def test_split_services_survive_faults(cluster):
    started = time.monotonic()
    loop = Loop(cluster)
    sc.wait(lambda: sc.api_up(cluster.api), 30, 'nova-api')
    image_id = sc.upload_image(cluster.image, fixtures.tiny_disk(cluster.tmp / 'disk.img'))
    sc.wait(lambda: _node_up(cluster.api), 60, 'the compute node')
    stays = _first_server(loop, image_id)
    assert _usage(loop) == TINY
    slots = [(index, step) for index in range(SERVERS)
             for step in range(index % 2, len(STEPS), 2)]
    schedule = dict(zip(slots, SCHEDULE))
    stop = threading.Event()
    supervisor = threading.Thread(target=loop.supervise, args=(stop,), daemon=True)
    supervisor.start()
    try:
        sids = [_round(loop, index, image_id, schedule) for index in range(SERVERS)]
        loop.wait_probes()
    finally:
        stop.set()
        supervisor.join()
    faults_over = time.monotonic()

    # Nothing is stuck: each loop server is gone or usable, then deleted.
    for sid in sids:
        server = loop.settle(sid, 'DELETED')
        assert not server['OS-EXT-STS:task_state'], server
        if server['status'] != 'DELETED':
            assert loop.request('DELETE', '/servers/' + sid)[0] == 204
            assert loop.settle(sid, 'DELETED')['status'] == 'DELETED', sid
    assert loop.settle(stays['id'], 'ACTIVE')['status'] == 'ACTIVE'
    # No leaked claim: the node counts the server that stays, nothing more.
    sc.wait(lambda: _usage(loop) == TINY, 30, 'usage of the remaining server only')
    for binary, proc in cluster.procs.items():
        assert proc.poll() is None, '%s exited' % binary
    # nova-compute reconnects by itself; it is never restarted.
    assert loop.exits['nova-compute'] == 0, loop.report()
    print('\n%s; settled %.1f s after the last fault, %.1f s in all'
          % (loop.report(), time.monotonic() - faults_over, time.monotonic() - started))
    assert sum(loop.faults.values()) == sum(len(group) for group, _d in SCHEDULE)
    # Every answer was a success, a refusal of the request or a 503: never a 500.
    assert all(status < 500 or status == 503 for status in loop.answers), loop.report()
    assert None not in sum(loop.recovery.values(), []), loop.report()
