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
import urllib.parse
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

SAMPLE_PUBLIC_KEY = (
    'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDrhfiVFW+VXM9TOAiFgzTWOi9la8n+H8uSD/Vt67MlHpag'
    'kZjEson4krhhHLZfoNNHiwzzCyBp7c6B7epXfVVAuBqDSdjkFBoQp3D2aJFqIzVN/udUKYlizNB+UiY33dZ'
    'AMlcf+md0j96KlomDBvXf+hJ+lyMHEu5exVymSj6PhQ== Generated-by-Nova')

# Fixed stand-ins for values that differ on every run.
_FIXED = {
    'adminPass': 'wfksH3GTTseP',
    # A server's port on the default network: its MAC is random, its address
    # the next free one.
    'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:4c:2c:30',
    'addr': '10.78.0.12',
    'created': '2026-01-01T10:00:00Z',
    'updated': '2026-01-01T10:00:05Z',
    'OS-SRV-USG:launched_at': '2026-01-01T10:00:04.000000',
    'OS-EXT-SRV-ATTR:reservation_id': 'r-3fhpjulh',
    'reservation_id': 'r-3fhpjulh',
    # Instance actions and their events.
    'start_time': '2026-01-01T10:00:06.000000',
    'finish_time': '2026-01-01T10:00:07.000000',
    'updated_at': '2026-01-01T10:00:07.000000',
    # The volume proxy's volumes and snapshots.
    'createdAt': '2026-01-01T10:00:00.000000',
    # Key pairs: a generated key differs on every run; samples show this one.
    'created_at': '2026-01-01T10:00:00.000000',
    'public_key': SAMPLE_PUBLIC_KEY,
    'fingerprint': '0d:53:05:36:a6:c8:07:94:9e:88:6f:29:30:2e:53:0e',
    'private_key': '-----BEGIN RSA PRIVATE KEY-----\nMIICXAIBAAKBgQDrhfiVFW+VXM9TOAiFgz'
                   'TWOi9la8n+H8uSD/Vt67MlHpagkZjE\n...\n-----END RSA PRIVATE KEY-----\n',
    # Hypervisors: what the sample machine's host reports.
    'hypervisor_hostname': 'compute-1.example.com',
    'host_ip': '192.0.2.5',
    'uptime': ' 10:00:08 up 7 days,  2:11,  1 user,  load average: 0.05, 0.10, 0.09',
}
# Host capacity and versions differ between machines: fixed numbers in samples.
_FIXED_NUMBERS = {
    'memory_mb': 7976, 'memory_mb_used': 1024, 'free_ram_mb': 6952, 'local_gb': 100,
    'local_gb_used': 20, 'free_disk_gb': 80, 'disk_available_least': 80,
    'hypervisor_version': 10000000,
}
_UUID_RE = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
_UUID_NS = uuid.UUID('6ba7b811-9dad-11d1-80b4-00c04fd430c8')


def _host_capacity(parent):
    """True for a body describing a host's capacity (hypervisor, statistics, os-hosts)."""
    return isinstance(parent, dict) and (
        'hypervisor_hostname' in parent or 'running_vms' in parent
        or ('project' in parent and 'disk_gb' in parent))


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
        if isinstance(value, int) and not isinstance(value, bool) and key in _FIXED_NUMBERS \
                and _host_capacity(parent):
            return _FIXED_NUMBERS[key]
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


def _quota_sets(w):
    """os-quota-sets of the admin project (which holds one server) at 2.1 and 2.57."""
    for version, prefix in (('2.1', 'os-quota-sets/'), ('2.57', 'os-quota-sets/v2.57/')):
        path = '/os-quota-sets/admin'
        w.call('GET', path, 200, version=version, resp_name=prefix + 'quotas-show-get-resp.json')
        w.call('GET', path + '/detail', 200, version=version,
               resp_name=prefix + 'quotas-show-detail-get-resp.json')
        w.call('GET', path + '/defaults', 200, version=version,
               resp_name=prefix + 'quotas-show-defaults-get-resp.json')
        w.call('PUT', path, 200, {'quota_set': {'instances': 45, 'cores': 40}},
               version=version, req_name=prefix + 'quotas-update-post-req.json',
               resp_name=prefix + 'quotas-update-post-resp.json')
        w.call('PUT', path, 200, {'quota_set': {'instances': 0, 'force': True}},
               version=version, req_name=prefix + 'quotas-update-force-post-req.json',
               resp_name=prefix + 'quotas-update-force-post-resp.json')
        w.call('DELETE', path, 202, version=version)
        w.call('PUT', path + '?user_id=demo', 200, {'quota_set': {'instances': 9}},
               version=version, req_name=prefix + 'user-quotas-update-post-req.json',
               resp_name=prefix + 'user-quotas-update-post-resp.json')
        w.call('GET', path + '?user_id=demo', 200, version=version,
               resp_name=prefix + 'user-quotas-show-get-resp.json')
        w.call('DELETE', path + '?user_id=demo', 202, version=version)


def _quotas_and_limits(w, image_id):
    """Quota sets, quota classes and limits, with one server using some quota."""
    server_id = _boot(w, image_id, 'quota-sample')
    _quota_sets(w)
    for version in ('2.1', '2.50', '2.57'):
        prefix = 'os-quota-class-sets/' + ('' if version == '2.1' else 'v%s/' % version)
        path = '/os-quota-class-sets/default'
        w.call('GET', path, 200, version=version,
               resp_name=prefix + 'quota-classes-show-get-resp.json')
        w.call('PUT', path, 200, {'quota_class_set': {'instances': 50, 'cores': 50}},
               version=version, req_name=prefix + 'quota-classes-update-post-req.json',
               resp_name=prefix + 'quota-classes-update-post-resp.json')
        w.call('PUT', path, 200, {'quota_class_set': {'instances': 10, 'cores': 20}},
               version=version)
    for version in ('2.1', '2.36', '2.39', '2.57'):
        prefix = 'limits/' + ('' if version == '2.1' else 'v%s/' % version)
        w.call('GET', '/limits', 200, version=version, resp_name=prefix + 'limit-get-resp.json')
    _delete(w, server_id)
def _keypairs(w):
    key = {'keypair': {'name': 'keypair-gen'}}
    w.call('POST', '/os-keypairs', 200, key, version='2.1', token='demo:demo',
           req_name='os-keypairs/keypairs-generate-req.json',
           resp_name='os-keypairs/keypairs-generate-resp.json')
    w.call('DELETE', '/os-keypairs/keypair-gen', 202, version='2.1', token='demo:demo')
    key = {'keypair': {'name': 'keypair-x509', 'type': 'x509'}}
    w.call('POST', '/os-keypairs', 201, key, version='2.2', token='demo:demo',
           req_name='os-keypairs/v2.2/keypairs-generate-req.json')
    w.call('DELETE', '/os-keypairs/keypair-x509', 204, version='2.2', token='demo:demo')
    key = {'keypair': {'name': 'keypair-demo', 'type': 'ssh', 'user_id': 'demo',
                       'public_key': SAMPLE_PUBLIC_KEY}}
    w.call('POST', '/os-keypairs', 201, key, version='2.92',
           req_name='os-keypairs/v2.92/keypairs-import-req.json',
           resp_name='os-keypairs/v2.92/keypairs-import-resp.json')
    w.call('GET', '/os-keypairs?user_id=demo&limit=1', 200, version='2.35',
           resp_name='os-keypairs/v2.35/keypairs-list-resp.json')
    w.call('GET', '/os-keypairs/keypair-demo?user_id=demo', 200, version='2.10',
           resp_name='os-keypairs/v2.10/keypairs-get-resp.json')
    w.call('DELETE', '/os-keypairs/keypair-demo?user_id=demo', 204, version='2.10')


def _flavor_extras(w):
    create = {'flavor': {'name': 'private', 'ram': 512, 'vcpus': 1, 'disk': 1, 'id': '20',
                         'os-flavor-access:is_public': False}}
    w.call('POST', '/flavors', 200, create, version='2.1')
    specs = {'extra_specs': {'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': '1'}}
    path = '/flavors/20/os-extra_specs'
    w.call('POST', path, 200, specs, version='2.86',
           req_name='flavor-extra-specs/flavor-extra-specs-create-req.json',
           resp_name='flavor-extra-specs/flavor-extra-specs-create-resp.json')
    w.call('GET', path, 200, version='2.86',
           resp_name='flavor-extra-specs/flavor-extra-specs-list-resp.json')
    w.call('PUT', path + '/hw:numa_nodes', 200, {'hw:numa_nodes': '2'}, version='2.86',
           req_name='flavor-extra-specs/flavor-extra-specs-update-req.json',
           resp_name='flavor-extra-specs/flavor-extra-specs-update-resp.json')
    w.call('GET', path + '/hw:numa_nodes', 200, version='2.86',
           resp_name='flavor-extra-specs/flavor-extra-specs-get-resp.json')
    w.call('DELETE', path + '/hw:numa_nodes', 200, version='2.86')
    w.call('POST', '/flavors/20/action', 200, {'addTenantAccess': {'tenant': 'demo'}},
           version='2.7', req_name='flavor-access/flavor-access-add-tenant-req.json',
           resp_name='flavor-access/flavor-access-add-tenant-resp.json')
    w.call('GET', '/flavors/20/os-flavor-access', 200, version='2.7',
           resp_name='flavor-access/flavor-access-list-resp.json')
    w.call('POST', '/flavors/20/action', 200, {'removeTenantAccess': {'tenant': 'demo'}},
           version='2.7', req_name='flavor-access/flavor-access-remove-tenant-req.json',
           resp_name='flavor-access/flavor-access-remove-tenant-resp.json')
    w.call('PUT', '/flavors/20', 200, {'flavor': {'description': 'One dedicated vCPU'}},
           version='2.61', req_name='flavors/v2.61/flavor-update-req.json',
           resp_name='flavors/v2.61/flavor-update-resp.json')
    w.call('DELETE', '/flavors/20', 202, version='2.1')


def _services_hypervisors(w):
    w.call('GET', '/os-services', 200, version='2.11',
           resp_name='os-services/v2.11/services-list-get-resp.json')
    resp = w.call('GET', '/os-services?binary=nova-compute', 200, version='2.53',
                  resp_name='os-services/v2.53/services-list-get-resp.json')
    service = '/os-services/%s' % resp['services'][0]['id']
    host = {'host': 'compute-1', 'binary': 'nova-compute'}
    w.call('PUT', '/os-services/disable-log-reason', 200,
           dict(host, disabled_reason='test2'), version='2.11',
           req_name='os-services/service-disable-log-put-req.json',
           resp_name='os-services/service-disable-log-put-resp.json')
    w.call('PUT', '/os-services/enable', 200, host, version='2.11',
           req_name='os-services/service-enable-put-req.json',
           resp_name='os-services/service-enable-put-resp.json')
    w.call('PUT', service, 200, {'status': 'disabled', 'disabled_reason': 'maintenance'},
           version='2.53', req_name='os-services/v2.53/service-disable-log-put-req.json',
           resp_name='os-services/v2.53/service-disable-log-put-resp.json')
    w.call('PUT', service, 200, {'status': 'enabled'}, version='2.53',
           req_name='os-services/v2.53/service-enable-put-req.json',
           resp_name='os-services/v2.53/service-enable-put-resp.json')
    for version in ('2.1', '2.33', '2.53', '2.88'):
        prefix = 'os-hypervisors/' + ('' if version == '2.1' else 'v%s/' % version)
        resp = w.call('GET', '/os-hypervisors', 200, version=version,
                      resp_name=prefix + 'hypervisors-list-resp.json')
        hyp = '/os-hypervisors/%s' % resp['hypervisors'][0]['id']
        w.call('GET', '/os-hypervisors/detail', 200, version=version,
               resp_name=prefix + 'hypervisors-detail-resp.json')
        w.call('GET', hyp, 200, version=version, resp_name=prefix + 'hypervisors-show-resp.json')
    w.call('GET', '/os-hypervisors/statistics', 200, version='2.1',
           resp_name='os-hypervisors/hypervisors-statistics-resp.json')
    resp = w.call('GET', '/os-hypervisors', 200, version='2.1')
    w.call('GET', '/os-hypervisors/%s/uptime' % resp['hypervisors'][0]['id'], 200,
           version='2.1', resp_name='os-hypervisors/hypervisors-uptime-resp.json')
    name = resp['hypervisors'][0]['hypervisor_hostname']
    w.call('GET', '/os-hypervisors/%s/search' % name, 200, version='2.1',
           resp_name='os-hypervisors/hypervisors-search-resp.json')
    w.call('GET', '/os-hypervisors/%s/servers' % name, 200, version='2.1',
           resp_name='os-hypervisors/hypervisors-with-servers-resp.json')


def _aggregates_zones_hosts(w):
    w.call('GET', '/os-availability-zone', 200, version='2.1', token='demo:demo',
           resp_name='os-availability-zone/availability-zone-list-resp.json')
    create = {'aggregate': {'name': 'name', 'availability_zone': 'london'}}
    resp = w.call('POST', '/os-aggregates', 200, create, version='2.41',
                  req_name='os-aggregates/v2.41/aggregate-post-req.json',
                  resp_name='os-aggregates/v2.41/aggregate-post-resp.json')
    path = '/os-aggregates/%d' % resp['aggregate']['id']
    w.call('PUT', path, 200, {'aggregate': {'name': 'newname'}}, version='2.41',
           req_name='os-aggregates/v2.41/aggregate-update-post-req.json',
           resp_name='os-aggregates/v2.41/aggregate-update-post-resp.json')
    w.call('POST', path + '/action', 200, {'add_host': {'host': 'compute-1'}},
           version='2.41', req_name='os-aggregates/v2.41/aggregate-add-host-post-req.json',
           resp_name='os-aggregates/v2.41/aggregates-add-host-post-resp.json')
    w.call('POST', path + '/action', 200, {'set_metadata': {'metadata': {'key': 'value'}}},
           version='2.41', req_name='os-aggregates/v2.41/aggregate-metadata-post-req.json',
           resp_name='os-aggregates/v2.41/aggregates-metadata-post-resp.json')
    w.call('GET', '/os-aggregates', 200, version='2.41',
           resp_name='os-aggregates/v2.41/aggregates-list-get-resp.json')
    w.call('GET', path, 200, version='2.41',
           resp_name='os-aggregates/v2.41/aggregates-get-resp.json')
    w.call('GET', '/os-availability-zone/detail', 200, version='2.1',
           resp_name='os-availability-zone/availability-zone-detail-resp.json')
    w.call('GET', '/os-hosts', 200, version='2.1', resp_name='os-hosts/hosts-list-resp.json')
    w.call('GET', '/os-hosts/compute-1', 200, version='2.1',
           resp_name='os-hosts/host-get-resp.json')
    w.call('POST', path + '/action', 200, {'remove_host': {'host': 'compute-1'}},
           version='2.41', req_name='os-aggregates/v2.41/aggregate-remove-host-post-req.json',
           resp_name='os-aggregates/v2.41/aggregates-remove-host-post-resp.json')
    w.call('DELETE', path, 200, version='2.41')


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


def _wait_idle(w, path, wanted, timeout=60):
    """Poll until the server has status ``wanted`` and no task in progress.

    Some actions (createImage, a failed rescue) keep the status and only
    set a task state; waiting for the status alone would race them.
    """
    deadline = time.monotonic() + timeout
    while True:
        _wait(w, path, wanted, timeout)
        _status, _headers, body = w.aio.request('GET', path, token=ADMIN)
        if body['server']['OS-EXT-STS:task_state'] is None and \
                body['server']['status'] == wanted:
            return body['server']
        if time.monotonic() > deadline:
            raise SystemExit('%s still has task %s after %ds'
                             % (path, body['server']['OS-EXT-STS:task_state'], timeout))
        time.sleep(0.05)


def _wait_action(w, server_id, action, timeout=60):
    """Wait until the newest ``action`` of the server has finished all its events.

    For what answers before the compute host has done the work (volume
    attach and detach); returns the events' results.
    """
    base = '/servers/%s/os-instance-actions' % server_id
    deadline = time.monotonic() + timeout
    while True:
        _status, _headers, body = w.aio.request('GET', base, token=ADMIN)
        found = next((a for a in body['instanceActions'] if a['action'] == action), None)
        if found is not None:
            _status, _headers, detail = w.aio.request(
                'GET', '%s/%s' % (base, found['request_id']), token=ADMIN)
            events = detail['instanceAction'].get('events') or []
            if events and all(e['finish_time'] for e in events):
                return [e['result'] for e in events]
        if time.monotonic() > deadline:
            raise SystemExit('%s of %s did not finish in %ds' % (action, server_id, timeout))
        time.sleep(0.05)


def _boot(w, image_id, name, **extra):
    """A server for the samples below; its own create is not a sample."""
    body = {'server': dict({'name': name, 'imageRef': image_id, 'flavorRef': '1',
                            'networks': 'none'}, **extra)}
    resp = w.call('POST', '/servers', 202, body, version=NEWEST)
    path = '/servers/%s' % resp['server']['id']
    _wait_idle(w, path, 'ACTIVE')
    return resp['server']['id']


def _topology(w, image_id):
    """2.78: the NUMA topology of a server whose flavor asks for two guest nodes."""
    w.call('POST', '/flavors', 200, {'flavor': {'name': 'numa.2', 'id': 'numa2', 'ram': 1024,
                                                'vcpus': 2, 'disk': 1}})
    w.call('POST', '/flavors/numa2/os-extra_specs', 200,
           {'extra_specs': {'hw:numa_nodes': '2'}})
    server_id = _boot(w, image_id, 'numa-server', flavorRef='numa2')
    w.call('GET', '/servers/%s/topology' % server_id, 200, version='2.78',
           resp_name='servers/v2.78/server-topology-resp.json')
    _delete(w, server_id)


def _delete(w, server_id):
    path = '/servers/%s' % server_id
    w.call('DELETE', path, 204, version=NEWEST)
    _wait(w, path, None)


def _server_actions(w, image_id):
    """POST /servers/{id}/action: each action, waiting for its final state."""
    server_id = _boot(w, image_id, 'action-server')
    path = '/servers/%s' % server_id
    action = path + '/action'
    prefix = 'server-actions/'

    def act(body, req_name, final, version='2.1', expect=202, resp_name=None):
        resp = w.call('POST', action, expect, body, version=version,
                      req_name=prefix + req_name, resp_name=resp_name and prefix + resp_name)
        _wait_idle(w, path, final)
        return resp

    act({'os-stop': None}, 'server-action-stop-req.json', 'SHUTOFF')
    act({'os-start': None}, 'server-action-start-req.json', 'ACTIVE')
    act({'reboot': {'type': 'SOFT'}}, 'server-action-reboot-req.json', 'ACTIVE')
    act({'pause': None}, 'server-action-pause-req.json', 'PAUSED')
    act({'unpause': None}, 'server-action-unpause-req.json', 'ACTIVE')
    act({'suspend': None}, 'server-action-suspend-req.json', 'SUSPENDED')
    act({'resume': None}, 'server-action-resume-req.json', 'ACTIVE')
    act({'lock': None}, 'server-action-lock-req.json', 'ACTIVE')
    act({'unlock': None}, 'server-action-unlock-req.json', 'ACTIVE')
    act({'lock': {'locked_reason': 'I do not want to delete this server'}},
        'v2.73/server-action-lock-req.json', 'ACTIVE', version='2.73')
    act({'unlock': None}, 'v2.73/server-action-unlock-req.json', 'ACTIVE', version='2.73')
    act({'os-getConsoleOutput': {'length': 50}}, 'server-action-console-output-req.json',
        'ACTIVE', expect=200, resp_name='server-action-console-output-resp.json')
    act({'createImage': {'name': 'foo-image', 'metadata': {'meta_var': 'meta_val'}}},
        'server-action-create-image-req.json', 'ACTIVE')
    act({'createImage': {'name': 'foo-image', 'metadata': {'meta_var': 'meta_val'}}},
        'v2.45/server-action-create-image-req.json', 'ACTIVE', version='2.45',
        resp_name='v2.45/server-action-create-image-resp.json')
    act({'rebuild': {'imageRef': image_id, 'name': 'foobar', 'adminPass': 'seekr3t',
                     'metadata': {'meta_var': 'meta_val'}}},
        'server-action-rebuild-req.json', 'ACTIVE',
        resp_name='server-action-rebuild-resp.json')
    act({'rebuild': {'imageRef': image_id, 'name': 'foobar', 'adminPass': 'seekr3t',
                     'metadata': {'meta_var': 'meta_val'},
                     'description': 'The rebuilt web server', 'hostname': 'web-3',
                     'user_data': 'ZWNobyAiaGVsbG8gd29ybGQiCg=='}},
        'v%s/server-action-rebuild-req.json' % NEWEST, 'ACTIVE', version=NEWEST,
        resp_name='v%s/server-action-rebuild-resp.json' % NEWEST)
    act({'rescue': {'adminPass': 'MySecretPass'}}, 'server-action-rescue-req.json',
        'RESCUE', expect=200, resp_name='server-action-rescue-resp.json')
    act({'unrescue': None}, 'server-action-unrescue-req.json', 'ACTIVE')
    act({'rescue': {'rescue_image_ref': image_id,
                    'image_props_override': {'hw_rescue_bus': 'usb',
                                             'hw_rescue_device': 'disk'}}},
        'v2.106/server-action-rescue-req.json', 'RESCUE', version='2.106', expect=200,
        resp_name='v2.106/server-action-rescue-resp.json')
    act({'unrescue': None}, 'v2.106/server-action-unrescue-req.json', 'ACTIVE',
        version='2.106')
    act({'resize': {'flavorRef': '2'}}, 'server-action-resize-req.json', 'VERIFY_RESIZE')
    act({'revertResize': None}, 'server-action-revert-resize-req.json', 'ACTIVE')
    act({'resize': {'flavorRef': '2'}}, 'server-action-resize-req.json', 'VERIFY_RESIZE')
    act({'confirmResize': None}, 'server-action-confirm-resize-req.json', 'ACTIVE',
        expect=204)
    act({'shelve': None}, 'server-action-shelve-req.json', 'SHELVED_OFFLOADED')
    act({'unshelve': None}, 'server-action-unshelve-req.json', 'ACTIVE')
    act({'unshelve': {'availability_zone': 'nova'}}, 'v2.77/server-action-unshelve-req.json',
        'ACTIVE', version='2.77', expect=409)
    _delete(w, server_id)


def _metadata_tags_and_actions(w, image_id):
    """Server metadata, server tags (2.26) and the instance actions of one server."""
    server_id = _boot(w, image_id, 'meta-server', metadata={'foo': 'Foo Value'})
    path = '/servers/%s' % server_id
    meta, prefix = path + '/metadata', 'server-metadata/'
    w.call('GET', meta, 200, version='2.1', resp_name=prefix + 'server-metadata-all-resp.json')
    w.call('POST', meta, 200, {'metadata': {'bar': 'Bar Value'}}, version='2.1',
           req_name=prefix + 'server-metadata-create-req.json',
           resp_name=prefix + 'server-metadata-create-resp.json')
    w.call('PUT', meta, 200, {'metadata': {'foo': 'Foo Value', 'baz': 'Baz Value'}},
           version='2.1', req_name=prefix + 'server-metadata-update-all-req.json',
           resp_name=prefix + 'server-metadata-update-all-resp.json')
    w.call('GET', meta + '/foo', 200, version='2.1',
           resp_name=prefix + 'server-metadata-show-resp.json')
    w.call('PUT', meta + '/foo', 200, {'meta': {'foo': 'Bar Value'}}, version='2.1',
           req_name=prefix + 'server-metadata-update-req.json',
           resp_name=prefix + 'server-metadata-update-resp.json')
    w.call('DELETE', meta + '/foo', 204, version='2.1')

    tags, prefix = path + '/tags', 'server-tags/'
    w.call('PUT', tags, 200, {'tags': ['tag1', 'tag2']}, version='2.26',
           req_name=prefix + 'server-tags-put-all-req.json',
           resp_name=prefix + 'server-tags-put-all-resp.json')
    w.call('GET', tags, 200, version='2.26', resp_name=prefix + 'server-tags-index-resp.json')
    w.call('PUT', tags + '/tag3', 201, version='2.26')
    w.call('GET', tags + '/tag3', 204, version='2.26')
    w.call('DELETE', tags + '/tag3', 204, version='2.26')
    w.call('DELETE', tags, 204, version='2.26')

    action, prefix = path + '/action', 'os-instance-actions/'
    w.call('POST', action, 202, {'os-stop': None}, version='2.1')
    _wait_idle(w, path, 'SHUTOFF')
    w.call('POST', action, 202, {'os-start': None}, version='2.1')
    _wait_idle(w, path, 'ACTIVE')
    actions = path + '/os-instance-actions'
    for version, sub in (('2.1', ''), ('2.58', 'v2.58/')):
        w.call('GET', actions, 200, version=version,
               resp_name=prefix + sub + 'instance-actions-list-resp.json')
    listed = w.call('GET', actions, 200, version='2.1')['instanceActions']
    stop = next(a for a in listed if a['action'] == 'stop')
    for version, sub in (('2.1', ''), ('2.84', 'v2.84/')):
        w.call('GET', '%s/%s' % (actions, stop['request_id']), 200, version=version,
               resp_name=prefix + sub + 'instance-action-get-resp.json')
    _delete(w, server_id)


def _create_volume(w, name):
    """A 1 GiB volume in the all-in-one's Cinder v3 endpoint, once available."""
    url = w.aio.aio.urls['volume']
    path = '/v3/admin/volumes'
    status, _headers, body = w.aio.request('POST', path, {'volume': {'size': 1, 'name': name}},
                                           token=ADMIN, url=url)
    if status != 202:
        raise SystemExit('volume create answered %s: %s' % (status, body))
    volume_id = body['volume']['id']
    deadline = time.monotonic() + 60
    while body['volume']['status'] != 'available':
        if time.monotonic() > deadline or body['volume']['status'] == 'error':
            raise SystemExit('volume %s is %s' % (volume_id, body['volume']['status']))
        time.sleep(0.05)
        _status, _headers, body = w.aio.request('GET', '%s/%s' % (path, volume_id),
                                                token=ADMIN, url=url)
    return volume_id


def _volumes(w, image_id, rescue_image_id):
    """Boot from volume, volume attachments, and rescue of a volume-backed server."""
    data = _create_volume(w, 'data')
    first = _create_volume(w, 'attach-2.1')
    second = _create_volume(w, 'attach-2.101')

    # test:///default cannot hot-plug: the compute host's part of an attach
    # or detach fails after the API has answered. Wait for it either way, so
    # that nothing below depends on timing.
    server_id = _boot(w, image_id, 'attach-server')
    attachments = '/servers/%s/os-volume_attachments' % server_id
    prefix = 'os-volume_attachments/'
    w.call('POST', attachments, 200, {'volumeAttachment': {'volumeId': first}}, version='2.1',
           req_name=prefix + 'attach-volume-to-server-req.json',
           resp_name=prefix + 'attach-volume-to-server-resp.json')
    _wait_action(w, server_id, 'attach_volume')
    _delete(w, server_id)

    create = {'server': {
        'name': 'bfv-server', 'flavorRef': '1', 'networks': 'none',
        'block_device_mapping_v2': [
            {'boot_index': 0, 'uuid': image_id, 'source_type': 'image',
             'destination_type': 'volume', 'volume_size': 1,
             'delete_on_termination': True},
            {'boot_index': -1, 'uuid': data, 'source_type': 'volume',
             'destination_type': 'volume', 'tag': 'data'}]}}
    resp = w.call('POST', '/servers', 202, create, version=NEWEST,
                  req_name='servers/v%s/server-create-bfv-req.json' % NEWEST)
    server_id = resp['server']['id']
    path = '/servers/%s' % server_id
    _wait_idle(w, path, 'ACTIVE')
    w.call('GET', path, 200, version=NEWEST,
           resp_name='servers/v%s/server-get-bfv-resp.json' % NEWEST)

    attachments = path + '/os-volume_attachments'
    for version, sub in (('2.1', ''), ('2.89', 'v2.89/')):
        w.call('GET', attachments, 200, version=version,
               resp_name=prefix + sub + 'list-volume-attachments-resp.json')
        w.call('GET', '%s/%s' % (attachments, data), 200, version=version,
               resp_name=prefix + sub + 'volume-attachment-detail-resp.json')
    w.call('POST', attachments, 202,
           {'volumeAttachment': {'volumeId': second, 'tag': 'scratch',
                                 'delete_on_termination': True}}, version='2.101',
           req_name=prefix + 'v2.101/attach-volume-to-server-req.json',
           resp_name=prefix + 'v2.101/attach-volume-to-server-resp.json')
    _wait_action(w, server_id, 'attach_volume')
    w.call('PUT', '%s/%s' % (attachments, data), 202,
           {'volumeAttachment': {'volumeId': data, 'delete_on_termination': True}},
           version='2.85', req_name=prefix + 'v2.85/update-volume-attachment-req.json')
    w.call('DELETE', '%s/%s' % (attachments, data), 202, version='2.1')
    _wait_action(w, server_id, 'detach_volume')

    action, prefix = path + '/action', 'server-actions/'
    w.call('POST', action, 200, {'rescue': {'rescue_image_ref': rescue_image_id}},
           version='2.87', req_name=prefix + 'v2.87/server-action-rescue-req.json',
           resp_name=prefix + 'v2.87/server-action-rescue-resp.json')
    _wait_idle(w, path, 'RESCUE')
    w.call('POST', action, 202, {'unrescue': None}, version='2.87')
    _wait_idle(w, path, 'ACTIVE')
    _delete(w, server_id)


def _server_groups(w, image_id):
    """os-server-groups at 2.1 and 2.64, and a server booted into a group."""
    prefix = 'os-server-groups/'
    body = {'server_group': {'name': 'test', 'policies': ['anti-affinity']}}
    group = w.call('POST', '/os-server-groups', 200, body, version='2.1',
                   req_name=prefix + 'server-groups-post-req.json',
                   resp_name=prefix + 'server-groups-post-resp.json')['server_group']
    w.call('GET', '/os-server-groups', 200, version='2.1',
           resp_name=prefix + 'server-groups-list-resp.json')
    w.call('GET', '/os-server-groups/' + group['id'], 200, version='2.1',
           resp_name=prefix + 'server-groups-get-resp.json')
    w.call('DELETE', '/os-server-groups/' + group['id'], 204, version='2.1')
    body = {'server_group': {'name': 'test', 'policy': 'anti-affinity',
                             'rules': {'max_server_per_host': 3}}}
    group = w.call('POST', '/os-server-groups', 200, body, version='2.64',
                   req_name=prefix + 'v2.64/server-groups-post-req.json',
                   resp_name=prefix + 'v2.64/server-groups-post-resp.json')['server_group']
    create = {'server': {'name': 'grouped', 'imageRef': image_id, 'flavorRef': '1',
                         'networks': 'none'},
              'os:scheduler_hints': {'group': group['id']}}
    resp = w.call('POST', '/servers', 202, create, version=NEWEST,
                  req_name='servers/v%s/server-create-group-req.json' % NEWEST)
    server_id = resp['server']['id']
    _wait_idle(w, '/servers/%s' % server_id, 'ACTIVE')
    w.call('GET', '/os-server-groups', 200, version='2.64',
           resp_name=prefix + 'v2.64/server-groups-list-resp.json')
    w.call('GET', '/os-server-groups/' + group['id'], 200, version='2.64',
           resp_name=prefix + 'v2.64/server-groups-get-resp.json')
    _delete(w, server_id)
    w.call('DELETE', '/os-server-groups/' + group['id'], 204, version='2.64')


def _steady_counters(value):
    """Counters and uptime change on every run: fixed numbers keep the sample stable."""
    if isinstance(value, dict):
        return {k: (1000 + len(k) if isinstance(v, int) and not isinstance(v, bool)
                    and k not in ('id', 'maximum', 'memory', 'num_cpus', 'num_nics',
                                  'num_disks') else _steady_counters(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_steady_counters(v) for v in value]
    return value


def _admin_actions(w, image_id):
    """os-resetState, diagnostics and createBackup of one server."""
    server_id = _boot(w, image_id, 'admin-server')
    path = '/servers/%s' % server_id
    action, prefix = path + '/action', 'server-actions/'
    for state in ('error', 'active'):
        w.call('POST', action, 202, {'os-resetState': {'state': state}}, version='2.1',
               req_name=prefix + 'server-action-reset-state-%s-req.json' % state)
    for version, sub in (('2.1', ''), ('2.48', 'v2.48/')):
        resp = w.call('GET', path + '/diagnostics', 200, version=version)
        w._add('os-server-diagnostics/%sserver-diagnostics-get-resp.json' % sub,
               _steady_counters(resp))
    body = {'createBackup': {'name': 'Backup 1', 'backup_type': 'daily', 'rotation': 1}}
    w.call('POST', action, 202, body, version='2.1',
           req_name=prefix + 'server-action-create-backup-req.json')
    _wait_idle(w, path, 'ACTIVE')
    w.call('POST', action, 202, body, version='2.45',
           req_name=prefix + 'v2.45/server-action-create-backup-req.json',
           resp_name=prefix + 'v2.45/server-action-create-backup-resp.json')
    _wait_idle(w, path, 'ACTIVE')
    w.call('POST', action, 202, {'forceDelete': None}, version='2.1',
           req_name=prefix + 'server-action-force-delete-req.json')
    _wait(w, path, None)


_USAGE_VOLATILE = {'hours': 1.0, 'uptime': 3600, 'total_hours': 1.0,
                   'started_at': '2026-01-01T10:00:04.000000',
                   'total_local_gb_usage': 1.0, 'total_vcpus_usage': 1.0,
                   'total_memory_mb_usage': 512.0}


def _steady_usage(value):
    """Usage depends on when the sample runs: fixed values keep it stable."""
    if isinstance(value, dict):
        return {k: _USAGE_VOLATILE.get(k, _steady_usage(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_steady_usage(v) for v in value]
    return value


def _events_and_usage(w, image_id):
    """External events, migrations, simple tenant usage and the audit log."""
    server_id = _boot(w, image_id, 'usage-server')
    events = {'events': [{'name': 'network-changed', 'server_uuid': server_id},
                         {'name': 'network-vif-plugged', 'server_uuid': server_id,
                          'tag': 'foo', 'status': 'completed'}]}
    prefix = 'os-server-external-events/'
    w.call('POST', '/os-server-external-events', 200, events, version='2.1',
           req_name=prefix + 'event-create-req.json', resp_name=prefix + 'event-create-resp.json')
    w.call('GET', '/os-migrations', 200, version='2.1',
           resp_name='os-migrations/migrations-get.json')
    w.call('GET', '/os-migrations?limit=2', 200, version='2.80',
           resp_name='os-migrations/v2.80/migrations-get-with-limit.json')
    query = '?start=2026-01-01T00:00:00&end=2099-01-01T00:00:00'
    prefix = 'os-simple-tenant-usage/'
    for path, name in (('/os-simple-tenant-usage' + query + '&detailed=1',
                        'simple-tenant-usage-get-detail.json'),
                       ('/os-simple-tenant-usage/admin' + query,
                        'simple-tenant-usage-get-specific.json')):
        resp = w.call('GET', path, 200, version='2.1')
        # Only this server: the ones the samples above deleted end at run time.
        for usage in resp.get('tenant_usages', []) + [resp.get('tenant_usage', {})]:
            if 'server_usages' in usage:
                usage['server_usages'] = [u for u in usage['server_usages']
                                          if u['instance_id'] == server_id]
        w._add(prefix + name, _steady_usage(resp))
    resp = w.call('GET', '/os-instance_usage_audit_log/2026-03-15%2010:00:00', 200,
                  version='2.1')
    w._add('os-instance-usage-audit-log/inst-usage-audit-log-show-get-resp.json', resp)
    _delete(w, server_id)


def _proxies(w, image_id):
    """The image and volume proxies (up to 2.35), and /extensions."""
    prefix = 'images/'
    glance_root = w.aio.image_url.rstrip('/')

    def steady(body):
        # The image endpoint's port changes on every run.
        text = json.dumps(body).replace(glance_root, 'http://glance.openstack.example.com')
        return json.loads(text)
    w._add(prefix + 'image-get-resp.json',
           steady(w.call('GET', '/images/' + image_id, 200, version='2.1')))
    w._add(prefix + 'images-list-get-resp.json',
           steady(w.call('GET', '/images?name=cirros', 200, version='2.1')))
    meta = '/images/%s/metadata' % image_id
    w.call('POST', meta, 200, {'metadata': {'architecture': 'x86_64', 'Label': 'UpdatedImage'}},
           version='2.1', req_name=prefix + 'image-metadata-post-req.json',
           resp_name=prefix + 'image-metadata-post-resp.json')
    w.call('GET', meta + '/Label', 200, version='2.1',
           resp_name=prefix + 'image-meta-key-get.json')
    w.call('DELETE', meta + '/Label', 204, version='2.1')
    w.call('DELETE', meta + '/architecture', 204, version='2.1')
    volume_id = _create_volume(w, 'proxied')
    prefix = 'os-volumes/'
    w.call('GET', '/os-volumes/' + volume_id, 200, version='2.1',
           resp_name=prefix + 'os-volumes-get-resp.json')
    snap = w.call('POST', '/os-snapshots', 200, {'snapshot': {
        'volume_id': volume_id, 'display_name': 'snap-001',
        'display_description': 'Daily backup', 'force': False}}, version='2.1',
        req_name=prefix + 'snapshot-create-req.json')['snapshot']
    w.call('DELETE', '/os-snapshots/' + snap['id'], 202, version='2.1')
    w.call('GET', '/extensions/os-consoles', 200, version='2.1',
           resp_name='extensions/extensions-get-resp.json')


def _consoles(w, image_id):
    """Serial console URLs (test:///default has no VNC port), tokens, passwords."""
    server_id = _boot(w, image_id, 'console-server')
    proxy_root = w.aio.conf.serial_console.base_url.rstrip('/')

    def steady(body):
        # The proxy's port changes on every run; the guest's port may too.
        text = json.dumps(body).replace(proxy_root, 'ws://127.0.0.1:6083')
        body = json.loads(text)
        if 'port' in body.get('console', {}):
            body['console']['port'] = 10000
        return body
    prefix = 'os-remote-consoles/'
    body = {'remote_console': {'protocol': 'serial', 'type': 'serial'}}
    w._add(prefix + 'v2.6/create-serial-console-req.json', body)
    resp = steady(w.call('POST', '/servers/%s/remote-consoles' % server_id, 200, body,
                         version='2.6'))
    w._add(prefix + 'v2.6/create-serial-console-resp.json', resp)
    body = {'os-getSerialConsole': {'type': 'serial'}}
    w._add(prefix + 'get-serial-console-post-req.json', body)
    w._add(prefix + 'get-serial-console-post-resp.json', steady(
        w.call('POST', '/servers/%s/action' % server_id, 200, body, version='2.1')))
    token = resp['remote_console']['url'].rsplit('token=', 1)[1]
    w._add('os-console-auth-tokens/v2.31/get-console-connect-info-get-resp.json', steady(
        w.call('GET', '/os-console-auth-tokens/' + token, 200, version='2.31')))
    w.call('POST', '/servers/%s/action' % server_id, 409,
           {'changePassword': {'adminPass': 'foo'}}, version='2.1',
           req_name='server-actions/server-action-change-password-req.json')
    w.call('GET', '/servers/%s/os-server-password' % server_id, 200, version='2.1',
           resp_name='os-server-password/get-password-resp.json')
    w.call('DELETE', '/servers/%s/os-server-password' % server_id, 204, version='2.1')
    _delete(w, server_id)


def _assisted_volume_snapshots(w, image_id):
    """os-assisted-volume-snapshots on a volume attached at boot (test:///default)."""
    volume_id = _create_volume(w, 'avs')
    server_id = _boot(w, image_id, 'avs-server', block_device_mapping_v2=[
        {'boot_index': 0, 'uuid': image_id, 'source_type': 'image',
         'destination_type': 'local'},
        {'uuid': volume_id, 'source_type': 'volume', 'destination_type': 'volume'}])
    prefix = 'os-assisted-volume-snapshots/'
    snapshot_id = str(uuid.uuid4())
    w.call('POST', '/os-assisted-volume-snapshots', 200, {'snapshot': {
        'volume_id': volume_id, 'create_info': {
            'snapshot_id': snapshot_id, 'type': 'qcow2', 'new_file': 'new_file_name',
            'id': snapshot_id}}}, version='2.1',
        req_name=prefix + 'snapshot-create-assisted-req.json',
        resp_name=prefix + 'snapshot-create-assisted-resp.json')
    query = urllib.parse.urlencode({'delete_info': json.dumps(
        {'volume_id': volume_id, 'type': 'qcow2', 'file_to_merge': None,
         'merge_target_file': None})})
    w.call('DELETE', '/os-assisted-volume-snapshots/%s?%s' % (snapshot_id, query), 204,
           version='2.1')
    _delete(w, server_id)


def generate():
    """Run every documented request; return {relative path: file text}."""
    from nova.tests.functional import fixtures
    with tempfile.TemporaryDirectory(prefix='nova-samples-') as tmp:
        # The service's own defaults where the test fixture changes them for
        # tests that share a libvirtd; test:///default is private to us.
        aio = fixtures.RunningAio(tmp, extra={
            ('DEFAULT', 'instance_name_template'): 'instance-%08x',
            ('DEFAULT', 'host'): 'compute-1',
            ('quota', 'instances'): 10, ('quota', 'cores'): 20, ('quota', 'ram'): 51200,
            ('serial_console', 'enabled'): True,
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
            rescue_image_id = aio.upload_image(disk, name='rescue', os_distro='cirros',
                                               hw_rescue_bus='usb', hw_rescue_device='disk')
            _server_actions(writer, image_id)
            _metadata_tags_and_actions(writer, image_id)
            _volumes(writer, image_id, rescue_image_id)
            _server_groups(writer, image_id)
            _admin_actions(writer, image_id)
            _events_and_usage(writer, image_id)
            _proxies(writer, image_id)
            _quotas_and_limits(writer, image_id)
            # Later additions go last: sample UUIDs are numbered in order of use.
            _keypairs(writer)
            _flavor_extras(writer)
            _services_hypervisors(writer)
            _aggregates_zones_hosts(writer)
            _consoles(writer, image_id)
            _assisted_volume_snapshots(writer, image_id)
            _topology(writer, image_id)
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


class _NoHotplugOnTestDriver(logging.Filter):
    """Drop the compute host's expected hot-plug failures from the output.

    libvirt's test:///default driver cannot attach or detach devices, so the
    volume attach and detach that the samples make fail on the compute host
    after the API has answered (the samples are the API's answers). Any other
    failure is still logged.
    """

    def filter(self, record):
        exc = record.exc_info[1] if record.exc_info else None
        return 'not supported by the connection driver' not in str(exc or '')


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
    if not args.verbose:
        logging.getLogger('nova.compute.manager_volumes').addFilter(_NoHotplugOnTestDriver())
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
