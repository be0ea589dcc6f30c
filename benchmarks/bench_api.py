"""Benchmark the all-in-one on test:///default: create->ACTIVE latency, server list speed."""

import argparse
import json
import resource
import statistics
import tempfile
import time

from nova.db import api as db_api
from nova.tests.functional import fixtures


def _percentile(values, pct):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100.0 * (len(ordered) - 1))))]


def _summary(values):
    return {'median_ms': round(statistics.median(values) * 1000, 1),
            'p95_ms': round(_percentile(values, 95) * 1000, 1),
            'min_ms': round(min(values) * 1000, 1), 'max_ms': round(max(values) * 1000, 1),
            'n': len(values)}


def _wait_active(aio, sid):
    while True:
        row = aio.db.instance_get(sid)
        if row['vm_state'] == 'active':
            return
        if row['vm_state'] == 'error':
            raise RuntimeError('server %s failed: %s' % (sid, aio.db.faults_latest([sid])))
        time.sleep(0.002)


def bench_create(aio, image_id, count):
    latencies = []
    for i in range(count):
        start = time.perf_counter()
        status, _h, body = aio.request('POST', '/servers', {'server': {
            'name': 'bench-%d' % i, 'imageRef': image_id, 'flavorRef': '1',
            'networks': 'none'}}, version='2.100')
        assert status == 202, body
        _wait_active(aio, body['server']['id'])
        latencies.append(time.perf_counter() - start)
    return latencies


def _fill(aio, total):
    """Add rows straight to the DB so the list benchmark has ``total`` servers."""
    template = aio.db.instance_get_all({'project_id': 'demo'}, limit=1)[0]
    skip = {'id', 'uuid', 'created_at', 'updated_at'}
    for i in range(total - aio.db.instance_count(project_id='demo')):
        values = {k: v for k, v in template.items() if k not in skip}
        values['display_name'] = 'filler-%d' % i
        values['created_at'] = db_api._now()
        aio.db.instance_create(values)


def bench_list(aio, path, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        status, _h, body = aio.request('GET', path, version='2.100')
        times.append(time.perf_counter() - start)
        assert status == 200
    return times, len(body['servers'])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--servers', type=int, default=100)
    parser.add_argument('--list-sizes', default='1000',
                        type=lambda text: sorted(int(v) for v in text.split(',')),
                        help='comma-separated server counts to list, each with '
                             '--repeat GET /servers/detail (default: %(default)s)')
    parser.add_argument('--repeat', type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # The test hypervisor reports a small host; let it hold every server.
        aio = fixtures.RunningAio(tmp, extra={('api', 'max_limit'): max(args.list_sizes + [1000]),
                                              ('DEFAULT', 'ram_allocation_ratio'): 100.0,
                                              ('DEFAULT', 'cpu_allocation_ratio'): 100.0,
                                              ('DEFAULT', 'disk_allocation_ratio'): 100.0})
        try:
            image_id = aio.upload_image(fixtures.tiny_disk(tmp + '/disk.img'))
            results = {'create_to_active': _summary(bench_create(aio, image_id,
                                                                 args.servers))}
            times, n = bench_list(aio, '/servers/detail?limit=50', args.repeat)
            results['detail_50'] = dict(_summary(times), servers=n)
            # Growing lists, each filled up from the last: the cost per
            # server shows whether the list stays linear.
            for size in args.list_sizes:
                _fill(aio, size)
                times, n = bench_list(aio, '/servers/detail?limit=%d' % size, args.repeat)
                results['detail_%d' % size] = dict(
                    _summary(times), servers=n,
                    ms_per_server=round(statistics.median(times) * 1000 / n, 4))
                times, n = bench_list(aio, '/servers?limit=%d' % size, args.repeat)
                results['list_%d' % size] = dict(_summary(times), servers=n)
        finally:
            aio.stop()
    results['peak_rss_mb'] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(results, indent=2))


if __name__ == '__main__':
    main()
