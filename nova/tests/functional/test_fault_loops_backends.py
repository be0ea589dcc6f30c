"""A split deployment in keystone mode through database restarts, Keystone and Glance outages."""

import collections
import os
import re
import threading
import time
import urllib.parse

import pytest

from nova.tests.functional import fixtures, glance, keystone, outages, services
from nova.tests.functional import split_cluster as sc
from nova.tests.functional import test_fault_loops as fl

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]
# Seconds the database is down in each restart, and Keystone and the image
# service unreachable (the "for a minute").
DB_DOWN = 8
OUTAGE = int(os.environ.get('NOVA_TEST_OUTAGE', '60'))
# Two servers' rounds; the database is restarted right after the answer to
# the step named (the first server's build, the second's stop) and stays
# down while the loop goes on.
DB_RESTARTS = ('create', 'stop')
# The image proxy (/images) ends at 2.35.
PROXY_VERSION = '2.35'
LOGS = ('nova-api', 'nova-conductor', 'nova-compute')
# [DEFAULT] stuck_task_timeout of the deployment: when a conductor takes a
# build no host got as lost.
STUCK = 30


def _host_port(url):
    parsed = urllib.parse.urlparse(url)
    return parsed.hostname, parsed.port


def _auth_conf(keystone_url):
    options = {key: value for (_g, key), value in keystone.authtoken_options().items()}
    options.update(www_authenticate_uri=keystone_url, auth_url=keystone_url)
    return ('[api]\nauth_strategy = keystone\n[keystone_authtoken]\n%s'
            # Calls made without a user's token use the service user.
            '[glance]\nauth_section = keystone_authtoken\n'
            % ''.join('%s = %s\n' % item for item in options.items()))


@pytest.fixture
def cluster(tmp_path):
    keystone.require_keystone()
    glance.require_glance()
    services.require(services.RABBIT_URL, 'RabbitMQ')
    with outages.PrivatePostgres() as database, services.ThrowawayVhost() as vhost:
        identity = outages.HTTPRelay(*_host_port(keystone.KEYSTONE_URL)).start()
        images = outages.TCPRelay(*_host_port(glance.GLANCE_URL)).start()
        admin = keystone.admin_session()
        owner = keystone.make_credentials(admin, prefix='nova-fault')
        keystone_url = identity.url + urllib.parse.urlparse(keystone.KEYSTONE_URL).path
        try:
            # A call to a dead conductor gives up after 10 s; a build the
            # database restart lost is repaired after 30 s, not 600.
            with sc.run(tmp_path, vhost.url, '[DEFAULT]\nrpc_response_timeout = 10\n'
                        'stuck_task_timeout = %d\nreconcile_interval = 5\n' % STUCK,
                        db_server=database.url, image_url=images.url,
                        auth_conf=_auth_conf(keystone_url)) as running:
                running.vhost = vhost.name
                running.database, running.identity, running.images = (
                    database, identity, images)
                running.admin, running.owner = admin, owner
                yield running
        finally:
            identity.stop()
            images.stop()
            keystone.delete_credentials(admin, owner)


class BackendLoop(fl.Loop):
    """The fault loop with Keystone tokens, riding out 503s of a backend that is away."""

    def __init__(self, cluster):
        super().__init__(cluster)
        self.tokens = {'demo:demo': cluster.owner.token,
                       fl.ADMIN: cluster.admin.get_token()}
        self.refused = collections.Counter()

    def request(self, method, path, body=None, token='demo:demo', version='2.100'):
        return super().request(method, path, body, token=self.tokens.get(token, token),
                               version=version)

    def server(self, sid):
        # While the database is down the API answers 503: the server is
        # asked again, as a client would.
        deadline = time.monotonic() + fl.ACCEPT_WINDOW
        while True:
            status, body = self.request('GET', '/servers/' + sid, token=fl.ADMIN)
            if status != 503 or time.monotonic() > deadline:
                break
            self.refused['GET server (503)'] += 1
            time.sleep(0.5)
        if status == 404:
            return {'status': 'DELETED', 'OS-EXT-STS:task_state': None}
        assert status == 200, body
        return body['server']

    def restart_database(self):
        """Stop PostgreSQL (ending every session), keep it down, start it; in a thread."""
        self.faults['restart_database'] += 1
        database = self.cluster.database

        def restart():
            database.stop()
            time.sleep(DB_DOWN)
            database.start()
            since = time.monotonic()
            self.recovery['restart_database: API'].append(outages.seconds_until(
                lambda: sc.call('GET', self.cluster.api + '/servers', token=self.tokens[
                    'demo:demo'])[0] == 200, since))
            self._measure('restart_database: heartbeat', since)
        thread = threading.Thread(target=restart, daemon=True)
        thread.start()
        self._probes.append(thread)


def _db_round(loop, image_id, restart_after):
    """create ... delete with the database restarted right after ``restart_after``."""
    sid = None
    for name, want in fl.STEPS:
        body = fl.ACTIONS.get(name)
        if name == 'create':
            body = {'server': {'name': 'loop-db', 'imageRef': image_id, 'flavorRef': '1',
                               'networks': 'none'}}
        loop.operations[name] += 1
        status, reply = loop.send(name, sid, body)
        if name == 'create':
            assert status == 202, reply
            sid = reply['server']['id']
        if name == restart_after:
            loop.restart_database()
        if status >= 300:
            loop.failures.append('%s %s: %d %s' % (name, sid, status, reply))
            continue
        server = loop.settle(sid, want)
        if server['status'] == 'BUILD':
            # Lost to the restart: the conductor's check sets it ERROR.
            server = _settle_long(loop, sid, want)
        if server['status'] == 'ERROR' and server.get('fault'):
            # Lost and reported: usable (it can be deleted), with a fault.
            loop.operations['lost with a fault: %s' % server['fault']['message'][:80]] += 1
            status, reply = loop.send('delete', sid, None)
            loop.operations['delete'] += 1
            if status != 204:
                loop.failures.append('delete %s: %d %s' % (sid, status, reply))
            break
        if server['status'] != want:
            loop.failures.append('%s %s: ended %s/%s' % (
                name, sid, server['status'], server['OS-EXT-STS:task_state']))
    loop.wait_probes()
    return sid


def _settle_long(loop, sid, want):
    deadline = time.monotonic() + STUCK + 30
    while True:
        server = loop.settle(sid, want)
        if server['status'] != 'BUILD' or time.monotonic() > deadline:
            return server


def _steps(loop, sid, steps):
    """Actions on an existing server, each settled; failures recorded."""
    for name, want in steps:
        loop.operations[name] += 1
        status, reply = loop.send(name, sid, fl.ACTIONS.get(name))
        if status >= 300:
            loop.failures.append('%s %s: %d %s' % (name, sid, status, reply))
            continue
        server = loop.settle(sid, want)
        if server['status'] != want:
            loop.failures.append('%s %s: ended %s/%s' % (
                name, sid, server['status'], server['OS-EXT-STS:task_state']))


def _new_token(cluster):
    """A token of the owner nova-api has never seen (so not in its cache)."""
    return cluster.owner.session().get_token()


def _keystone_outage(loop, cluster, sid):
    """Keystone away: tokens already validated keep working, new ones are refused 503."""
    loop.faults['keystone_unreachable'] += 1
    fresh = [_new_token(cluster) for _ in range(2)]
    cluster.identity.stop()
    started = time.monotonic()
    try:
        _steps(loop, sid, (('stop', 'SHUTOFF'), ('start', 'ACTIVE')))
        status, _body = loop.request('GET', '/servers', token=fresh[0])
        loop.refused['new token while Keystone away: %d' % status] += 1
        time.sleep(max(0.0, started + OUTAGE - time.monotonic()))
    finally:
        cluster.identity.start()
    loop.recovery['keystone_unreachable: new token'].append(outages.seconds_until(
        lambda: loop.request('GET', '/servers', token=fresh[1])[0] == 200,
        time.monotonic()))


def _image_outage(loop, cluster, sid, image_id):
    """The image service away: what needs it answers 503, the rest goes on."""
    loop.faults['image_service_unreachable'] += 1
    cluster.images.stop()
    started = time.monotonic()
    create = {'server': {'name': 'loop-img', 'imageRef': image_id, 'flavorRef': '1',
                         'networks': 'none'}}
    try:
        _steps(loop, sid, (('stop', 'SHUTOFF'), ('start', 'ACTIVE')))
        status, reply = loop.request('POST', '/servers', create)
        loop.refused['create while the image service is away: %d' % status] += 1
        assert status != 202, reply
        status, _reply = loop.request('GET', '/images/' + image_id, version=PROXY_VERSION)
        loop.refused['image show while the image service is away: %d' % status] += 1
        time.sleep(max(0.0, started + OUTAGE - time.monotonic()))
    finally:
        cluster.images.start()
    since = time.monotonic()
    accepted = {}

    def created():
        status, reply = loop.request('POST', '/servers', create)
        if status == 202:
            accepted['id'] = reply['server']['id']
        return status == 202
    loop.recovery['image_service_unreachable: create'].append(
        outages.seconds_until(created, since))
    new = accepted['id']
    loop.operations['create'] += 1
    server = loop.settle(new, 'ACTIVE')
    if server['status'] != 'ACTIVE':
        loop.failures.append('create %s after the image outage: ended %s' % (
            new, server['status']))
    return new


def _tracebacks(tmp, logger=''):
    """Tracebacks in each service's log (of ``logger`` only, if given)."""
    counts = {}
    pattern = r'%s\S* Traceback \(most recent call last\)' % re.escape(logger) \
        if logger else r'Traceback \(most recent call last\)'
    for name in LOGS:
        text = (tmp / ('%s.log' % name)).read_text(errors='replace')
        counts[name] = len(re.findall(pattern, text))
    return counts


def test_split_services_survive_backend_faults(cluster):
    started = time.monotonic()
    loop = BackendLoop(cluster)
    sc.wait(lambda: sc.api_up(cluster.api), 30, 'nova-api')
    disk = fixtures.tiny_disk(cluster.tmp / 'disk.img')
    image = glance.upload_image(cluster.owner.session(), disk, name='nova-fault',
                                visibility='private')
    try:
        sc.wait(lambda: _node_up(loop), 60, 'the compute node')
        stays = fl._first_server(loop, image['id'])
        assert fl._usage(loop) == fl.TINY
        stop = threading.Event()
        supervisor = threading.Thread(target=loop.supervise, args=(stop,), daemon=True)
        supervisor.start()
        try:
            sids = [_db_round(loop, image['id'], step) for step in DB_RESTARTS]
            _keystone_outage(loop, cluster, stays['id'])
            sids.append(_image_outage(loop, cluster, stays['id'], image['id']))
            loop.wait_probes()
        finally:
            stop.set()
            supervisor.join()
        faults_over = time.monotonic()

        for sid in sids:
            server = loop.settle(sid, 'DELETED')
            assert not server['OS-EXT-STS:task_state'], server
            if server['status'] != 'DELETED':
                assert loop.request('DELETE', '/servers/' + sid)[0] == 204
                assert loop.settle(sid, 'DELETED')['status'] == 'DELETED', sid
        assert loop.settle(stays['id'], 'ACTIVE')['status'] == 'ACTIVE'
        # A schedule the restart interrupted after its claim gives the claim back
        # once the database answers (nova.conductor.manager_build).
        sc.wait(lambda: fl._usage(loop) == fl.TINY, 60, 'usage of the remaining server only')
        for binary, proc in cluster.procs.items():
            assert proc.poll() is None, '%s exited' % binary
        tracebacks = _tracebacks(cluster.tmp)
        print('\nbackend %s; refused %s; tracebacks %s; settled %.1f s after the last '
              'fault, %.1f s in all' % (loop.report(), dict(loop.refused), tracebacks,
                                         time.monotonic() - faults_over,
                                         time.monotonic() - started))
        assert not loop.failures, loop.report()
        assert all(status < 500 or status == 503 for status in loop.answers), loop.report()
        assert None not in sum(loop.recovery.values(), []), loop.report()
        # Each fault is reported, not a traceback per retry.
        assert not any(tracebacks.values()), tracebacks
    finally:
        glance.delete_image(cluster.admin, image['id'])


def _node_up(loop):
    status, body = loop.request('GET', '/os-hypervisors', token=fl.ADMIN)
    return status == 200 and [h for h in body['hypervisors'] if h['state'] == 'up']
