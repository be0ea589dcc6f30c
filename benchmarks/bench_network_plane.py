"""The embedded network: data plane set-up, port to ACTIVE, DHCP lease, and nova-aio's memory.

Runs only inside network namespaces it creates (root needed). Prints medians
and spread over ``--runs`` rounds, as JSON.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import webob

from benchmarks import bench_workload
from nova import context as nova_context
from nova.embedded.network import app, binding, dataplane, seed
from nova.tests.functional import netns_guest as ng


def _call(api, method, path, body=None):
    req = webob.Request.blank(path, method=method, **({'json': body} if body else {}))
    ctx = nova_context.RequestContext(user_id='admin', project_id='admin')
    ctx.is_admin = True
    req.environ['nova.context'] = ctx
    resp = req.get_response(api)
    assert resp.status_int < 400, resp.text
    return resp.json if resp.body else None


def _round(work):
    spaces = ng.Namespaces()
    plane_ns, guest_ns = spaces.add('plane'), spaces.add('guest')
    api = app.make_app(os.path.join(work, 'network'))
    net, sub = seed.ensure(api, seed.DefaultNetworkSpec())
    config = dataplane.PlaneConfig(namespace=plane_ns,
                                   state_dir=os.path.join(work, 'network', 'dataplane'),
                                   run_dir=dataplane.run_dir_for('br-aio', plane_ns))
    out = {}
    try:
        t0 = time.perf_counter()
        plane = dataplane.DataPlane(api.store, api.ports, net['id'], sub['id'], config).start()
        out['plane_start_s'] = time.perf_counter() - t0
        api.ports.plane_managed = True
        api.changes.subscribe(plane.refresh)
        t0 = time.perf_counter()
        port = _call(api, 'POST', '/v2.0/ports', {'port': {
            'network_id': net['id'], 'device_id': '8a1f3ffb-1f1a-4a4e-9d5b-0d0f3e0f3a11',
            'device_owner': 'compute:nova', 'binding:host_id': 'h'}})['port']
        out['port_create_bind_s'] = time.perf_counter() - t0
        guest = ng.Guest(plane_ns, guest_ns, binding.devname(port['id']), port['mac_address'],
                         work)
        t0 = time.perf_counter()
        guest.plug()
        while api.store.get('ports', port['id'])['status'] != 'ACTIVE':
            time.sleep(0.002)
        out['tap_to_active_s'] = time.perf_counter() - t0
        t0 = time.perf_counter()
        guest.dhcp()
        out['dhcp_lease_s'] = time.perf_counter() - t0
        t0 = time.perf_counter()
        plane.stop()
        out['plane_stop_s'] = time.perf_counter() - t0
    finally:
        spaces.cleanup()
        api.close()
    return out


def _aio_rss(work, namespace=None):
    """Peak RSS (MB) of a nova-aio after start and 20 ports, with or without the plane."""
    ports = {name: bench_workload._free_port() for name in ('compute', 'image', 'volume',
                                                             'network')}
    conf = os.path.join(work, 'aio.conf')
    with open(conf, 'w') as handle:
        handle.write('[DEFAULT]\nstate_path = %s\n[libvirt]\nconnection_uri = test:///default\n'
                     '[vnc]\nnovncproxy_port = 0\n[aio]\ncompute_port = %d\nimage_port = %d\n'
                     'volume_port = %d\nnetwork_port = %d\nnetwork_dataplane = %s\n%s'
                     % (work, ports['compute'], ports['image'], ports['volume'],
                        ports['network'], 'true' if namespace else 'false',
                        'network_namespace = %s\n' % namespace if namespace else ''))
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_AIO__')}
    log_path = os.path.join(work, 'aio.log')
    with open(log_path, 'wb') as log:
        proc = subprocess.Popen([os.path.join(os.path.dirname(sys.executable), 'nova-aio'),
                                 '--config-file', conf], stdout=log, stderr=subprocess.STDOUT,
                                env=env)
    try:
        deadline = time.monotonic() + 120
        while b'nova-aio ready' not in open(log_path, 'rb').read():
            assert proc.poll() is None and time.monotonic() < deadline, \
                open(log_path).read()[-2000:]
            time.sleep(0.1)
        client = bench_workload.Client(None, None, headers={'X-Auth-Token': 'admin:admin'})
        url = 'http://127.0.0.1:%d/v2.0' % ports['network']
        net = client.call('GET', '/networks', url=url)[1]['networks'][0]['id']
        for _ in range(20):
            client.call('POST', '/ports', {'port': {'network_id': net}}, url=url)
        return bench_workload._rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(60)


def _summary(values):
    return {'median': round(statistics.median(values), 4), 'min': round(min(values), 4),
            'max': round(max(values), 4)}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--runs', type=int, default=5)
    args = parser.parse_args()
    rounds = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as work:
            rounds.append(_round(work))
    result = {key: _summary([r[key] for r in rounds]) for key in rounds[0]}
    with tempfile.TemporaryDirectory() as work:
        result['aio_peak_rss_mb_no_plane'] = _aio_rss(work)
    spaces = ng.Namespaces()
    try:
        namespace = spaces.add('aio')
        with tempfile.TemporaryDirectory() as work:
            result['aio_peak_rss_mb_with_plane'] = _aio_rss(work, namespace)
    finally:
        spaces.cleanup()
    print(json.dumps(result, indent=2))


if __name__ == '__main__':
    main()
