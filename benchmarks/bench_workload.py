"""The operator workload of record: create, detail, rescue, unrescue, delete, peak RSS."""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from nova.tests.functional import fixtures

POLL = 0.01  # the client polls every 10 ms, as the reference harness does


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class Client:
    """A plain HTTP client with the all-in-one's noauth2 token."""

    def __init__(self, compute, image, version='2.106', headers=None):
        self.compute, self.image, self.version = compute, image, version
        self.headers = headers or {'X-Auth-Token': 'demo:demo'}

    def call(self, method, path, body=None, url=None, raw=None, version=None):
        data = raw if raw is not None else (
            json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request((url or self.compute) + path, data=data, method=method)
        for name, value in self.headers.items():
            req.add_header(name, value)
        req.add_header('Content-Type', 'application/octet-stream' if raw is not None
                       else 'application/json')
        req.add_header('OpenStack-API-Version', 'compute %s' % (version or self.version))
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                payload = resp.read()
                return resp.status, json.loads(payload) if payload else None
        except urllib.error.HTTPError as err:
            return err.code, None

    def wait(self, sid, status):
        """Poll GET /servers/{id} every 10 ms until ``status`` (None: until 404)."""
        while True:
            code, body = self.call('GET', '/servers/%s' % sid)
            if status is None and code == 404:
                return
            if code == 200:
                server = body['server']
                if server['status'] == 'ERROR':
                    raise RuntimeError('server %s went to ERROR' % sid)
                if server['status'] == status and not server.get('OS-EXT-STS:task_state'):
                    return
            time.sleep(POLL)

    def timed(self, method, path, body, sid, status, expect):
        start = time.perf_counter()
        code, resp = self.call(method, path, body)
        assert code == expect, (code, resp)
        self.wait(sid or resp['server']['id'], status)
        return time.perf_counter() - start, resp

    def upload(self, disk, **props):
        code, image = self.call('POST', '/v2/images', dict(
            name='bench', disk_format='raw', container_format='bare', **props), url=self.image)
        assert code == 201, image
        with open(disk, 'rb') as handle:
            code, _ = self.call('PUT', '/v2/images/%s/file' % image['id'], raw=handle.read(),
                                url=self.image)
        assert code == 204, code
        return image['id']


def _summary(values):
    ordered = sorted(values)
    return {'median_ms': round(statistics.median(ordered) * 1000, 1),
            'p10_ms': round(ordered[int(0.1 * (len(ordered) - 1))] * 1000, 1),
            'p90_ms': round(ordered[int(0.9 * (len(ordered) - 1))] * 1000, 1),
            'n': len(ordered)}


def _rss_mb(pid, field='VmHWM'):
    """VmHWM (peak resident memory) or VmRSS (current) of a process, in MB."""
    with open('/proc/%d/status' % pid) as status:
        for line in status:
            if line.startswith(field + ':'):
                return round(int(line.split()[1]) / 1024.0, 1)
    return None


def _cpu_s(pid):
    """User plus system CPU seconds a process has used so far."""
    with open('/proc/%d/stat' % pid) as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def _start_aio(tmp):
    ports = {name: _free_port() for name in ('compute', 'image', 'volume', 'network')}
    conf = os.path.join(tmp, 'aio.conf')
    with open(conf, 'w') as handle:
        handle.write('[DEFAULT]\nstate_path = %s\nmetadata_listen_port = 0\n'
                     'ram_allocation_ratio = 100\n'
                     'cpu_allocation_ratio = 100\ndisk_allocation_ratio = 100\n'
                     '[libvirt]\nconnection_uri = test:///default\n[vnc]\nnovncproxy_port = 0\n'
                     '[serial_console]\nserialproxy_port = 0\n'
                     '[quota]\ninstances = -1\ncores = -1\nram = -1\n'
                     '[aio]\ncompute_port = %d\nimage_port = %d\nvolume_port = %d\n'
                     'network_port = %d\n'
                     # Networkless guests: no bridge in this namespace.
                     'network_dataplane = false\n'
                     % (tmp, ports['compute'], ports['image'], ports['volume'],
                        ports['network']))
    binary = os.path.join(os.path.dirname(sys.executable), 'nova-aio')
    # Its log (standard output) goes to a file: a pipe nobody reads would
    # fill up and stall the service.
    log_path = os.path.join(tmp, 'nova-aio.log')
    with open(log_path, 'wb') as log:
        proc = subprocess.Popen([binary, '--config-file', conf], stdout=log,
                                stderr=subprocess.STDOUT)
    while True:
        with open(log_path, 'rb') as log:
            if b'nova-aio ready' in log.read():
                break
        if proc.poll() is not None:
            raise RuntimeError('nova-aio exited with %s' % proc.returncode)
        time.sleep(0.1)
    return proc, Client('http://127.0.0.1:%d/v2.1' % ports['compute'],
                        'http://127.0.0.1:%d' % ports['image'])


def drive(client, image, servers, rounds, pid):
    """The workload against a started service; ``pid`` is the process whose memory counts."""
    cpu = _cpu_s(pid)
    create, ids = [], []
    for i in range(servers):
        took, resp = client.timed('POST', '/servers', {'server': {
            'name': 'bench-%d' % i, 'imageRef': image, 'flavorRef': '1',
            'networks': 'none'}}, None, 'ACTIVE', 202)
        create.append(took)
        ids.append(resp['server']['id'])
    detail = []
    for _ in range(10):
        start = time.perf_counter()
        code, body = client.call('GET', '/servers/detail')
        detail.append(time.perf_counter() - start)
        assert code == 200 and len(body['servers']) == servers
    rescue, unrescue = [], []
    action = '/servers/%s/action' % ids[0]
    cycle_cpu = _cpu_s(pid)
    for _ in range(rounds):
        rescue.append(client.timed('POST', action, {'rescue': {'rescue_image_ref': image}},
                                   ids[0], 'RESCUE', 200)[0])
        unrescue.append(client.timed('POST', action, {'unrescue': None}, ids[0],
                                     'ACTIVE', 202)[0])
    # Service CPU per rescue + unrescue cycle (polling GETs included).
    cycle_cpu = round((_cpu_s(pid) - cycle_cpu) * 1000 / max(rounds, 1), 1)
    peak = _rss_mb(pid)
    delete = [client.timed('DELETE', '/servers/%s' % sid, None, sid, None, 204)[0]
              for sid in ids]
    # CPU time of the service over the whole workload: less sensitive to the
    # machine's load than the latencies.
    cpu = round(_cpu_s(pid) - cpu, 2)
    return {'create_to_active': _summary(create), 'detail_%d' % servers: _summary(detail),
            'rescue_to_rescue': _summary(rescue), 'unrescue_to_active': _summary(unrescue),
            'delete_to_404': _summary(delete), 'cpu_s_workload': cpu,
            'cpu_ms_per_rescue_cycle': cycle_cpu,
            'peak_rss_mb_after_%d_servers' % servers: peak}


def run(servers, rounds):
    with tempfile.TemporaryDirectory() as tmp:
        proc, client = _start_aio(tmp)
        try:
            # Once started and idle: the imports and the services, before any request.
            idle = _rss_mb(proc.pid, 'VmRSS')
            disk = fixtures.tiny_disk(os.path.join(tmp, 'disk.img'))
            image = client.upload(disk, hw_rescue_bus='virtio', hw_rescue_device='disk')
            result = drive(client, image, servers, rounds, proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=90)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    result['rss_mb_idle'] = idle
    # The key order of the report stays as it was: idle before peak.
    peak_key = 'peak_rss_mb_after_%d_servers' % servers
    result[peak_key] = result.pop(peak_key)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--servers', type=int, default=50)
    parser.add_argument('--rounds', type=int, default=10)
    args = parser.parse_args()
    print(json.dumps(run(args.servers, args.rounds), indent=2))


if __name__ == '__main__':
    main()
