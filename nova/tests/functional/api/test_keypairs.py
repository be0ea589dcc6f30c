"""os-keypairs through the real all-in-one, checked with tempest's schemas per microversion."""

import json
import os

import pytest

from nova import crypto
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional.api import tempest_schemas as ts
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'


def check(name, version, status, body):
    ts.validate('keypairs', name, version, status, body)


@pytest.mark.parametrize('version', ['2.1', '2.2', '2.10', '2.35', '2.91'])
def test_generate_list_show_delete(aio, version):
    name = 'gen-' + version.replace('.', '-')
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {'name': name}},
                                   version=version)
    check('create_keypair', version, status, body)
    created = body['keypair']
    assert created['private_key'] and created['user_id'] == 'demo'
    assert crypto.ssh_fingerprint(created['public_key']) == created['fingerprint']
    status, _h, body = aio.request('GET', '/os-keypairs', version=version)
    check('list_keypairs', version, status, body)
    assert name in [k['keypair']['name'] for k in body['keypairs']]
    status, _h, body = aio.request('GET', '/os-keypairs/' + name, version=version)
    check('get_keypair', version, status, body)
    assert body['keypair']['public_key'] == created['public_key']
    status, _h, body = aio.request('DELETE', '/os-keypairs/' + name, version=version)
    check('delete_keypair', version, status, body)
    assert aio.request('GET', '/os-keypairs/' + name, version=version)[0] == 404


def test_x509_generated_and_imported(aio):
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {
        'name': 'cert', 'type': 'x509'}}, version='2.2')
    check('create_keypair', '2.2', status, body)
    assert body['keypair']['type'] == 'x509'
    assert body['keypair']['public_key'].startswith('-----BEGIN CERTIFICATE-----')
    _priv, pem, fingerprint = crypto.generate_x509('demo')
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {
        'name': 'cert2', 'type': 'x509', 'public_key': pem}}, version='2.92')
    check('create_keypair', '2.92', status, body)
    assert body['keypair']['fingerprint'] == fingerprint and 'private_key' not in body['keypair']
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {
        'name': 'cert3', 'type': 'x509', 'public_key': 'junk'}}, version='2.2')
    assert status == 400 and 'Keypair data is invalid' in body['badRequest']['message']


@pytest.mark.parametrize('version,name,public_key,code', [
    ('2.1', '', None, 400),
    ('2.2', 'keypair-'.ljust(260, '0'), None, 400),
    ('2.2', r'key_/.\@:', None, 400),
    ('2.2', ' lead', None, 400),
    ('2.91', 'a@b.c', None, 400),
    ('2.92', 'a@b.c', None, 400),                      # 2.92: public_key required
    ('2.2', 'junk', 'ssh-rsa JUNK nova@ubuntu', 400),
    ('2.2', 'blank', ' ', 400),
    ('2.2', 'long', 'ssh-rsa ' + 'A' * 2048 + ' openstack@ubuntu', 400),
    ('2.2', 'badtype', None, 400),
])
def test_create_refusals(aio, version, name, public_key, code):
    keypair = {'name': name}
    if public_key is not None:
        keypair['public_key'] = public_key
    if name == 'badtype':
        keypair['type'] = 'rsa'
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': keypair},
                                   version=version)
    assert status == code, body
    assert 'badRequest' in body
    names = [k['keypair']['name'] for k in aio.request('GET', '/os-keypairs')[2]['keypairs']]
    assert name not in names


def test_name_rules_at_2_92_and_duplicates(aio):
    _p, public, _f = crypto.generate_ssh()
    body = {'keypair': {'name': 'me@host.example', 'public_key': public}}
    status, _h, created = aio.request('POST', '/os-keypairs', body, version='2.92')
    check('create_keypair', '2.92', status, created)
    status, _h, err = aio.request('POST', '/os-keypairs', body, version='2.92')
    assert status == 409
    assert err['conflictingRequest']['message'] == \
        "Key pair 'me@host.example' already exists."
    status, _h, err = aio.request('DELETE', '/os-keypairs/nope', version='2.2')
    assert status == 404 and err['itemNotFound']['message'] == \
        'Keypair nope not found for user demo'


def test_admin_manages_other_users_keys_from_2_10(aio):
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {
        'name': 'for-demo', 'user_id': 'demo'}}, version='2.10', token=ADMIN)
    check('create_keypair', '2.10', status, body)
    assert body['keypair']['user_id'] == 'demo'
    # The owner sees it as their own; the admin only with user_id.
    assert aio.request('GET', '/os-keypairs/for-demo', version='2.10')[0] == 200
    assert aio.request('GET', '/os-keypairs/for-demo', version='2.10', token=ADMIN)[0] == 404
    status, _h, body = aio.request('GET', '/os-keypairs/for-demo?user_id=demo',
                                   version='2.10', token=ADMIN)
    check('get_keypair', '2.10', status, body)
    status, _h, body = aio.request('GET', '/os-keypairs?user_id=demo', version='2.10',
                                   token=ADMIN)
    assert 'for-demo' in [k['keypair']['name'] for k in body['keypairs']]
    # A user cannot reach another user's keys, nor create keys for them.
    assert aio.request('GET', '/os-keypairs?user_id=admin', version='2.10')[0] == 403
    assert aio.request('POST', '/os-keypairs', {'keypair': {
        'name': 'x', 'user_id': 'admin'}}, version='2.10')[0] == 403
    # Before 2.10 user_id is not part of the body.
    assert aio.request('POST', '/os-keypairs', {'keypair': {
        'name': 'x', 'user_id': 'demo'}}, version='2.9', token=ADMIN)[0] == 400
    status, _h, _b = aio.request('DELETE', '/os-keypairs/for-demo?user_id=demo',
                                 version='2.10', token=ADMIN)
    assert status == 204


def test_pagination_from_2_35(aio):
    token = 'pager:pager'
    for name in ('p1', 'p2', 'p3'):
        assert aio.request('POST', '/os-keypairs', {'keypair': {'name': name}},
                           version='2.35', token=token)[0] == 201
    status, _h, body = aio.request('GET', '/os-keypairs?limit=2', version='2.35', token=token)
    assert [k['keypair']['name'] for k in body['keypairs']] == ['p1', 'p2']
    assert 'marker=p2' in body['keypairs_links'][0]['href']
    status, _h, body = aio.request('GET', '/os-keypairs?limit=2&marker=p2', version='2.35',
                                   token=token)
    assert [k['keypair']['name'] for k in body['keypairs']] == ['p3']
    assert 'keypairs_links' not in body
    assert aio.request('GET', '/os-keypairs?marker=zz', version='2.35', token=token)[0] == 400
    # Before 2.35 limit is ignored; from 2.75 unknown parameters are refused.
    status, _h, body = aio.request('GET', '/os-keypairs?limit=1', version='2.34', token=token)
    assert len(body['keypairs']) == 3
    assert aio.request('GET', '/os-keypairs?foo=1', version='2.75', token=token)[0] == 400


def test_server_boots_with_the_key_on_its_config_drive(aio, image, nano):
    _p, public, _f = crypto.generate_ssh()
    assert aio.request('POST', '/os-keypairs', {'keypair': {
        'name': 'bootkey', 'public_key': public}}, version='2.2')[0] == 201
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, name='keyed', key_name='nope'), version='2.37')
    assert status == 400 and body['badRequest']['message'] == 'Invalid key_name provided.'
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, name='keyed', key_name='bootkey', config_drive=True), version='2.37')
    assert status == 202, body
    server = aio.wait_for_status(body['server']['id'], ['ACTIVE'])
    assert server['key_name'] == 'bootkey'
    drive = os.path.join(aio.conf.instances_path, server['id'], 'disk.config')
    meta = json.loads(fx.read_iso_files(drive)['openstack/latest/meta_data.json'])
    assert meta['public_keys'] == {'bootkey': public}
    assert meta['keys'] == [{'name': 'bootkey', 'type': 'ssh', 'data': public}]
    # Rebuild (2.54) can change the key or drop it.
    status, _h, body = aio.request('POST', '/servers/%s/action' % server['id'], {
        'rebuild': {'imageRef': image, 'key_name': None}}, version='2.54')
    ts.validate('servers', 'rebuild_server_with_admin_pass', '2.54', status, body)
    assert body['server']['key_name'] is None
    assert aio.db.instance_get(server['id'])['key_data'] is None
    aio.wait_for_status(server['id'], ['ACTIVE'])
    status, _h, body = aio.request('POST', '/servers/%s/action' % server['id'], {
        'rebuild': {'imageRef': image, 'key_name': 'nope'}}, version='2.54')
    assert status == 400
    aio.request('DELETE', '/servers/' + server['id'])
