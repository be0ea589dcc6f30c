"""Real QEMU guests with and without a real Neutron port: what networking adds, phase by phase."""

import argparse
import os
import statistics
import tempfile
import time

from nova.network import allocation
from nova.tests.fixtures import sshguest
from nova.tests.functional import netns_guest, neutron_stack
from nova.virt.libvirt import driver_build, guest, host, vif

V = '2.106'
POLL = 0.002  # the console log is looked at this often
ROWS = ('create -> first serial byte', 'create -> ACTIVE', 'rescue -> first new byte',
        'rescue -> RESCUE', 'unrescue -> ACTIVE', 'delete -> 404')
# Where the time of a build with a port goes, as the compute host spends it.
PHASES = (('ports created and bound', allocation.PortAllocator, 'allocate_for_instance'),
          ('os-vif plug', vif.LibvirtVifs, 'plug'),
          ('define', host.Host, 'define_guest'),
          ('start (paused if it waits)', guest.Guest, 'launch'),
          ('network-vif-plugged wait', driver_build.LibvirtBuild, '_await_plugged'),
          ('os-vif unplug', vif.LibvirtVifs, 'unplug'),
          ('ports deleted or unbound', allocation.PortAllocator, 'deallocate_for_instance'))
SPANS = []
OP = ['create']     # the operation the spans being recorded belong to


def _trace():
    """Record the wall time of each phase's calls (the service runs in this process)."""
    for label, cls, name in PHASES:
        original = getattr(cls, name)

        def traced(*args, _original=original, _label=label, **kwargs):
            start = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                SPANS.append((OP[0], _label, time.perf_counter() - start))
        setattr(cls, name, traced)


def _wait(what, predicate, timeout):
    return netns_guest.wait_for(what, predicate, timeout, interval=POLL)


def _size(path):
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return -1


def _text(path):
    with open(path, errors='replace') as log:
        return log.read()


class Side:
    """Servers of one kind (``networks``) through the compute API, timed."""

    def __init__(self, stack, networks):
        self.stack, self.networks = stack, networks
        self.token = stack.creds.token

    def _status(self, sid):
        code, _h, body = self.stack.request('GET', '/servers/' + sid, version=V,
                                            token=self.token)
        if code == 404:
            return 'DELETED'
        server = body['server']
        if server['status'] == 'ERROR':
            raise RuntimeError('server %s went to ERROR: %s' % (sid, server.get('fault')))
        return None if server.get('OS-EXT-STS:task_state') else server['status']

    def _until(self, sid, status, t0):
        _wait('%s of %s' % (status, sid), lambda: self._status(sid) == status, 600)
        return time.perf_counter() - t0

    def round(self):
        """One server's create, rescue, unrescue and delete: {row: seconds}, phases."""
        del SPANS[:]
        out = {}
        OP[0] = 'create'
        t0 = time.perf_counter()
        code, _h, body = self.stack.request('POST', '/servers', {'server': {
            'name': 'bench-net', 'imageRef': self.stack.image, 'flavorRef': '1',
            'networks': self.networks}}, version=V, token=self.token)
        assert code == 202, body
        sid = body['server']['id']
        log = os.path.join(self.stack.conf.instances_path, sid, 'console.log')
        try:
            _wait('serial output', lambda: _size(log) > 0, 600)
            out[ROWS[0]] = time.perf_counter() - t0
            out[ROWS[1]] = self._until(sid, 'ACTIVE', t0)
            # The next boot is timed on a quiet guest: its first new byte is the rescue's.
            _wait('the guest to be ready', lambda: sshguest.READY_MARKER in _text(log), 600)
            size = _size(log)
            OP[0] = 'rescue'
            t0 = time.perf_counter()
            code, _h, body = self.stack.request('POST', '/servers/%s/action' % sid,
                                                {'rescue': {}}, version=V, token=self.token)
            assert code == 200, body
            _wait('serial output of the rescue', lambda: _size(log) > size, 600)
            out[ROWS[2]] = time.perf_counter() - t0
            out[ROWS[3]] = self._until(sid, 'RESCUE', t0)
            OP[0] = 'unrescue'
            t0 = time.perf_counter()
            code, _h, body = self.stack.request('POST', '/servers/%s/action' % sid,
                                                {'unrescue': None}, version=V, token=self.token)
            assert code == 202, body
            out[ROWS[4]] = self._until(sid, 'ACTIVE', t0)
        finally:
            OP[0] = 'delete'
            t0 = time.perf_counter()
            code, _h, _b = self.stack.request('DELETE', '/servers/' + sid, token=self.token)
            assert code == 204, code
            out[ROWS[5]] = self._until(sid, 'DELETED', t0)
        return out, list(SPANS)


def _stats(values):
    return '%7.3f %7.3f %7.3f' % (statistics.median(values), min(values), max(values))


def side_by_side(results, rows, rounds):
    """Each row's seconds without a network and with one port, and what the port adds."""
    width = max(len(row) for row in rows)
    print('%-*s  no network: median  min     max    one port: median  min     max    '
          'added (median)' % (width, 'seconds over %d rounds' % rounds))
    for row in rows:
        off, on = results['off'][row], results['on'][row]
        print('%-*s  %s      %s   %+7.3f' % (width, row, _stats(off), _stats(on),
                                            statistics.median(on) - statistics.median(off)))


def report(results, phases, rounds):
    side_by_side(results, ROWS, rounds)
    print('\nphases (ms: median, min, max of the rounds; calls a round makes of each)')
    for side in ('off', 'on'):
        for op in ('create', 'rescue', 'unrescue', 'delete'):
            for label, _cls, _name in PHASES:
                totals = [[t for o, name, t in spans if (o, name) == (op, label)]
                          for spans in phases[side]]
                if not any(totals):
                    continue
                sums = [sum(t) * 1000 for t in totals]
                print('  %-4s %-9s %-33s %8.1f %8.1f %8.1f   x%d' % (
                    side, op, label, statistics.median(sums), min(sums), max(sums),
                    max(len(t) for t in totals)))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args()
    _trace()
    results = {side: {row: [] for row in ROWS} for side in ('off', 'on')}
    phases = {'off': [], 'on': []}
    with tempfile.TemporaryDirectory(prefix='bench-gn-') as tmp, \
            neutron_stack.guest_stack(os.path.join(tmp, 'state'), 'nova-bench-net') as stack:
        network = neutron_stack.net(stack, 'POST', '/networks', json={
            'network': {'name': 'bench-net'}})['network']
        stack.created.append(('networks', network['id']))
        neutron_stack.net(stack, 'POST', '/subnets', json={'subnet': {
            'network_id': network['id'], 'ip_version': 4, 'prefixlen': 28,
            'subnetpool_id': stack.env['NOVA_NEUTRON_SUBNETPOOL_ID']}})
        sides = {'off': Side(stack, 'none'), 'on': Side(stack, [{'uuid': network['id']}])}
        # Untimed warm-up: the image cache and the first port on the network.
        for side in sides.values():
            side.round()
        for i in range(args.rounds):
            # Who goes first alternates, so drift in the machine's load falls on both.
            for name in ('off', 'on')[::1 if i % 2 == 0 else -1]:
                values, spans = sides[name].round()
                for row, value in values.items():
                    results[name][row].append(value)
                phases[name].append(spans)
        left = neutron_stack.project_ports(stack)
        assert not left, 'ports left behind: %s' % [p['id'] for p in left]
    report(results, phases, args.rounds)


if __name__ == '__main__':
    main()
