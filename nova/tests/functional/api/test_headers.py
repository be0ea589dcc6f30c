"""Microversion negotiation and the headers every compute response carries."""

import pytest

from nova.api import microversion as mv
from nova.tests.functional.api.conftest import server_body

MISSING = '00000000-0000-0000-0000-000000000000'

# (method, path, body, expected status): successes and errors alike.
REQUESTS = [
    ('GET', '/servers', None, 200),
    ('GET', '/flavors/detail', None, 200),
    ('GET', '/servers/' + MISSING, None, 404),
    ('POST', '/servers', {'server': {}}, 400),
    ('DELETE', '/flavors', None, 405),
]


def assert_version_headers(headers, version):
    assert headers['OpenStack-API-Version'] == 'compute ' + version
    assert headers['X-OpenStack-Nova-API-Version'] == version
    assert 'OpenStack-API-Version' in headers['Vary']
    assert headers['x-openstack-request-id'].startswith('req-')


@pytest.mark.parametrize('method,path,body,status', REQUESTS)
@pytest.mark.parametrize('requested,echoed', [
    (None, '2.1'), ('2.1', '2.1'), ('2.47', '2.47'), ('2.100', '2.100'),
    (mv.MAX_VERSION, mv.MAX_VERSION), ('latest', mv.MAX_VERSION)])
def test_version_echoed(aio, method, path, body, status, requested, echoed):
    got, headers, _b = aio.request(method, path, body, version=requested)
    assert got == status
    assert_version_headers(headers, echoed)


def test_legacy_header_alone(aio):
    status, headers, _b = aio.request('GET', '/servers',
                                      headers={'X-OpenStack-Nova-API-Version': '2.50'})
    assert status == 200
    assert_version_headers(headers, '2.50')


def test_standard_header_wins_over_legacy(aio):
    _s, headers, _b = aio.request('GET', '/servers', version='2.60',
                                  headers={'X-OpenStack-Nova-API-Version': '2.50'})
    assert_version_headers(headers, '2.60')


@pytest.mark.parametrize('requested', ['2', 'two.one', '2.1.1', '2.01', ' '.join(['2.', '1'])])
def test_malformed_version_is_400(aio, requested):
    status, headers, body = aio.request('GET', '/servers', version=requested)
    assert status == 400
    assert 'invalid format' in body['badRequest']['message']
    assert headers['x-openstack-request-id']


@pytest.mark.parametrize('requested', ['2.%d' % (mv.MAX[1] + 1), '3.0', '1.1'])
def test_unsupported_version_is_406(aio, requested):
    status, headers, body = aio.request('GET', '/servers', version=requested)
    assert status == 406
    assert 'not supported' in body['computeFault']['message']
    # An unsupported version is never claimed as the one that answered.
    assert requested not in headers.get('OpenStack-API-Version', '')
    assert 'Vary' in headers and headers['x-openstack-request-id']


def test_route_below_its_version_is_404(aio, image, nano):
    status, _h, body = aio.request('POST', '/servers', server_body(image), version='2.37')
    assert status == 202
    server_id = body['server']['id']
    status, headers, _b = aio.request('GET', '/servers/%s/tags' % server_id, version='2.25')
    assert status == 404
    assert_version_headers(headers, '2.25')
    assert aio.request('GET', '/servers/%s/tags' % server_id, version='2.26')[0] == 200
    aio.request('DELETE', '/servers/' + server_id)


@pytest.mark.parametrize('method,path,allow', [
    ('DELETE', '/flavors', 'GET, POST'),
    ('PATCH', '/servers/' + MISSING, 'DELETE, GET, PUT'),
    ('POST', '/servers/detail', 'GET'),
])
def test_wrong_method_is_405_with_allow(aio, method, path, allow):
    status, headers, body = aio.request(method, path, version='2.1')
    assert status == 405
    assert headers['Allow'] == allow
    assert body['badMethod']['code'] == 405
    assert_version_headers(headers, '2.1')


def test_empty_accept_header_on_post(aio, image, nano):
    """openstackclient sends server actions with an empty Accept header."""
    status, headers, body = aio.request('POST', '/servers', server_body(image),
                                        version='2.100', headers={'Accept': ''})
    assert status == 202, body
    assert_version_headers(headers, '2.100')
    assert aio.request('DELETE', '/servers/' + body['server']['id'],
                       headers={'Accept': ''})[0] == 204


def test_unversioned_root_has_request_id(aio):
    status, headers, _b = aio.request('GET', '/', url=aio.compute_url.rsplit('/v2.1', 1)[0])
    assert status == 200
    assert headers['x-openstack-request-id']
