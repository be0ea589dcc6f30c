"""Flavor list filters, paging and the per-microversion flavor fields."""

import pytest

ADMIN = 'admin:admin'


@pytest.fixture(scope='module')
def private(aio):
    status, _h, body = aio.request('POST', '/flavors', {'flavor': {
        'name': 'secret', 'id': 'secret', 'ram': 64, 'vcpus': 1, 'disk': 0, 'swap': 512,
        'os-flavor-access:is_public': False, 'description': 'hidden one'}},
        version='2.55', token=ADMIN)
    assert status == 200, body
    return body['flavor']


def _ids(aio, path, token='demo:demo', version=None):
    status, _h, body = aio.request('GET', path, token=token, version=version)
    assert status == 200, body
    return [f['id'] for f in body['flavors']]


def test_is_public_none_literal(aio, private):
    """openstackclient sends is_public=None: admins then see private flavors too."""
    everything = _ids(aio, '/flavors/detail?is_public=None', ADMIN)
    assert 'secret' in everything and '1' in everything
    assert _ids(aio, '/flavors/detail?is_public=false', ADMIN) == ['secret']
    assert 'secret' not in _ids(aio, '/flavors/detail', ADMIN)
    # A normal user only ever sees public flavors.
    assert 'secret' not in _ids(aio, '/flavors/detail?is_public=None')
    assert 'secret' not in _ids(aio, '/flavors?is_public=false')


def test_min_ram_and_min_disk(aio):
    status, _h, body = aio.request('GET', '/flavors/detail?minRam=2048&minDisk=40')
    assert status == 200
    assert body['flavors'] and all(f['ram'] >= 2048 and f['disk'] >= 40
                                   for f in body['flavors'])
    assert len(body['flavors']) < len(_ids(aio, '/flavors/detail'))
    assert aio.request('GET', '/flavors?minRam=lots')[0] == 400


@pytest.mark.parametrize('path', ['/flavors', '/flavors/detail'])
def test_limit_and_marker(aio, path):
    everything = _ids(aio, path)
    pages, url = [], aio.compute_url + path + '?limit=2'
    while url:
        status, _h, body = aio.request('GET', '', url=url)
        assert status == 200
        pages.append([f['id'] for f in body['flavors']])
        assert all(('ram' in f) == path.endswith('/detail') for f in body['flavors'])
        url = body.get('flavors_links', [{}])[0].get('href')
        assert url is None or url.startswith(aio.compute_url + path + '?')
    assert sum(pages, []) == everything
    assert all(len(p) == 2 for p in pages[:-1])
    assert _ids(aio, path + '?marker=' + everything[0]) == everything[1:]
    status, _h, body = aio.request('GET', path + '?marker=no-such-flavor')
    assert status == 400
    assert 'marker' in body['badRequest']['message']


@pytest.mark.parametrize('version,swap', [('2.1', ''), ('2.74', ''), ('2.75', 0),
                                          ('2.100', 0)])
def test_swap_without_swap(aio, version, swap):
    body = aio.request('GET', '/flavors/1', version=version)[2]
    assert body['flavor']['swap'] == swap
    detail = aio.request('GET', '/flavors/detail', version=version)[2]
    assert {f['swap'] for f in detail['flavors'] if f['id'] == '1'} == {swap}


def test_swap_with_swap(aio, private):
    for version in ('2.1', '2.75'):
        body = aio.request('GET', '/flavors/secret', version=version, token=ADMIN)[2]
        assert body['flavor']['swap'] == 512


@pytest.mark.parametrize('version,shown', [('2.54', False), ('2.55', True), ('2.100', True)])
def test_description_from_2_55(aio, private, version, shown):
    show = aio.request('GET', '/flavors/secret', version=version, token=ADMIN)[2]['flavor']
    listed = aio.request('GET', '/flavors?is_public=None', version=version,
                         token=ADMIN)[2]['flavors']
    assert ('description' in show) == shown
    assert all(('description' in f) == shown for f in listed)
    if shown:
        assert show['description'] == 'hidden one'
        assert aio.request('GET', '/flavors/1', version=version)[2]['flavor'][
            'description'] is None


def test_description_rejected_before_2_55(aio):
    status, _h, body = aio.request('POST', '/flavors', {'flavor': {
        'name': 'early', 'ram': 64, 'vcpus': 1, 'disk': 0, 'description': 'x'}},
        version='2.54', token=ADMIN)
    assert status == 400
    assert 'description' in body['badRequest']['message']


@pytest.mark.parametrize('version,shown', [('2.60', False), ('2.61', True), ('2.100', True)])
def test_extra_specs_from_2_61(aio, version, shown):
    aio.db.flavor_create(dict(flavorid='specs-%s' % version, name='specs-%s' % version,
                              vcpus=1, memory_mb=64, root_gb=0,
                              extra_specs={'hw:cpu_policy': 'shared'}))
    flavor_id = 'specs-%s' % version
    show = aio.request('GET', '/flavors/' + flavor_id, version=version)[2]['flavor']
    assert ('extra_specs' in show) == shown
    if shown:
        assert show['extra_specs'] == {'hw:cpu_policy': 'shared'}
    detail = aio.request('GET', '/flavors/detail', version=version)[2]['flavors']
    assert all(('extra_specs' in f) == shown for f in detail)
    # The short list never carries extra_specs.
    listed = aio.request('GET', '/flavors', version=version)[2]['flavors']
    assert not any('extra_specs' in f for f in listed)
