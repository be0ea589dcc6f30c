"""Real responses validated against tempest.lib's schema for every microversion."""

import copy

import pytest

from nova.api import microversion as mv
from nova.tests.functional.api import tempest_schemas as ts
from nova.tests.functional.api.conftest import server_body

# Every upstream version; tempest's newest schemas (2.100) cover 2.101-2.104,
# which changed no server or flavor body upstream.
UPSTREAM_MAX = (2, 104)
VERSIONS = ['2.%d' % n for n in range(1, UPSTREAM_MAX[1] + 1)]
# This project's own versions: upstream's newest schema plus what each one added.
OWN_VERSIONS = ['2.%d' % n for n in range(UPSTREAM_MAX[1] + 1, mv.MAX[1] + 1)]


@pytest.fixture(scope='module')
def active(aio, image, nano):
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='active'),
                                   version='2.37')
    assert status == 202, body
    return aio.wait_for_status(body['server']['id'], ['ACTIVE'])


@pytest.fixture(scope='module')
def errored(aio, image):
    """A server the scheduler cannot place, so it ends in ERROR with a fault."""
    status, _h, body = aio.request('POST', '/flavors', {'flavor': {
        'name': 'huge', 'id': 'huge', 'ram': 10 ** 9, 'vcpus': 1, 'disk': 0}},
        token='admin:admin')
    assert status == 200, body
    status, _h, body = aio.request('POST', '/servers', server_body(image, 'huge', 'err'),
                                   version='2.37')
    assert status == 202, body
    return aio.wait_for_status(body['server']['id'], ['ERROR'])


@pytest.mark.parametrize('version', VERSIONS)
def test_server_responses(aio, image, active, errored, version):
    def check(name, status, body):
        ts.validate('servers', name, version, status, body)

    status, _h, body = aio.request('POST', '/servers',
                                   server_body(image, name='v' + version, version=version),
                                   version=version)
    check('create_server_with_admin_pass', status, body)
    new_id = body['server']['id']

    for server_id in (active['id'], errored['id'], new_id):
        for token in ('demo:demo', 'admin:admin'):
            check('get_server', *aio.request('GET', '/servers/' + server_id,
                                             version=version, token=token)[::2])
    check('list_servers', *aio.request('GET', '/servers', version=version)[::2])
    status, _h, body = aio.request('GET', '/servers/detail', version=version)
    check('list_servers_detail', status, body)
    assert {active['id'], errored['id'], new_id} <= {s['id'] for s in body['servers']}
    status, _h, body = aio.request('GET', '/servers/detail?all_tenants=1', version=version,
                                   token='admin:admin')
    check('list_servers_detail', status, body)
    assert 'OS-EXT-SRV-ATTR:host' in body['servers'][0]

    for token in ('demo:demo', 'admin:admin'):
        status, _h, body = aio.request('PUT', '/servers/' + active['id'], version=version,
                                       token=token, body={'server': {'name': 'active'}})
        check('update_server', status, body)
        # From 2.75 update answers the same body as show.
        assert ('OS-EXT-STS:vm_state' in body['server']) == (mv.parse(version) >= (2, 75))

    status, _h, body = aio.request('DELETE', '/servers/' + new_id, version=version)
    check('delete_server', status, body)


@pytest.mark.parametrize('version', VERSIONS)
def test_flavor_responses(aio, nano, version):
    def check(name, path, token='demo:demo'):
        status, _h, body = aio.request('GET', path, version=version, token=token)
        ts.validate('flavors', name, version, status, body)
        return body

    check('list_flavors', '/flavors')
    check('list_flavors_details', '/flavors/detail')
    check('list_flavors_details', '/flavors/detail?is_public=None', token='admin:admin')
    check('create_update_get_flavor_details', '/flavors/1')
    check('create_update_get_flavor_details', '/flavors/' + nano, token='admin:admin')


@pytest.mark.parametrize('path', ['/v2.1', '/v2.1/'])
def test_version_document(aio, path):
    status, _h, body = aio.request('GET', path, url=aio.compute_url.rsplit('/v2.1', 1)[0])
    ts.validate('versions', 'get_one_version', '2.1', status, body)
    assert body['version']['version'] == mv.MAX_VERSION
    assert body['version']['min_version'] == '2.1'
    # The SDK follows the self link, so it must answer the same document.
    self_link = [link['href'] for link in body['version']['links'] if link['rel'] == 'self'][0]
    assert aio.request('GET', '', url=self_link)[2] == body


def test_versions_list(aio):
    status, _h, body = aio.request('GET', '/', url=aio.compute_url.rsplit('/v2.1', 1)[0])
    ts.validate('versions', 'list_versions', '2.1', status, body)
    # As upstream: the legacy v2.0 entry, deprecated, then the current v2.1.
    assert [(v['id'], v['status']) for v in body['versions']] == [
        ('v2.0', 'DEPRECATED'), ('v2.1', 'CURRENT')]
    status, _h, body = aio.request('GET', '/v2/', url=aio.compute_url.rsplit('/v2.1', 1)[0])
    assert status == 200 and body['version']['id'] == 'v2.0'
    assert body['version']['links'][0]['href'].endswith('/v2/')


@pytest.mark.parametrize('version', ['2.1', '2.47', '2.100'])
def test_error_server_fault(aio, errored, version):
    """The fault shows on ERROR servers; its traceback only to admins."""
    for token, sees_details in (('demo:demo', False), ('admin:admin', True)):
        status, _h, body = aio.request('GET', '/servers/' + errored['id'], version=version,
                                       token=token)
        ts.validate('servers', 'get_server', version, status, body)
        fault = body['server']['fault']
        assert body['server']['status'] == 'ERROR'
        assert fault['code'] == 500 and 'No valid host' in fault['message']
        assert ('details' in fault) == sees_details, fault
        assert 'progress' not in body['server']


@pytest.mark.parametrize('version', ['2.15', '2.16', '2.75', '2.100'])
def test_host_status_for_admins_from_2_16(aio, active, errored, version):
    shown = mv.parse(version) >= (2, 16)
    for token, query, expected in (
            ('admin:admin', '?all_tenants=1', {active['id']: 'UP', errored['id']: ''}),
            ('demo:demo', '', {})):
        body = aio.request('GET', '/servers/detail' + query, version=version,
                           token=token)[2]
        found = {s['id']: s['host_status'] for s in body['servers'] if 'host_status' in s}
        if shown and expected:
            assert {k: found.get(k) for k in expected} == expected
        else:
            assert found == {}
        server = aio.request('GET', '/servers/' + active['id'], version=version,
                             token=token)[2]['server']
        assert server.get('host_status') == (expected.get(active['id']) if shown else None)


@pytest.mark.parametrize('version', ['2.3', '2.97', '2.98'])
def test_image_backed_server_without_volumes(aio, image, active, version):
    server = aio.request('GET', '/servers/' + active['id'], version=version)[2]['server']
    assert server['os-extended-volumes:volumes_attached'] == []
    assert server['image']['id'] == image
    # 2.98 shows the image's properties as they were at boot.
    if mv.parse(version) >= (2, 98):
        assert server['image']['properties']['os_distro'] == 'cirros'
    else:
        assert 'properties' not in server['image']


def _with_props_override(schema, many=False):
    """Upstream's server schema plus 2.105's image_props_override (a string map)."""
    schema = copy.deepcopy(schema)
    body = schema['response_body']['properties']
    server = body['servers']['items'] if many else body['server']
    server['properties']['image_props_override'] = {
        'type': 'object', 'additionalProperties': {'type': 'string'}}
    server['required'].append('image_props_override')
    return schema


@pytest.mark.parametrize('version', OWN_VERSIONS)
def test_own_versions_extend_upstream(aio, active, version):
    newest = mv.as_string(UPSTREAM_MAX)
    for name, path, many in (('get_server', '/servers/' + active['id'], False),
                             ('list_servers_detail', '/servers/detail?all_tenants=1', True)):
        schema = _with_props_override(ts.find('servers', name, newest), many)
        status, _h, body = aio.request('GET', path, version=version, token='admin:admin')
        ts.validate_schema(schema, status, body)
        assert active['id'] in str(body)
    status, _h, body = aio.request('PUT', '/servers/' + active['id'], version=version,
                                   body={'server': {'name': 'active'}})
    ts.validate_schema(_with_props_override(ts.find('servers', 'update_server', newest)),
                       status, body)
