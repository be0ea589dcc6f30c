"""Input that used to answer 500: each is a 4xx now, with a message, and writes nothing."""

import json

import pytest

from nova.tests.functional.api import fuzz_support as fz
from nova.tests.functional.api.conftest import server_body


@pytest.fixture
def raw(aio):
    return fz.RawClient(aio.compute_url)


def _send(raw, method, path, body=None, version='2.37', token='demo:demo', **headers):
    headers = dict(headers, **{'X-Auth-Token': token, 'Content-Type': 'application/json',
                               'OpenStack-API-Version': 'compute %s' % version})
    status, payload = raw.send(method, path, body, headers)
    return status, json.loads(payload) if payload else None


def _message(body):
    return next(iter(body.values()))['message']


@pytest.mark.parametrize('path', ['/servers/%ff%fe', '/servers?name=%ff', '/flavors/%c3%28',
                                  '/servers/%ed%a0%80'])
def test_paths_and_queries_that_are_not_utf8_are_400(raw, path):
    status, body = _send(raw, 'GET', path)
    assert status == 400 and 'UTF-8' in _message(body)


@pytest.mark.parametrize('version', ['2.' + '9' * 5000, '9' * 40 + '.1'])
def test_overlong_microversion_is_400(raw, version):
    status, body = _send(raw, 'GET', '/servers', version=version)
    assert status == 400 and 'invalid format' in _message(body)


def test_body_over_the_limit_is_413_and_writes_nothing(aio, raw, image):
    before = aio.db.instance_count()
    body = server_body(image, name='big')
    body['server']['metadata'] = {'k%d' % i: 'v' * 200 for i in range(600)}
    status, resp = _send(raw, 'POST', '/servers', json.dumps(body).encode())
    assert status == 413
    assert 'max_request_body_size (114688)' in resp['overLimit']['message']
    assert aio.db.instance_count() == before


@pytest.mark.parametrize('name,raw_body,words', [
    ('deep', b'{"server": ' + b'[' * 50000 + b']' * 50000 + b'}', 'nested deeper'),
    ('deep-objects', b'{"a":' * 40 + b'1' + b'}' * 40, 'nested deeper'),
    ('surrogate', b'{"server": {"name": "\\ud800", "flavorRef": "1", "networks": "none"}}',
     'server/name'),
    ('huge-int', b'{"server": {"name": "x", "flavorRef": "1", "networks": "none", '
                 b'"min_count": 1' + b'0' * 40 + b'}}', 'min_count'),
    ('nan', b'{"server": {"name": "x", "flavorRef": "1", "min_count": NaN}}', 'NaN'),
])
def test_bodies_no_database_can_store_are_400(aio, raw, name, raw_body, words):
    before = aio.db.instance_count()
    status, body = _send(raw, 'POST', '/servers', raw_body)
    assert status == 400, body
    assert words in _message(body)
    assert aio.db.instance_count() == before


@pytest.mark.parametrize('changes,words', [
    ({'min_count': '0'}, 'min_count'),
    ({'min_count': '9' * 40}, 'min_count'),
    ({'max_count': 2 ** 31}, 'max_count'),
    ({'user_data': 'not base64!', 'config_drive': True}, 'user_data'),
    ({'block_device_mapping_v2': [{'source_type': 'blank', 'destination_type': 'local',
                                   'volume_size': 10 ** 12, 'boot_index': -1}]},
     'volume_size'),
    ({'block_device_mapping_v2': [{'source_type': 'blank', 'destination_type': 'local',
                                   'volume_size': 1, 'boot_index': '9' * 30}]},
     'boot_index'),
])
def test_out_of_range_and_bad_format_fields_are_400(aio, image, changes, words):
    before = aio.db.instance_count()
    body = server_body(image, name='bad')
    body['server'].update(changes)
    status, _h, resp = aio.request('POST', '/servers', body, version='2.37')
    assert status == 400, resp
    assert words in _message(resp)
    assert aio.db.instance_count() == before


def test_string_min_count_works_as_upstream(aio, image, nano):
    body = server_body(image, name='strcount', min_count='2', max_count='2')
    status, _h, resp = aio.request('POST', '/servers', body, version='2.37')
    assert status == 202, resp
    listed = aio.request('GET', '/servers?name=strcount')[2]['servers']
    assert len(listed) == 2


@pytest.mark.parametrize('flavor,words', [
    ({'ram': 10 ** 30}, 'ram'), ({'vcpus': '9' * 40}, 'vcpus'), ({'swap': 2 ** 31}, 'swap'),
    ({'disk': -1}, 'disk'), ({'rxtx_factor': 1e39}, 'rxtx_factor'),
])
def test_flavor_sizes_are_bounded(aio, flavor, words):
    body = {'flavor': dict({'name': 'big', 'ram': 1, 'vcpus': 1, 'disk': 0}, **flavor)}
    status, _h, resp = aio.request('POST', '/flavors', body, token='admin:admin')
    assert status == 400, resp
    assert words in _message(resp)


@pytest.mark.parametrize('query', ['changes-since=notadate', 'changes-since=2020-13-45T99:00Z',
                                   'changes-since=9999-12-31T23:59:59-01:00'])
def test_bad_dates_in_queries_are_400(aio, query):
    status, _h, body = aio.request('GET', '/servers?' + query)
    assert status == 400 and 'changes-since' in _message(body)


@pytest.mark.parametrize('path', ['/servers?limit=' + '9' * 5000,
                                  '/flavors?limit=99999999999999999999999',
                                  '/flavors?minRam=99999999999999999999999'])
def test_huge_limits_are_clamped(aio, path):
    assert aio.request('GET', path)[0] == 200


def test_image_and_volume_endpoints_refuse_the_same(aio):
    token = {'X-Auth-Token': 'demo:demo'}
    image = fz.RawClient(aio.image_url)
    status, _p = image.send('POST', '/v2/images', b'[' * 100000 + b']' * 100000,
                            dict(token, **{'Content-Type': 'application/json'}))
    assert status == 400
    assert image.send('GET', '/v2/images/%ff', None, token)[0] == 400
    volume = fz.RawClient(aio.aio.urls['volume'])
    status, _p = volume.send('POST', '/v3/demo/volumes', b'{"volume": {"name": "\\ud800"}}',
                             dict(token, **{'Content-Type': 'application/json'}))
    assert status == 400
    assert volume.send('GET', '/v3/demo/volumes', None, dict(
        token, **{'OpenStack-API-Version': 'volume 3.' + '9' * 5000}))[0] == 400
    identity = fz.RawClient(aio.aio.urls['identity'])
    assert identity.send('POST', '/v3/auth/tokens', b'[' * 100000 + b']' * 100000,
                         {'Content-Type': 'application/json'})[0] == 400
    assert identity.send('GET', '/v3/projects/%ff', None, {})[0] == 400


def test_a_client_that_sends_its_whole_body_reads_the_413(aio):
    # urllib writes the whole body before reading: it must get the answer.
    status, _h, body = aio.request('POST', '/servers', raw=b'{"x": "' + b'a' * 300000 + b'"}')
    assert status == 413 and body['overLimit']['code'] == 413
