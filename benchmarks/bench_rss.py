"""Peak RSS of a real nova-aio process (all services in one) idle and after servers."""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from nova.tests.functional import fixtures


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _hwm_mb(pid):
    with open('/proc/%d/status' % pid) as status:
        for line in status:
            if line.startswith(('VmHWM', 'VmRSS')):
                yield line.split(':')[0], int(line.split()[1]) / 1024.0


def _call(method, url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header('X-Auth-Token', 'demo:demo')
    req.add_header('Content-Type', 'application/json')
    req.add_header('OpenStack-API-Version', 'compute 2.100')
    with urllib.request.urlopen(req, timeout=30) as resp:
        payload = resp.read()
        return json.loads(payload) if payload else None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--servers', type=int, default=20)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp()
    ports = {name: _free_port() for name in ('compute', 'image', 'volume')}
    conf = os.path.join(tmp, 'aio.conf')
    with open(conf, 'w') as handle:
        handle.write('[DEFAULT]\nstate_path = %s\nram_allocation_ratio = 100\n'
                     'cpu_allocation_ratio = 100\n[libvirt]\nconnection_uri = test:///default\n'
                     '[aio]\ncompute_port = %d\nimage_port = %d\nvolume_port = %d\n'
                     '[vnc]\nnovncproxy_port = 0\n'
                     % (tmp, ports['compute'], ports['image'], ports['volume']))
    binary = os.path.join(os.path.dirname(sys.executable), 'nova-aio')
    proc = subprocess.Popen([binary, '--config-file', conf], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        while 'nova-aio ready' not in proc.stdout.readline():
            pass
        compute = 'http://127.0.0.1:%d/v2.1' % ports['compute']
        image_url = 'http://127.0.0.1:%d' % ports['image']
        result = {'idle': dict(_hwm_mb(proc.pid))}
        image = _call('POST', image_url + '/v2/images', {
            'name': 'i', 'disk_format': 'raw', 'container_format': 'bare'})
        disk = fixtures.tiny_disk(os.path.join(tmp, 'disk.img'))
        with open(disk, 'rb') as handle:
            req = urllib.request.Request(image_url + '/v2/images/%s/file' % image['id'],
                                         data=handle.read(), method='PUT')
        req.add_header('Content-Type', 'application/octet-stream')
        urllib.request.urlopen(req).close()
        for i in range(args.servers):
            _call('POST', compute + '/servers', {'server': {
                'name': 's%d' % i, 'imageRef': image['id'], 'flavorRef': '1',
                'networks': 'none'}})
        time.sleep(2)
        _call('GET', compute + '/servers/detail')
        result['after_%d_servers' % args.servers] = dict(_hwm_mb(proc.pid))
        print(json.dumps(result, indent=2))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == '__main__':
    main()
