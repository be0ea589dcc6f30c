"""Benchmark the metadata API in-process on SQLite: a booting guest's requests, lookup by IP."""

import argparse
import base64
import copy
import json
import statistics
import tempfile
import time

import webob

from nova import conf as nova_conf
from nova import objects, wiring
from nova.api.metadata import requester
from nova.db import api as db_api
from nova.tests.unit.metadata import test_network_data as nd

SECRET = 'bench'
# What cloud-init's OpenStack data source asks at boot, in order.
BOOT_PATHS = ('/openstack', '/openstack/latest/meta_data.json',
              '/openstack/latest/vendor_data.json', '/openstack/latest/vendor_data2.json',
              '/openstack/latest/network_data.json', '/openstack/latest/user_data',
              '/latest/meta-data/', '/latest/meta-data/instance-id',
              '/latest/meta-data/hostname', '/latest/meta-data/local-ipv4',
              '/latest/meta-data/public-keys/0/openssh-key', '/latest/user-data')


def _summary(values):
    ordered = sorted(values)
    return {'median_ms': round(statistics.median(values) * 1000, 3),
            'p95_ms': round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 3),
            'min_ms': round(ordered[0] * 1000, 3), 'n': len(values)}


def _instances(db, count):
    """``count`` instances, each with two ports (its own fixed IPs), in one transaction."""
    uuids = []
    with db.writer.begin() as conn:
        for index in range(count):
            info = copy.deepcopy(nd.NETWORK_INFO)
            info[0]['network']['subnets'][0]['ips'][0]['address'] = \
                '10.%d.%d.%d' % (index // 65536, index // 256 % 256, index % 256)
            values = dict(project_id='p', user_id='u', vm_state='active', hostname='h%d' % index,
                          display_name='vm%d' % index, host='cmp1', network_info=info,
                          user_data=base64.b64encode(b'#cloud-config\n').decode(),
                          key_name='k', key_data=json.dumps({
                              'name': 'k', 'type': 'ssh', 'public_key': 'ssh-ed25519 AAAA k'}),
                          created_at=db_api._now())
            uuids.append(db.instances_create(conn, [values])[0]['uuid'])
    return uuids


def _app(db, proxy, cache):
    conf = nova_conf.new_config()
    conf.set_override('service_metadata_proxy', proxy, group='neutron')
    conf.set_override('metadata_proxy_shared_secret', SECRET, group='neutron')
    conf.set_override('metadata_cache_expiration', cache, group='api')
    return wiring.metadata_app(conf, db)


def _get(app, path, headers, remote):
    req = webob.Request.blank(path, headers=headers, remote_addr=remote)
    resp = req.get_response(app)
    assert resp.status_int == 200, (path, resp.status)


def _boot_sequence(app, headers, remote):
    start = time.perf_counter()
    for path in BOOT_PATHS:
        _get(app, path, headers, remote)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--instances', type=int, default=1000)
    parser.add_argument('--rounds', type=int, default=50)
    args = parser.parse_args()
    objects.register_all()
    with tempfile.TemporaryDirectory() as tmp:
        db = db_api.Database('sqlite:///%s/nova.sqlite' % tmp)
        db.sync()
        uuids = _instances(db, args.instances)
        results = {'instances': args.instances, 'requests_per_boot': len(BOOT_PATHS)}
        for proxy, cache in ((True, 15), (True, 0), (False, 15), (False, 0)):
            app = _app(db, proxy, cache)
            times = []
            for round_ in range(args.rounds):
                index = round_ % len(uuids)
                uuid = uuids[index]
                headers = {'X-Instance-ID': uuid, 'X-Tenant-ID': 'p',
                           'X-Instance-ID-Signature': requester.sign(SECRET, uuid)} \
                    if proxy else {}
                remote = '10.%d.%d.%d' % (index // 65536, index // 256 % 256, index % 256)
                times.append(_boot_sequence(app, headers, remote))
            results['%s_cache%d_boot' % ('proxy' if proxy else 'address', cache)] = \
                _summary(times)
        lookups = []
        for round_ in range(args.rounds):
            start = time.perf_counter()
            assert db.instance_uuids_by_fixed_ip('10.0.%d.%d' % (round_ // 256, round_ % 256))
            lookups.append(time.perf_counter() - start)
        results['lookup_by_fixed_ip'] = _summary(lookups)
        db.dispose()
    print(json.dumps(results, indent=2))


if __name__ == '__main__':
    main()
