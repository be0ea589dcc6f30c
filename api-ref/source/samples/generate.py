"""Write the api-ref JSON samples from real responses of an in-process all-in-one.

Usage (from the repository root, with the project's virtualenv)::

    .venv/bin/python api-ref/source/samples/generate.py          # rewrite samples
    .venv/bin/python api-ref/source/samples/generate.py --check  # fail on drift

The script starts ``nova-aio`` in this process on libvirt's ``test:///default``
hypervisor (no libvirtd, no QEMU), through the same fixture the functional
tests use, sends each documented request, and writes the request body and the
response body it got. Values that change from run to run (UUIDs, timestamps,
the listening port, generated passwords and reservation ids) are replaced by
fixed ones, so running the script twice gives identical files and a diff
shows only real changes of the API.

Microversions are pinned (2.1, ``NEWEST``, and the version that introduced a
feature), never "latest", so adding a microversion does not rewrite old
samples; only the version documents show the current maximum.
"""

import argparse
import difflib
import json
import logging
import os
import re
import sys
import tempfile
import threading
import time
import uuid

LOG = logging.getLogger('generate-samples')
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
sys.path.insert(0, ROOT)

# The host name every sample link uses instead of 127.0.0.1:<port>.
SAMPLE_HOST = 'http://openstack.example.com'
# The newest microversion the samples are written at. Raise it (and
# regenerate) when a new microversion changes a servers or flavors body.
NEWEST = '2.104'
ADMIN = 'admin:admin'

# Fixed stand-ins for values that differ on every run.
_FIXED = {
    'adminPass': 'wfksH3GTTseP',
    'created': '2026-01-01T10:00:00Z',
    'updated': '2026-01-01T10:00:05Z',
    'OS-SRV-USG:launched_at': '2026-01-01T10:00:04.000000',
    'OS-EXT-SRV-ATTR:reservation_id': 'r-3fhpjulh',
    'reservation_id': 'r-3fhpjulh',
}
_UUID_RE = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
_UUID_NS = uuid.UUID('6ba7b811-9dad-11d1-80b4-00c04fd430c8')


class Normalizer:
    """Rewrites run-specific values to fixed ones, consistently across samples."""

    def __init__(self, base_url):
        self.base_url = base_url.rstrip('/')
        self.uuids = {}

    def _uuid(self, match):
        real = match.group(0)
        if real not in self.uuids:
            self.uuids[real] = str(uuid.uuid5(_UUID_NS, 'sample-%d' % len(self.uuids)))
        return self.uuids[real]

    def _string(self, value):
        value = value.replace(self.base_url, SAMPLE_HOST)
        return _UUID_RE.sub(self._uuid, value)

    def __call__(self, value, key=None, parent=None):
        if isinstance(value, dict):
            # The version documents carry a fixed 'updated' date: keep it.
            is_version = 'min_version' in value
            return {k: (v if is_version and k == 'updated' else self(v, k, value))
                    for k, v in value.items()}
        if isinstance(value, list):
            return [self(v, key, parent) for v in value]
        if isinstance(value, str):
            if key in _FIXED and value:
                return _FIXED[key]
            return self._string(value)
        return value


class SampleWriter:
    """Sends requests to the running all-in-one and collects the sample files."""

    def __init__(self, aio):
        self.aio = aio
        self.normalize = Normalizer(aio.compute_url.rsplit('/v2.1', 1)[0])
        self.files = {}

    def _add(self, name, body):
        self.files[name] = json.dumps(self.normalize(body), indent=4,
                                      ensure_ascii=False) + '\n'

    def call(self, method, path, expect, body=None, version=None, token=ADMIN,
             req_name=None, resp_name=None, url=None):
        """Send one request; record its request and response bodies by name."""
        if req_name:
            self._add(req_name, body)
        LOG.info('%s %s (microversion %s)', method, path, version)
        status, _headers, resp = self.aio.request(method, path, body, version=version,
                                                  token=token, url=url)
        if status != expect:
            raise SystemExit('%s %s at %s answered %s, expected %s: %s'
                             % (method, path, version, status, expect, resp))
        if resp_name:
            self._add(resp_name, resp)
        return resp


def _versions(w):
    root = w.aio.compute_url.rsplit('/v2.1', 1)[0]
    w.call('GET', '', 200, url=root, resp_name='versions/versions-get-resp.json')
    w.call('GET', '/', 200, resp_name='versions/v21-version-get-resp.json')


def _flavors(w):
    for version, prefix in (('2.1', 'flavors/'), (NEWEST, 'flavors/v%s/' % NEWEST)):
        w.call('GET', '/flavors', 200, version=version,
               resp_name=prefix + 'flavors-list-resp.json')
        w.call('GET', '/flavors/detail', 200, version=version,
               resp_name=prefix + 'flavors-detail-resp.json')
        w.call('GET', '/flavors/1', 200, version=version,
               resp_name=prefix + 'flavor-get-resp.json')
    create = {'flavor': {'name': 'test_flavor', 'ram': 1024, 'vcpus': 2, 'disk': 10,
                         'id': '10', 'rxtx_factor': 2.0}}
    w.call('POST', '/flavors', 200, create, version='2.1',
           req_name='flavors/flavor-create-req.json',
           resp_name='flavors/flavor-create-resp.json')
    w.call('DELETE', '/flavors/10', 202, version='2.1')
    create = {'flavor': {'name': 'test_flavor', 'ram': 1024, 'vcpus': 2, 'disk': 10,
                         'id': '10', 'rxtx_factor': 2.0,
                         'description': 'A flavor with two vCPUs and 1 GiB of RAM'}}
    w.call('POST', '/flavors', 200, create, version=NEWEST,
           req_name='flavors/v%s/flavor-create-req.json' % NEWEST,
           resp_name='flavors/v%s/flavor-create-resp.json' % NEWEST)
    w.call('DELETE', '/flavors/10', 202, version=NEWEST)


def _server_cycle(w, version, prefix, create, update):
    """Create, show, list, update and delete one server at ``version``."""
    resp = w.call('POST', '/servers', 202, create, version=version,
                  req_name=prefix + 'server-create-req.json',
                  resp_name=prefix + 'server-create-resp.json')
    server_id = resp['server']['id']
    path = '/servers/%s' % server_id
    _wait(w, path, 'ACTIVE')
    w.call('GET', path, 200, version=version, resp_name=prefix + 'server-get-resp.json')
    w.call('GET', '/servers', 200, version=version,
           resp_name=prefix + 'servers-list-resp.json')
    w.call('GET', '/servers/detail', 200, version=version,
           resp_name=prefix + 'servers-details-resp.json')
    w.call('PUT', path, 200, update, version=version,
           req_name=prefix + 'server-update-req.json',
           resp_name=prefix + 'server-update-resp.json')
    w.call('DELETE', path, 204, version=version)
    _wait(w, path, None)


def _wait(w, path, wanted, timeout=60):
    """Poll a server as the sample user until it has status ``wanted`` (None: gone)."""
    deadline = time.monotonic() + timeout
    while True:
        status, _headers, body = w.aio.request('GET', path, token=ADMIN)
        if status == 404 and wanted is None:
            return
        if status == 200 and body['server']['status'] == wanted:
            return
        if status == 200 and body['server']['status'] == 'ERROR':
            raise SystemExit('%s went to ERROR: %s' % (path, body['server'].get('fault')))
        if time.monotonic() > deadline:
            raise SystemExit('%s did not reach %s in %ds (last answer %s: %s)'
                             % (path, wanted or 'deletion', timeout, status, body))
        time.sleep(0.05)


def _servers(w, image_id):
    create = {'server': {'name': 'new-server-test', 'imageRef': image_id,
                         'flavorRef': '1', 'metadata': {'My Server Name': 'Apache1'}}}
    update = {'server': {'name': 'new-server-name', 'accessIPv4': '192.0.2.10'}}
    _server_cycle(w, '2.1', 'servers/', create, update)

    create = {'server': {'name': 'new-server-test', 'imageRef': image_id,
                         'flavorRef': '1', 'networks': 'none',
                         'description': 'A web server', 'hostname': 'web-1',
                         'metadata': {'My Server Name': 'Apache1'},
                         'tags': ['production', 'web']}}
    update = {'server': {'name': 'new-server-name', 'description': 'The new web server',
                         'hostname': 'web-2'}}
    _server_cycle(w, NEWEST, 'servers/v%s/' % NEWEST, create, update)
    _image_props_override(w, image_id)


def _image_props_override(w, image_id):
    """2.105: a create with image_props_override and the server it shows."""
    version, prefix = '2.105', 'servers/v2.105/'
    create = {'server': {'name': 'new-server-test', 'imageRef': image_id,
                         'flavorRef': '1', 'networks': 'none',
                         'image_props_override': {'hw_disk_bus': 'sata',
                                                  'hw_rng_model': 'virtio'}}}
    resp = w.call('POST', '/servers', 202, create, version=version,
                  req_name=prefix + 'server-create-req.json',
                  resp_name=prefix + 'server-create-resp.json')
    path = '/servers/%s' % resp['server']['id']
    _wait(w, path, 'ACTIVE')
    w.call('GET', path, 200, version=version, resp_name=prefix + 'server-get-resp.json')
    w.call('DELETE', path, 204, version=version)
    _wait(w, path, None)


def generate():
    """Run every documented request; return {relative path: file text}."""
    from nova.tests.functional import fixtures
    with tempfile.TemporaryDirectory(prefix='nova-samples-') as tmp:
        # The service's own defaults where the test fixture changes them for
        # tests that share a libvirtd; test:///default is private to us.
        aio = fixtures.RunningAio(tmp, extra={
            ('DEFAULT', 'instance_name_template'): 'instance-%08x',
            ('DEFAULT', 'host'): 'compute-1',
        })
        try:
            disk = fixtures.tiny_disk(os.path.join(tmp, 'disk.raw'))
            image_id = aio.upload_image(disk, name='cirros', os_distro='cirros',
                                        hw_disk_bus='virtio')
            writer = SampleWriter(aio)
            writer.normalize(image_id)      # the image is the first UUID
            _versions(writer)
            _flavors(writer)
            _servers(writer, image_id)
            return writer.files
        finally:
            aio.stop()


def _say(text):
    """A line for the person running the script (a CLI, not library code)."""
    sys.stdout.write(text + '\n')


def _existing():
    found = {}
    for dirpath, _dirs, names in os.walk(HERE):
        for name in names:
            if name.endswith('.json'):
                path = os.path.join(dirpath, name)
                with open(path, encoding='utf-8') as handle:
                    found[os.path.relpath(path, HERE)] = handle.read()
    return found


def check(files):
    """Print what differs from the committed samples; return True if nothing does."""
    existing = _existing()
    ok = True
    for name in sorted(set(files) | set(existing)):
        old, new = existing.get(name), files.get(name)
        if old == new:
            continue
        ok = False
        if old is None:
            _say('missing sample: %s' % name)
        elif new is None:
            _say('sample no longer produced: %s' % name)
        else:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), 'a/' + name, 'b/' + name))
    return ok


def write(files):
    for name, text in sorted(files.items()):
        path = os.path.join(HERE, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write(text)
    _say('wrote %d samples under %s' % (len(files), HERE))


def _watchdog(seconds):
    """End the process if the service hangs: a stuck build must not hang CI."""
    def expire():
        sys.stderr.write('generate.py: no result after %ds; giving up\n' % seconds)
        os._exit(2)
    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--check', action='store_true',
                        help='compare with the samples on disk instead of writing them')
    parser.add_argument('--timeout', type=int, default=300,
                        help='seconds before giving up on a hung service (default 300)')
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='log each request and the service log')
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    _watchdog(args.timeout)
    files = generate()
    if args.check:
        if not check(files):
            _say('api-ref samples are stale: run %s' % os.path.relpath(__file__, ROOT))
            return 1
        _say('%d api-ref samples match the running service' % len(files))
        return 0
    write(files)
    return 0


if __name__ == '__main__':
    sys.exit(main())
