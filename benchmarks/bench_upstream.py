"""The workload of record against upstream Nova's functional harness, and ours beside it."""

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import bench_workload

HERE = os.path.dirname(os.path.abspath(__file__))
REQUIREMENTS = os.path.join(HERE, 'upstream', 'requirements.txt')
HARNESS = os.path.join(HERE, 'upstream', 'harness.py')
DEFAULT_VENV = os.environ.get('NOVA_BENCH_UPSTREAM_VENV',
                              '/var/cache/nova-bench/upstream-venv')
TARGET = 6.0  # the aim: upstream takes at least six times ours
STEPS = ('create_to_active', 'detail', 'rescue_to_rescue', 'unrescue_to_active',
         'delete_to_404')


def ensure_venv(venv, python):
    """Create the upstream virtualenv, or reinstall it when the pins changed."""
    with open(REQUIREMENTS, 'rb') as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    stamp = os.path.join(venv, '.requirements.sha256')
    if os.path.exists(stamp):
        with open(stamp) as handle:
            if handle.read().strip() == digest:
                return
    if not os.path.exists(os.path.join(venv, 'bin', 'python')):
        os.makedirs(os.path.dirname(venv) or '.', exist_ok=True)
        subprocess.run([python, '-m', 'venv', venv], check=True)
    subprocess.run([os.path.join(venv, 'bin', 'pip'), 'install', '--quiet',
                    '-r', REQUIREMENTS], check=True)
    with open(stamp, 'w') as handle:
        handle.write(digest + '\n')


def _tail(log_path, size=6000):
    with open(log_path, 'rb') as log:
        sys.stderr.write(log.read()[-size:].decode(errors='replace'))


def _start_harness(venv, tmp, test_settings=False):
    env = dict(os.environ)
    # Upstream's tests read this when nova.tests is imported: unset, they
    # monkey-patch with eventlet; set, they run on native threads, the
    # default of upstream's API, conductor, scheduler and compute services
    # in this release. (Monkey-patched, the harness did not come up here.)
    env['OS_NOVA_DISABLE_EVENTLET_PATCHING'] = '1'
    env.pop('OS_DEBUG', None)
    env.pop('PYTHONPATH', None)
    stop = os.path.join(tmp, 'stop')
    log_path = os.path.join(tmp, 'harness.log')
    with open(log_path, 'wb') as log:
        proc = subprocess.Popen([os.path.join(venv, 'bin', 'python'), HARNESS,
                                 '--stop-file', stop]
                                + (['--test-settings'] if test_settings else []), stdout=log,
                                stderr=subprocess.STDOUT, cwd=tmp, env=env)
    marker = b'upstream-harness ready '
    while True:
        with open(log_path, 'rb') as log:
            for line in log:
                if marker in line:
                    ready = json.loads(line[line.index(marker) + len(marker):])
                    return proc, stop, ready
        if proc.poll() is not None:
            _tail(log_path)
            raise RuntimeError('the upstream harness exited with %s' % proc.returncode)
        time.sleep(0.1)


def _stop(proc, stop):
    open(stop, 'w').close()
    try:
        proc.wait(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_upstream(venv, servers, rounds, test_settings=False):
    with tempfile.TemporaryDirectory() as tmp:
        proc, stop, ready = _start_harness(venv, tmp, test_settings)
        try:
            idle = bench_workload._rss_mb(proc.pid, 'VmRSS')
            client = bench_workload.Client(
                'http://127.0.0.1:%d/v2.1' % ready['port'], None,
                version=ready['microversion'],
                headers={'X-Auth-User': 'fake', 'X-Auth-Project-Id': ready['project'],
                         'X-Roles': 'reader,member'})
            try:
                result = bench_workload.drive(client, ready['image'], servers, rounds,
                                              proc.pid)
            except Exception:
                # The harness writes its captured log when it stops.
                _stop(proc, stop)
                _tail(os.path.join(tmp, 'harness.log'))
                raise
        finally:
            _stop(proc, stop)
    result['rss_mb_idle'] = idle
    peak_key = 'peak_rss_mb_after_%d_servers' % servers
    result[peak_key] = result.pop(peak_key)
    result['upstream'] = {'microversion': ready['microversion'],
                          'eventlet': ready['eventlet'], 'test_settings': test_settings}
    return result


def _row(results, step):
    """Median of the runs' medians, and the lowest p10 to the highest p90."""
    rows = [next(v for k, v in r.items() if k.startswith(step)) for r in results]
    return (statistics.median(row['median_ms'] for row in rows),
            min(row['p10_ms'] for row in rows), max(row['p90_ms'] for row in rows))


def _mem(results, field):
    values = [next(v for k, v in r.items() if k.startswith(field)) for r in results]
    return statistics.median(values), min(values), max(values)


def table(ours, upstream):
    """The side-by-side rows: ours, upstream, upstream/ours and the target."""
    lines = ['%-20s %-24s %-24s %9s %8s' % ('step', 'ours ms (p10-p90)',
                                             'upstream ms (p10-p90)', 'up/ours',
                                             '>= %gx' % TARGET)]
    for step in STEPS:
        mine, theirs = _row(ours, step), _row(upstream, step)
        ratio = theirs[0] / mine[0] if mine[0] else float('inf')
        lines.append('%-20s %-24s %-24s %9.2f %8s' % (
            step, '%.1f (%.1f-%.1f)' % mine, '%.1f (%.1f-%.1f)' % theirs, ratio,
            'yes' if ratio >= TARGET else 'no'))
    for field, name in (('cpu_s_workload', 'CPU s, workload'), ('rss_mb_idle', 'idle RSS MB'),
                        ('peak_rss_mb', 'peak RSS MB')):
        mine, theirs = _mem(ours, field), _mem(upstream, field)
        ratio = theirs[0] / mine[0]
        lines.append('%-20s %-24s %-24s %9.2f %8s' % (
            name, '%.1f (%.1f-%.1f)' % mine, '%.1f (%.1f-%.1f)' % theirs, ratio,
            'yes' if ratio >= TARGET else 'no'))
    return '\n'.join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--servers', type=int, default=50)
    parser.add_argument('--rounds', type=int, default=10)
    parser.add_argument('--runs', type=int, default=1,
                        help='runs of each side; with --ours the sides alternate')
    parser.add_argument('--venv', default=DEFAULT_VENV,
                        help='the upstream virtualenv (default: %(default)s, or '
                             '$NOVA_BENCH_UPSTREAM_VENV)')
    parser.add_argument('--python', default=sys.executable,
                        help='the interpreter the virtualenv is made from')
    parser.add_argument('--test-settings', action='store_true',
                        help="keep two settings of upstream's TestCase that a "
                             'deployment does not have: every debug record '
                             "formatted, futurist's idle workers waking every "
                             '10 ms (default: INFO logging, 1 s)')
    parser.add_argument('--ours', action='store_true',
                        help='also run our all-in-one and print the ratio table')
    parser.add_argument('--setup-only', action='store_true',
                        help='create or update the virtualenv and stop')
    args = parser.parse_args()
    ensure_venv(args.venv, args.python)
    if args.setup_only:
        return
    ours, upstream = [], []
    for _ in range(args.runs):
        upstream.append(run_upstream(args.venv, args.servers, args.rounds,
                                     args.test_settings))
        print(json.dumps({'upstream': upstream[-1]}, indent=2), flush=True)
        if args.ours:
            ours.append(bench_workload.run(args.servers, args.rounds))
            print(json.dumps({'ours': ours[-1]}, indent=2), flush=True)
    if ours:
        print(table(ours, upstream))


if __name__ == '__main__':
    main()
