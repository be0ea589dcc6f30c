"""Benchmark rescue and unrescue orchestration on test:///default (API call to final state)."""

import argparse
import json
import statistics
import tempfile
import time

from nova.tests.functional import fixtures


def _wait(aio, sid, vm_state):
    while True:
        row = aio.db.instance_get(sid)
        if row['vm_state'] == vm_state and row['task_state'] is None:
            return
        time.sleep(0.001)


def _timed(aio, sid, body, final):
    start = time.perf_counter()
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid, body, version='2.106')
    assert status in (200, 202), resp
    _wait(aio, sid, final)
    return time.perf_counter() - start


def _summary(values):
    ordered = sorted(values)
    return {'median_ms': round(statistics.median(values) * 1000, 1),
            'p95_ms': round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 1),
            'min_ms': round(ordered[0] * 1000, 1), 'n': len(values)}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--rounds', type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        aio = fixtures.RunningAio(tmp)
        try:
            image = aio.upload_image(fixtures.tiny_disk(tmp + '/disk.img'),
                                     hw_rescue_bus='usb')
            status, _h, body = aio.request('POST', '/servers', {'server': {
                'name': 'bench', 'imageRef': image, 'flavorRef': '1', 'networks': 'none'}},
                version='2.106')
            sid = body['server']['id']
            _wait(aio, sid, 'active')
            rescue, unrescue = [], []
            for _ in range(args.rounds):
                rescue.append(_timed(aio, sid, {'rescue': {}}, 'rescued'))
                unrescue.append(_timed(aio, sid, {'unrescue': None}, 'active'))
        finally:
            aio.stop()
    print(json.dumps({'rescue': _summary(rescue), 'unrescue': _summary(unrescue)}, indent=2))


if __name__ == '__main__':
    main()
