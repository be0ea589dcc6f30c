"""Cold and live migration of real guests between two chassis, with and without a Neutron port."""

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time

import bench_guest_neutron

from nova.tests.fixtures import sshguest
from nova.tests.functional import keystone, netns_guest, neutron_env
from nova.tests.functional.split_cluster import call

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

API = 'http://127.0.0.1:8774/v2.1'
IMAGE = 'http://127.0.0.1:9292'
V = '2.56'      # migrate may name a host; 2.30+ live migration takes host None
POLL = 0.01
NETWORK = {'service_type': 'network', 'interface': 'public'}
ROWS = ('create -> ACTIVE', 'cold migrate -> VERIFY_RESIZE', 'confirm -> ACTIVE',
        'live migrate -> ACTIVE', 'live migrate back -> ACTIVE', 'delete -> 404')
# tools/compat_split.sh's services, a nova-compute per chassis of the test Neutron, started
# by the same functions as the split topology of tools/run-compat-neutron.sh.
SPLIT = r'''
set -euo pipefail
NOVA_RUN=(env "PYTHONPATH=$REPO")
. "$REPO/tools/compat_split.sh"
printf '[DEFAULT]\nenabled_apis = osapi_compute,metadata\n' > "$WORK/neutron-split.conf"
SPLIT_CONFS=(--config-file "$NOVA_NEUTRON_NOVA_CONF" --config-file "$WORK/neutron-split.conf")
SPLIT_HOST2_CONFS=(--config-file "$NOVA_NEUTRON_NOVA_CONF_2")
trap split_stop EXIT
split_start >&2
echo split-ready
read -r _
'''


class Split:
    """The split services on the test Neutron's two chassis, for as long as ``with`` lasts."""

    def __init__(self, work, env):
        self.work = work
        self.env = dict(os.environ, **env, REPO=REPO, PY=sys.executable,
                        VENV_BIN=os.path.dirname(sys.executable), WORK=work,
                        COMPAT_DIR=os.environ.get('NOVA_COMPAT_DIR', '/var/lib/nova-compat'),
                        PG_URL=os.environ.get(
                            'NOVA_COMPAT_PG_URL',
                            'postgresql+psycopg2://postgres@127.0.0.1:5432/postgres'),
                        RABBIT_URL=os.environ.get('NOVA_COMPAT_RABBIT_URL',
                                                  'rabbit://guest:guest@127.0.0.1:5672/'),
                        SPLIT_IMAGE_URL=IMAGE)
        self.proc = None

    def __enter__(self):
        os.makedirs(os.path.join(self.work, 'state'), exist_ok=True)
        self.proc = subprocess.Popen(['bash', '-c', SPLIT], env=self.env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        line = self.proc.stdout.readline()
        if line.strip() != 'split-ready':
            self.proc.wait()
            raise SystemExit('the split services did not start (logs in %s)' % self.work)
        return self

    def __exit__(self, *exc):
        self.proc.stdin.close()
        self.proc.wait(timeout=120)


class Bench:
    """Servers of one kind (``networks``) moved between the hosts, timed."""

    def __init__(self, creds, admin, image, flavor, networks):
        self.creds, self.image, self.flavor = creds, image, flavor
        self.admin_session, self.admin = admin, admin.get_token()
        self.networks = networks

    def _get(self, sid):
        code, body = call('GET', '%s/servers/%s' % (API, sid), token=self.admin, version=V)
        if code == 404:
            return None
        server = body['server']
        if server['status'] == 'ERROR':
            raise RuntimeError('server %s went to ERROR: %s' % (sid, server.get('fault')))
        return server

    def _until(self, sid, t0, status, moved_from=None):
        def done():
            server = self._get(sid)
            if status == 'DELETED':
                return server is None
            return (server['status'] == status and not server['OS-EXT-STS:task_state']
                    and server['OS-EXT-SRV-ATTR:host'] != moved_from)
        netns_guest.wait_for('%s of %s' % (status, sid), done, 600, interval=POLL)
        return time.perf_counter() - t0

    def _host(self, sid):
        return self._get(sid)['OS-EXT-SRV-ATTR:host']

    def _ready(self, sid):
        """Wait until the guest says it is ready (its lease and metadata key taken)."""
        def ready():
            code, body = call('POST', '%s/servers/%s/action' % (API, sid),
                              {'os-getConsoleOutput': {}}, token=self.admin, version=V)
            text = (body['output'] or '') if code == 200 else ''
            # Ready since its last boot (a migrated guest's log may hold the one before).
            return text.rfind(sshguest.READY_MARKER) > text.rfind('Linux version')
        netns_guest.wait_for('the guest of %s to be ready' % sid, ready, 600, interval=0.5)

    def _action(self, sid, body, expect=202):
        code, out = call('POST', '%s/servers/%s/action' % (API, sid), body, token=self.admin,
                         version=V, timeout=60)
        assert code == expect, (code, out)

    def round(self):
        """One server's create, cold migration and confirm, live migration, delete."""
        out = {}
        t0 = time.perf_counter()
        code, body = call('POST', API + '/servers', {'server': {
            'name': 'bench-migrate', 'imageRef': self.image, 'flavorRef': self.flavor,
            'networks': self.networks}}, token=self.creds.token, version=V, timeout=60)
        assert code == 202, body
        sid = body['server']['id']
        try:
            out[ROWS[0]] = self._until(sid, t0, 'ACTIVE')
            self._ready(sid)
            first = self._host(sid)
            t0 = time.perf_counter()
            self._action(sid, {'migrate': None})
            out[ROWS[1]] = self._until(sid, t0, 'VERIFY_RESIZE', moved_from=first)
            t0 = time.perf_counter()
            self._action(sid, {'confirmResize': None}, expect=204)
            out[ROWS[2]] = self._until(sid, t0, 'ACTIVE')
            self._ready(sid)
            second = self._host(sid)
            t0 = time.perf_counter()
            self._action(sid, {'os-migrateLive': {'host': None, 'block_migration': 'auto'}})
            out[ROWS[3]] = self._until(sid, t0, 'ACTIVE', moved_from=second)
            self._ports_follow(sid)
            # Back where it was: the first move's bindings must not stand in the way.
            t0 = time.perf_counter()
            self._action(sid, {'os-migrateLive': {'host': None, 'block_migration': 'auto'}})
            out[ROWS[4]] = self._until(sid, t0, 'ACTIVE', moved_from=first)
            self._ports_follow(sid)
        finally:
            t0 = time.perf_counter()
            code, _b = call('DELETE', '%s/servers/%s' % (API, sid), token=self.creds.token)
            assert code == 204, code
            out[ROWS[5]] = self._until(sid, t0, 'DELETED')
        return out

    def _ports_follow(self, sid):
        """Each port of the server is bound to the host the server is on."""
        if self.networks == 'none':
            return
        host = self._host(sid)
        code, body = call('GET', '%s/servers/%s/os-interface' % (API, sid),
                          token=self.admin, version=V)
        assert code == 200 and body['interfaceAttachments'], body
        for att in body['interfaceAttachments']:
            port = self.admin_session.get('/v2.0/ports/' + att['port_id'],
                                          endpoint_filter=NETWORK).json()['port']
            assert port['binding:host_id'] == host, (port['binding:host_id'], host)

            def single(port_id=att['port_id']):
                bindings = self.admin_session.get(
                    '/v2.0/ports/%s/bindings' % port_id,
                    endpoint_filter=NETWORK).json()['bindings']
                return [(b['host'], b['status']) for b in bindings] == [(host, 'ACTIVE')]
            # The source drops its binding once the server shows ACTIVE on the destination.
            netns_guest.wait_for('port %s to have one binding, on %s' % (att['port_id'], host),
                                 single, 30, interval=0.2)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--keep', metavar='DIR',
                        help="the services' state and logs go here and are kept")
    args = parser.parse_args()
    env = neutron_env.load_env()
    if not env or not env.get('NOVA_NEUTRON_NOVA_CONF_2'):
        raise SystemExit('needs the test Neutron with two chassis: tools/neutron.sh start')
    if not keystone.keystone_answers():
        raise SystemExit('needs Keystone: tools/keystone.sh start')
    sshguest.check_cache()
    admin = keystone.admin_session()
    creds = keystone.make_credentials(admin, prefix='nova-bench-migrate')
    results = {side: {row: [] for row in ROWS} for side in ('off', 'on')}
    created = []
    try:
        with contextlib.ExitStack() as stack:
            work = args.keep or stack.enter_context(
                tempfile.TemporaryDirectory(prefix='bench-migrate-'))
            stack.enter_context(Split(work, env))
            image = _upload(admin, sshguest.cached_disk_image())
            flavor = _flavor(admin)
            network = _network(creds.session(), env, created)
            sides = {'off': Bench(creds, admin, image, flavor, 'none'),
                     'on': Bench(creds, admin, image, flavor, [{'uuid': network}])}
            # Untimed warm-up: the image cache on both hosts, the first port on the network.
            for side in sides.values():
                side.round()
            for i in range(args.rounds):
                # Who goes first alternates, so drift in the machine's load falls on both.
                for name in ('off', 'on')[::1 if i % 2 == 0 else -1]:
                    for row, value in sides[name].round().items():
                        results[name][row].append(value)
            ports = admin.get('/v2.0/ports?project_id=' + creds.project_id,
                              endpoint_filter=NETWORK).json()['ports']
            left = [p['id'] for p in ports if not p['device_owner'].startswith('network:')]
            assert not left, 'ports left behind: %s' % left
    finally:
        user = creds.session()
        for kind, ident in reversed(created):
            user.delete('/v2.0/%s/%s' % (kind, ident), endpoint_filter=NETWORK,
                        raise_exc=False)
        keystone.delete_credentials(admin, creds)
    bench_guest_neutron.side_by_side(results, ROWS, args.rounds)


def _network(user, env, created):
    """A project network with a subnet from the default pool: its id."""
    network = user.post('/v2.0/networks', endpoint_filter=NETWORK, json={
        'network': {'name': 'bench-migrate'}}).json()['network']
    created.append(('networks', network['id']))
    user.post('/v2.0/subnets', endpoint_filter=NETWORK, json={'subnet': {
        'network_id': network['id'], 'ip_version': 4, 'prefixlen': 28,
        'subnetpool_id': env['NOVA_NEUTRON_SUBNETPOOL_ID']}})
    return network['id']


def _upload(admin, path):
    ep = {'service_type': 'image', 'interface': 'public'}
    image = admin.post('/v2/images', endpoint_filter=ep, json={
        'name': 'bench-migrate-ssh-guest', 'disk_format': 'raw',
        'container_format': 'bare', 'visibility': 'public'}).json()
    with open(path, 'rb') as handle:
        admin.put('/v2/images/%s/file' % image['id'], endpoint_filter=ep, data=handle.read(),
                  headers={'Content-Type': 'application/octet-stream'})
    return image['id']


def _flavor(admin):
    compute = {'service_type': 'compute', 'interface': 'public'}
    resp = admin.post('/flavors', endpoint_filter=compute, json={'flavor': {
        'name': 'bench.migrate', 'ram': 256, 'vcpus': 1, 'disk': 1}})
    return resp.json()['flavor']['id']


if __name__ == '__main__':
    main()
