"""Bad requests answer 400/403/404 with a useful message and leave nothing behind."""

import pytest

from nova.tests.functional.api.conftest import server_body

MISSING = '00000000-0000-0000-0000-000000000000'


def _bad(image, version='2.37', **changes):
    body = server_body(image, version=version)
    for key, value in changes.items():
        if value is None:
            body['server'].pop(key, None)
        else:
            body['server'][key] = value
    return body


# (id, version, body factory, words the message must contain)
BAD_CREATES = [
    ('unknown-key-2.1', '2.1', lambda i: _bad(i, '2.1', bogus=1), ['bogus']),
    ('unknown-key-2.100', '2.100', lambda i: _bad(i, '2.100', bogus=1), ['bogus']),
    ('unknown-top-key', '2.1', lambda i: dict(_bad(i, '2.1'), extra={}), ['extra']),
    ('name-wrong-type', '2.37', lambda i: _bad(i, name=42), ['name', 'string']),
    ('name-too-long', '2.37', lambda i: _bad(i, name='x' * 256), ['name', 'long']),
    ('name-empty', '2.37', lambda i: _bad(i, name=''), ['name']),
    ('name-missing', '2.37', lambda i: _bad(i, name=None), ['name']),
    ('flavor-missing', '2.37', lambda i: _bad(i, flavorRef=None), ['flavorRef']),
    ('flavor-unknown', '2.37', lambda i: _bad(i, flavorRef='no-such-flavor'),
     ['no-such-flavor']),
    ('image-unknown', '2.37', lambda i: _bad(i, imageRef=MISSING), [MISSING]),
    ('image-not-uuid', '2.37', lambda i: _bad(i, imageRef='not-a-uuid'), ['not-a-uuid']),
    ('min-over-max', '2.37', lambda i: _bad(i, min_count=3, max_count=2), ['min_count']),
    ('count-not-int', '2.37', lambda i: _bad(i, min_count='many'), ['min_count']),
    ('networks-bad-word', '2.37', lambda i: _bad(i, networks='some'), ['networks']),
    ('networks-missing', '2.37', lambda i: _bad(i, networks=None), ['networks']),
    ('networks-unknown', '2.1', lambda i: _bad(i, '2.1', networks=[{'uuid': MISSING}]),
     ['network']),
    ('metadata-not-string', '2.37', lambda i: _bad(i, metadata={'k': 1}), ['metadata']),
    ('metadata-not-object', '2.37', lambda i: _bad(i, metadata=['k']), ['metadata']),
    ('metadata-key-too-long', '2.37', lambda i: _bad(i, metadata={'k' * 256: 'v'}),
     ['k' * 256]),
    ('no-server', '2.37', lambda i: {'name': 'x'}, ['server']),
]


@pytest.mark.parametrize('version,make,words', [c[1:] for c in BAD_CREATES],
                         ids=[c[0] for c in BAD_CREATES])
def test_bad_create_is_400_and_writes_nothing(aio, image, nano, version, make, words):
    before = aio.db.instance_count()
    status, _h, body = aio.request('POST', '/servers', make(image), version=version)
    assert status == 400, body
    message = body['badRequest']['message']
    for word in words:
        assert word.lower() in message.lower(), message
    assert aio.db.instance_count() == before


@pytest.mark.parametrize('raw,ctype', [(b'{"server": ', 'application/json'),
                                       (b'', 'application/json'),
                                       (b'\xff\xfe', 'application/json')])
def test_unparsable_body_is_400(aio, raw, ctype):
    before = aio.db.instance_count()
    status, _h, body = aio.request('POST', '/servers', raw=raw, version='2.37',
                                   headers={'Content-Type': ctype})
    assert status == 400
    assert body['badRequest']['message']
    assert aio.db.instance_count() == before


@pytest.mark.parametrize('method', ['GET', 'PUT', 'DELETE'])
@pytest.mark.parametrize('server_id', [MISSING, 'not-a-uuid'])
def test_unknown_server_is_404(aio, method, server_id):
    body = {'server': {'name': 'x'}} if method == 'PUT' else None
    status, _h, resp = aio.request(method, '/servers/' + server_id, body)
    assert status == 404
    assert resp['itemNotFound']['code'] == 404


@pytest.fixture(scope='module')
def demo_server(aio, image, nano):
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='mine'),
                                   version='2.37')
    assert status == 202
    return body['server']['id']


def test_other_project_cannot_see_or_touch(aio, demo_server):
    other = 'other:other'
    assert aio.request('GET', '/servers/' + demo_server, token=other)[0] == 404
    assert aio.request('PUT', '/servers/' + demo_server, {'server': {'name': 'stolen'}},
                       token=other)[0] == 404
    assert aio.request('DELETE', '/servers/' + demo_server, token=other)[0] == 404
    for path in ('/servers', '/servers/detail'):
        status, _h, body = aio.request('GET', path, token=other)
        assert status == 200
        assert demo_server not in [s['id'] for s in body['servers']]
    status, _h, body = aio.request('GET', '/servers/' + demo_server)
    assert status == 200 and body['server']['name'] == 'mine'


def test_admin_sees_other_projects_only_when_asked(aio, demo_server):
    def ids(path):
        return [s['id'] for s in aio.request('GET', path, token='admin:admin')[2]['servers']]
    assert demo_server not in ids('/servers')
    assert demo_server in ids('/servers?all_tenants=1')


def test_all_tenants_is_admin_only(aio):
    assert aio.request('GET', '/servers/detail?all_tenants=1')[0] == 403


def test_non_admin_cannot_create_or_delete_flavors(aio):
    flavor = {'flavor': {'name': 'mine', 'ram': 64, 'vcpus': 1, 'disk': 0}}
    status, _h, body = aio.request('POST', '/flavors', flavor)
    assert status == 403
    assert body['forbidden']['code'] == 403
    assert aio.request('DELETE', '/flavors/1')[0] == 403
    assert aio.request('GET', '/flavors/1')[0] == 200


@pytest.mark.parametrize('version,query', [('2.75', 'bogus=1'), ('2.75', 'limit=x'),
                                           ('2.1', 'limit=-1'), ('2.1', 'sort_key=nope')])
def test_bad_list_query_is_400(aio, version, query):
    status, _h, body = aio.request('GET', '/servers?' + query, version=version)
    assert status == 400
    assert body['badRequest']['message']


def test_unknown_query_ignored_before_2_75(aio):
    assert aio.request('GET', '/servers?bogus=1', version='2.74')[0] == 200
