"""Flavor extra specs, flavor access, description updates and private flavors on boot."""

import pytest

from nova.tests.functional.api import tempest_schemas as ts
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'


@pytest.fixture(scope='module')
def private(aio):
    status, _h, body = aio.request('POST', '/flavors', {'flavor': {
        'name': 'private', 'id': 'priv', 'ram': 1, 'vcpus': 1, 'disk': 0, 'swap': 1,
        'OS-FLV-EXT-DATA:ephemeral': 0, 'rxtx_factor': 2.0,
        'os-flavor-access:is_public': False}}, token=ADMIN, version='2.1')
    ts.validate('flavors', 'create_update_get_flavor_details', '2.1', status, body)
    assert body['flavor']['os-flavor-access:is_public'] is False
    return body['flavor']['id']


def test_extra_specs_crud(aio, private):
    path = '/flavors/%s/os-extra_specs' % private
    status, _h, body = aio.request('POST', path, {'extra_specs': {
        'hw:numa_nodes': '1', 'key2': 'value2', 'num': 3}}, token=ADMIN)
    ts.validate('flavors_extra_specs', 'set_get_flavor_extra_specs', '2.1', status, body)
    assert body['extra_specs']['num'] == '3'
    status, _h, body = aio.request('GET', path, token=ADMIN)
    ts.validate('flavors_extra_specs', 'set_get_flavor_extra_specs', '2.1', status, body)
    assert body['extra_specs'] == {'hw:numa_nodes': '1', 'key2': 'value2', 'num': '3'}
    status, _h, body = aio.request('PUT', path + '/key2', {'key2': 'new'}, token=ADMIN)
    ts.validate('flavors_extra_specs', 'set_get_flavor_extra_specs_key', '2.1', status, body)
    status, _h, body = aio.request('GET', path + '/key2', token=ADMIN)
    assert (status, body) == (200, {'key2': 'new'})
    status, _h, body = aio.request('DELETE', path + '/key2', token=ADMIN)
    ts.validate('flavors_extra_specs', 'unset_flavor_extra_specs', '2.1', status, body)
    assert aio.request('GET', path + '/key2', token=ADMIN)[0] == 404
    assert aio.request('DELETE', path + '/key2', token=ADMIN)[0] == 404
    # 2.61: extra_specs in the flavor body.
    status, _h, body = aio.request('GET', '/flavors/' + private, token=ADMIN, version='2.61')
    ts.validate('flavors', 'create_update_get_flavor_details', '2.61', status, body)
    assert body['flavor']['extra_specs'] == {'hw:numa_nodes': '1', 'num': '3'}


@pytest.mark.parametrize('method,suffix,body,token,code', [
    ('PUT', '/key1', {'key1': 'a', 'key2': 'b'}, ADMIN, 400),   # more than one key
    ('PUT', '/key1', {'key2': 'b'}, ADMIN, 400),                # body and URI mismatch
    ('PUT', '/key1', {'key1': 'a'}, 'demo:demo', 403),
    ('POST', '', {'extra_specs': {'a': 'b'}}, 'demo:demo', 403),
    ('POST', '', {'extra_specs': {'bad/key': 'b'}}, ADMIN, 400),
    ('POST', '', {'extra_specs': {'a': ''}}, ADMIN, 400),
    ('DELETE', '/key1', None, 'demo:demo', 403),
    ('GET', '/nokey', None, ADMIN, 404),
])
def test_extra_specs_refusals(aio, nano, method, suffix, body, token, code):
    status, _h, resp = aio.request(method, '/flavors/%s/os-extra_specs%s' % (nano, suffix),
                                   body, token=token)
    assert status == code, resp
    assert aio.request('GET', '/flavors/%s/os-extra_specs' % nano,
                       token=ADMIN)[2]['extra_specs'] == {}


def test_extra_specs_validated_from_2_86(aio, nano):
    path = '/flavors/%s/os-extra_specs' % nano
    bad = {'extra_specs': {'hw:cpu_policy': 'exclusive'}}
    status, _h, body = aio.request('POST', path, bad, token=ADMIN, version='2.86')
    assert status == 400 and "hw:cpu_policy" in body['badRequest']['message']
    unknown = {'extra_specs': {'hw:bogus': '1'}}
    assert aio.request('POST', path, unknown, token=ADMIN, version='2.86')[0] == 400
    assert aio.request('GET', path, token=ADMIN)[2]['extra_specs'] == {}
    # Before 2.86 anything goes; unknown namespaces always do.
    assert aio.request('POST', path, bad, token=ADMIN, version='2.85')[0] == 200
    assert aio.request('POST', path, {'extra_specs': {'vendor:x': 'y'}}, token=ADMIN,
                       version='2.86')[0] == 200
    assert aio.request('DELETE', path + '/hw:cpu_policy', token=ADMIN)[0] == 200
    assert aio.request('DELETE', path + '/vendor:x', token=ADMIN)[0] == 200


def test_flavor_access_and_private_boot(aio, image, private):
    def access(body, version='2.7', token=ADMIN):
        return aio.request('POST', '/flavors/%s/action' % private, body, token=token,
                           version=version)

    # demo cannot see or boot the private flavor until its project is granted it.
    assert aio.request('GET', '/flavors/' + private)[0] == 404
    assert private not in [f['id'] for f in aio.request('GET', '/flavors')[2]['flavors']]
    status, _h, body = aio.request('POST', '/servers', server_body(image, private, 'p'),
                                   version='2.37')
    assert status == 400 and body['badRequest']['message'] == \
        'Flavor %s could not be found.' % private
    status, _h, body = access({'addTenantAccess': {'tenant': 'demo'}})
    ts.validate('flavors_access', 'add_remove_list_flavor_access', '2.7', status, body)
    assert body['flavor_access'] == [{'flavor_id': private, 'tenant_id': 'demo'}]
    status, _h, body = access({'addTenantAccess': {'tenant': 'demo'}})
    assert status == 409 and 'already exists' in body['conflictingRequest']['message']
    assert access({'addTenantAccess': {'tenant': 'x'}}, token='demo:demo')[0] == 403
    assert access({'addTenantAccess': {}})[0] == 400
    status, _h, body = aio.request('GET', '/flavors/%s/os-flavor-access' % private,
                                   token=ADMIN)
    ts.validate('flavors_access', 'add_remove_list_flavor_access', '2.1', status, body)
    assert private in [f['id'] for f in aio.request('GET', '/flavors')[2]['flavors']]
    assert aio.request('GET', '/flavors/' + private)[0] == 200
    status, _h, body = aio.request('POST', '/servers', server_body(image, private, 'p'),
                                   version='2.37')
    assert status == 202, body
    aio.wait_for_status(body['server']['id'], ['ACTIVE'])
    aio.request('DELETE', '/servers/' + body['server']['id'])
    status, _h, body = access({'removeTenantAccess': {'tenant': 'demo'}})
    assert (status, body) == (200, {'flavor_access': []})
    assert access({'removeTenantAccess': {'tenant': 'demo'}})[0] == 404
    assert access({'bogus': {}})[0] == 400


def test_public_flavor_access(aio, nano):
    assert aio.request('GET', '/flavors/%s/os-flavor-access' % nano, token=ADMIN)[0] == 404
    body = {'addTenantAccess': {'tenant': 'demo'}}
    status, _h, resp = aio.request('POST', '/flavors/%s/action' % nano, body, token=ADMIN,
                                   version='2.7')
    assert status == 409 and resp['conflictingRequest']['message'] == \
        'Can not add access to a public flavor.'
    assert aio.request('POST', '/flavors/nope/action', body, token=ADMIN)[0] == 404


def test_description_update_from_2_55(aio, private):
    body = {'flavor': {'description': 'small and private'}}
    status, _h, resp = aio.request('PUT', '/flavors/' + private, body, token=ADMIN,
                                   version='2.55')
    ts.validate('flavors', 'create_update_get_flavor_details', '2.55', status, resp)
    assert resp['flavor']['description'] == 'small and private'
    assert aio.request('PUT', '/flavors/' + private, body, version='2.55')[0] == 403
    assert aio.request('PUT', '/flavors/' + private, {'flavor': {'name': 'x'}},
                       token=ADMIN, version='2.55')[0] == 400
    assert aio.request('PUT', '/flavors/nope', body, token=ADMIN, version='2.55')[0] == 404
    assert aio.request('PUT', '/flavors/' + private, body, token=ADMIN,
                       version='2.54')[0] in (404, 405)
