"""The metadata API app on real SQLite: paths, listings, 404s, proxy checks, password, cache."""

import base64
import json

import pytest
import webob

from nova import conf as nova_conf
from nova import wiring
from nova.api.metadata import requester
from nova.db import api as db_api
from nova.tests.unit.metadata import test_network_data as nd

SECRET = 's3cr3t'
KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI test@host'
EC2_VERSIONS = ('1.0\n2007-01-19\n2007-03-01\n2007-08-29\n2007-10-10\n2007-12-15\n'
                '2008-02-01\n2008-09-01\n2009-04-04\nlatest')


class CountingDB:
    """The real database, counting the instance reads a build makes."""

    def __init__(self, db):
        self.db = db
        self.reads = 0
        self.scans = 0

    def instance_get(self, *args, **kwargs):
        self.reads += 1
        return self.db.instance_get(*args, **kwargs)

    def instance_uuids_by_fixed_ip(self, *args, **kwargs):
        self.scans += 1
        return self.db.instance_uuids_by_fixed_ip(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.db, name)


def make_app(db, proxy=False, **api):
    conf = nova_conf.new_config()
    conf.set_override('service_metadata_proxy', proxy, group='neutron')
    conf.set_override('metadata_proxy_shared_secret', SECRET, group='neutron')
    for key, value in api.items():
        conf.set_override(key, value, group='api')
    counting = CountingDB(db)
    app = wiring.metadata_app(conf, counting)
    app.db = counting
    return app


def server(db, project='proj', network_info=nd.NETWORK_INFO, **values):
    row = dict(project_id=project, user_id='u1', vm_state='active', display_name='web',
               hostname='web-1', host='cmp1', availability_zone='az1',
               created_at=db_api._now(), network_info=network_info, key_name='mykey',
               key_data=json.dumps({'name': 'mykey', 'type': 'ssh', 'public_key': KEY}),
               user_data=base64.b64encode(b'#!/bin/sh\necho hi\n').decode(),
               flavor={'name': 'm1.small', 'flavorid': '2', 'vcpus': 1, 'memory_mb': 64,
                       'root_gb': 1, 'ephemeral_gb': 0, 'swap': 0, 'rxtx_factor': 1.0,
                       'is_public': True, 'disabled': False, 'extra_specs': {}})
    row.update(values)
    return db.instance_create(row)


def get(app, path, remote='10.77.0.41', method='GET', body=None, **headers):
    req = webob.Request.blank(path, method=method, remote_addr=remote, headers=headers)
    if body is not None:
        req.body = body
    resp = req.get_response(app)
    # Every answer names its charset (Neutron's agent answers 502 otherwise).
    assert resp.charset == 'UTF-8', (path, resp.headers)
    assert resp.headers['x-openstack-request-id'].startswith('req-')
    return resp


def signed(instance_id, project='proj', secret=SECRET, address='10.77.0.41'):
    # The header set Neutron's OVN metadata agent sends.
    return {'X-Instance-ID': instance_id, 'X-Tenant-ID': project,
            'X-Instance-ID-Signature': requester.sign(secret, instance_id),
            'X-Forwarded-For': address}


@pytest.fixture
def inst(db):
    return server(db)


def test_version_lists(db, inst):
    app = make_app(db)
    for path in ('/', '/foo/../', '//'):
        resp = get(app, path, remote='192.0.2.99')     # no instance needed for these
        assert resp.text == EC2_VERSIONS
        assert resp.content_type == 'text/plain'
    assert get(app, '/openstack').text == (
        '2012-08-10\n2013-04-04\n2013-10-17\n2015-10-15\n2016-06-30\n2016-10-06\n'
        '2017-02-22\n2018-08-27\n2020-10-14\nlatest')
    assert get(app, '/openstack/').text == get(app, '/openstack').text
    assert get(app, '/ec2').text == EC2_VERSIONS


def test_ec2_tree_and_listings(db, inst):
    app = make_app(db)
    assert get(app, '/latest').text == 'meta-data/\nuser-data'
    listing = get(app, '/latest/meta-data/').text
    assert listing == get(app, '/latest/meta-data').text
    assert listing.split('\n') == [
        'ami-id', 'ami-launch-index', 'ami-manifest-path', 'block-device-mapping/',
        'hostname', 'instance-action', 'instance-id', 'instance-type', 'local-hostname',
        'local-ipv4', 'placement/', 'public-hostname', 'public-ipv4', 'public-keys/',
        'reservation-id', 'security-groups']
    assert get(app, '/latest/meta-data/instance-id').text == 'i-%08x' % inst['id']
    assert get(app, '/latest/meta-data/hostname').text == 'web-1.novalocal'
    assert get(app, '/latest/meta-data/local-ipv4').text == '10.77.0.41'
    assert get(app, '/latest/meta-data/public-ipv4').text == '172.24.4.7'
    assert get(app, '/latest/meta-data/public-keys').text == '0=mykey'
    assert get(app, '/latest/meta-data/public-keys/0/').text == 'openssh-key'
    assert get(app, '/latest/meta-data/public-keys/0/openssh-key').text == KEY
    assert get(app, '/latest/meta-data/placement/').text == 'availability-zone'
    assert get(app, '/latest/meta-data/placement/availability-zone').text == 'az1'
    assert get(app, '/latest/meta-data/ami-launch-index').text == '0'
    assert get(app, '/2009-04-04/user-data').body == b'#!/bin/sh\necho hi\n'
    assert get(app, '/ec2/2009-04-04/meta-data/instance-type').text == 'm1.small'
    assert get(app, '/1.0/meta-data/').text.split('\n')[-1] == 'security-groups'
    for missing in ('/2099-01-01/meta-data', '/latest/meta-data/nope',
                    '/latest/meta-data/hostname/x', '/latest/meta-data/public-keys/0/_name',
                    '/latest/meta-data/public-keys/1', '/1.0/meta-data/placement',
                    '/latest/meta-data/kernel-id'):
        resp = get(app, missing)
        assert resp.status_int == 404, missing
        assert resp.content_type == 'text/plain'


def test_openstack_documents(db, inst):
    app = make_app(db)
    assert get(app, '/openstack/latest').text == (
        'meta_data.json\nuser_data\npassword\nvendor_data.json\nnetwork_data.json\n'
        'vendor_data2.json')
    assert get(app, '/openstack/2012-08-10/').text == 'meta_data.json\nuser_data'
    resp = get(app, '/openstack/latest/meta_data.json')
    assert resp.headers['Content-Type'] == 'application/json; charset=UTF-8'
    meta = resp.json
    assert len(base64.b64decode(meta.pop('random_seed'))) == 512
    assert meta == {'uuid': inst['uuid'], 'name': 'web', 'hostname': 'web-1.novalocal',
                    'launch_index': 0, 'availability_zone': 'az1', 'project_id': 'proj',
                    'meta': {}, 'public_keys': {'mykey': KEY},
                    'keys': [{'name': 'mykey', 'type': 'ssh', 'data': KEY}],
                    'devices': [], 'dedicated_cpus': []}
    assert get(app, '/openstack/latest/network_data.json').json == nd.NETWORK_DATA
    assert get(app, '/openstack/latest/vendor_data.json').json == {}
    assert get(app, '/openstack/latest/vendor_data2.json').json == {'static': {}}
    resp = get(app, '/openstack/latest/user_data')
    assert resp.body == b'#!/bin/sh\necho hi\n' and resp.content_type == 'text/plain'
    for missing in ('/openstack/2099-01-01', '/openstack/2099-01-01/meta_data.json',
                    '/openstack/latest/nope', '/openstack/latest/meta_data.json/x',
                    '/openstack/2015-10-15/vendor_data2.json', '/openstack/content',
                    '/openstack/content/0000', '/openstack/2012-08-10/password'):
        assert get(app, missing).status_int == 404, missing


def test_unknown_address_and_deleted_instances_are_404(db, inst):
    app = make_app(db)
    assert get(app, '/latest/meta-data/', remote='10.77.0.42').status_int == 404
    db.instance_destroy(inst['uuid'])
    assert get(app, '/latest/meta-data/').status_int == 404


def test_overlapping_addresses_are_never_served(db, inst):
    server(db, project='other')
    assert get(make_app(db), '/latest/meta-data/instance-id').status_int == 404


def test_forwarded_for_only_when_trusted(db, inst):
    assert get(make_app(db), '/latest/meta-data/instance-id', remote='192.0.2.1',
               **{'X-Forwarded-For': '10.77.0.41'}).status_int == 404
    app = make_app(db, use_forwarded_for=True)
    assert get(app, '/latest/meta-data/local-ipv4', remote='192.0.2.1',
               **{'X-Forwarded-For': '10.77.0.41, 192.0.2.1'}).text == '10.77.0.41'


def test_proxy_signed_requests(db, inst):
    app = make_app(db, proxy=True)
    resp = get(app, '/openstack/latest/meta_data.json', remote='127.0.0.1',
               **signed(inst['uuid']))
    assert resp.status_int == 200 and resp.json['uuid'] == inst['uuid']
    # The proxy names the instance; the caller's own address does not matter.
    assert get(app, '/latest/meta-data/local-ipv4', remote='192.0.2.7',
               **signed(inst['uuid'])).text == '10.77.0.41'


@pytest.mark.parametrize('drop', ['X-Instance-ID', 'X-Tenant-ID', 'X-Instance-ID-Signature'])
def test_proxy_missing_header_is_400(db, inst, drop):
    headers = signed(inst['uuid'])
    del headers[drop]
    resp = get(make_app(db, proxy=True), '/latest/meta-data/', **headers)
    assert resp.status_int == 400
    assert resp.text == '400 Bad Request\n\n%s header is missing from request.\n' % drop


def test_proxy_forged_or_repeated_headers(db, inst):
    app = make_app(db, proxy=True)
    for headers in (signed(inst['uuid'], secret='guess'),
                    dict(signed(inst['uuid']), **{'X-Instance-ID-Signature': ''}),
                    dict(signed(inst['uuid']), **{'X-Instance-ID-Signature': 'a' * 64}),
                    # A valid signature for another instance id.
                    dict(signed('other-id'), **{'X-Instance-ID': inst['uuid']})):
        resp = get(app, '/latest/meta-data/', **headers)
        assert resp.status_int == 403, headers
        assert 'Invalid proxy request signature.' in resp.text
    repeated = dict(signed(inst['uuid']), **{'X-Tenant-ID': 'proj, other'})
    assert get(app, '/latest/meta-data/', **repeated).status_int == 400


def test_proxy_never_serves_another_projects_instance(db, inst):
    app = make_app(db, proxy=True)
    resp = get(app, '/openstack/latest/meta_data.json', **signed(inst['uuid'], 'other'))
    assert resp.status_int == 404
    assert inst['uuid'] not in resp.text
    # Also when the instance's content is cached already.
    assert get(app, '/latest/meta-data/', **signed(inst['uuid'])).status_int == 200
    assert get(app, '/latest/meta-data/', **signed(inst['uuid'], 'other')).status_int == 404
    assert get(app, '/latest/meta-data/', **signed('no-such-instance')).status_int == 404


def test_provider_variant(db, inst):
    app = make_app(db, proxy=True)
    headers = {'X-Metadata-Provider': 'edge-1', 'X-Forwarded-For': '10.77.0.41',
               'X-Metadata-Provider-Signature': requester.sign(SECRET, 'edge-1')}
    # No lookup of provider ports here: a clear 400.
    assert get(app, '/latest/meta-data/', **headers).status_int == 400
    checks = requester.RequesterCheck(True, SECRET, provider_resolver=lambda p, a: (
        inst['uuid'], 'proj') if (p, a) == ('edge-1', '10.77.0.41') else None)
    unwrapped = app.app.application
    unwrapped.requesters = checks
    assert get(app, '/latest/meta-data/instance-id', **headers).text == 'i-%08x' % inst['id']
    forged = dict(headers, **{'X-Metadata-Provider-Signature': 'x'})
    assert get(app, '/latest/meta-data/', **forged).status_int == 403
    unknown = dict(headers, **{'X-Forwarded-For': '10.77.0.99'})
    assert get(app, '/latest/meta-data/', **unknown).status_int == 400
    no_address = {k: v for k, v in headers.items() if k != 'X-Forwarded-For'}
    assert get(app, '/latest/meta-data/', **no_address).status_int == 400


def test_password_post_once(db, inst):
    app = make_app(db, proxy=True)
    hdrs = signed(inst['uuid'])
    path = '/openstack/2013-04-04/password'
    assert get(app, path, **hdrs).body == b''
    assert get(app, path, method='POST', body=b'x' * 1021, **hdrs).status_int == 400
    assert get(app, path, method='POST', body=b'\xff\xfe', **hdrs).status_int == 400
    assert get(app, path, method='PUT', body=b'pw', **hdrs).status_int == 400
    encrypted = base64.b64encode(b'\x01' * 256)     # what a guest agent posts
    resp = get(app, path, method='POST', body=encrypted, **hdrs)
    assert resp.status_int == 200 and resp.body == b''
    # Read back at once (the cache is cleared), and never overwritten.
    assert get(app, '/openstack/latest/password', **hdrs).body == encrypted
    assert get(app, path, method='POST', body=b'other', **hdrs).status_int == 409
    assert db.instance_get(inst['uuid'])['system_metadata']['password_1'] == \
        encrypted[255:].decode()
    # The compute API reads it where upstream's os-server-password does.
    from nova.compute import api_password
    assert ''.join(db.instance_get(inst['uuid'])['system_metadata'][k]
                   for k in api_password.PASSWORD_KEYS) == encrypted.decode()


def test_only_the_password_is_posted(db, inst):
    app = make_app(db)
    assert get(app, '/openstack/latest/meta_data.json', method='POST',
               body=b'{}').status_int == 400
    assert get(app, '/latest/meta-data/', method='DELETE').status_int == 400
    assert get(app, '/latest/meta-data/', method='HEAD').status_int == 200


def test_one_build_per_instance_while_cached(db, inst):
    app = make_app(db, proxy=True)
    for path in ('/openstack', '/openstack/latest/meta_data.json',
                 '/openstack/latest/network_data.json', '/openstack/latest/user_data',
                 '/latest/meta-data/', '/latest/meta-data/public-keys/0/openssh-key',
                 '/openstack/latest/vendor_data.json'):
        assert get(app, path, **signed(inst['uuid'])).status_int == 200
    assert app.db.reads == 1
    uncached = make_app(db, proxy=True, metadata_cache_expiration=0)
    for _ in range(3):
        get(uncached, '/latest/meta-data/', **signed(inst['uuid']))
    assert uncached.db.reads == 3


def test_bad_paths_are_4xx(db, inst):
    app = make_app(db)
    environ = webob.Request.blank('/latest').environ
    environ['PATH_INFO'] = '/latest/\xff'  # the byte 0xff, as servers pass it
    resp = webob.Request(environ).get_response(app)
    assert resp.status_int == 400 and resp.charset == 'UTF-8'
    assert get(app, '/%2e%2e/%2e%2e/etc/passwd').status_int == 404


def test_address_lookups_are_kept_but_checked(db, inst):
    app = make_app(db)
    for _ in range(5):
        assert get(app, '/latest/meta-data/instance-id').text == 'i-%08x' % inst['id']
    assert (app.db.scans, app.db.reads) == (1, 1)
    # The address passes to another project's new instance: answered at once,
    # although the first instance's content is still cached.
    db.instance_destroy(inst['uuid'])
    newer = server(db, project='other')
    assert get(app, '/latest/meta-data/instance-id').text == 'i-%08x' % newer['id']
    assert app.db.scans == 2
    # A port that moves away ends the instance's claim on the address too.
    db.instance_update(newer['uuid'], {'network_info': []})
    assert get(app, '/latest/meta-data/instance-id').status_int == 404


def test_security_groups_from_the_network_service(db, inst):
    app = make_app(db)
    unwrapped = app.app.application
    unwrapped.source.security_groups = lambda uuid: ['default', 'web'] if uuid == inst['uuid'] \
        else []
    assert get(app, '/latest/meta-data/security-groups').text == 'default\nweb'
