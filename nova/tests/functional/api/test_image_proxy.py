"""The image proxy /images (microversions up to 2.35) through the real all-in-one."""

import pytest

from nova.tests.functional.api import tempest_schemas as ts

ADMIN = 'admin:admin'


@pytest.fixture(scope='module')
def mine(aio, tmp_path_factory):
    from nova.tests.functional import fixtures
    disk = fixtures.tiny_disk(tmp_path_factory.mktemp('proxy') / 'disk.raw')
    return aio.upload_image(disk, name='proxied', auto_disk_config='true', min_ram=16)


def test_list_detail_show_match_tempest(aio, image, mine):
    status, _h, body = aio.request('GET', '/images', version='2.35')
    ts.validate('images', 'list_images', '2.1', status, body)
    assert {image, mine} <= {i['id'] for i in body['images']}
    status, _h, body = aio.request('GET', '/images/detail')
    ts.validate('images', 'list_images_details', '2.1', status, body)
    status, _h, body = aio.request('GET', '/images/' + mine)
    ts.validate('images', 'get_image', '2.1', status, body)
    shown = body['image']
    assert shown['status'] == 'ACTIVE' and shown['progress'] == 100
    assert shown['minRam'] == 16 and shown['OS-DCF:diskConfig'] == 'AUTO'
    assert shown['metadata']['auto_disk_config'] == 'true'
    assert [link['rel'] for link in shown['links']] == ['self', 'bookmark', 'alternate']


def test_gone_from_2_36(aio, mine):
    for path in ('/images', '/images/detail', '/images/' + mine,
                 '/images/%s/metadata' % mine):
        assert aio.request('GET', path, version='2.36')[0] == 404


def test_filters_and_paging(aio, image, mine):
    names = lambda q: [i['name'] for i in aio.request(  # noqa: E731
        'GET', '/images/detail' + q)[2]['images']]
    assert names('?name=proxied') == ['proxied']
    assert 'proxied' in names('?status=ACTIVE') and names('?status=SAVING') == []
    assert names('?minRam=16') == ['proxied']
    assert names('?changes-since=2000-01-01T00:00:00Z')
    assert names('?type=snapshot') == []
    status, _h, body = aio.request('GET', '/images?limit=1')
    assert len(body['images']) == 1 and 'marker=' in body['images_links'][0]['href']
    after = aio.request('GET', '/images?marker=' + body['images'][0]['id'])[2]['images']
    assert body['images'][0]['id'] not in [i['id'] for i in after]
    assert aio.request('GET', '/images?marker=nope')[0] == 400


def test_metadata_crud(aio, mine):
    base = '/images/%s/metadata' % mine
    status, _h, body = aio.request('GET', base)
    ts.validate('images', 'image_metadata', '2.1', status, body)
    status, _h, body = aio.request('POST', base, {'metadata': {'color': 'red'}})
    ts.validate('images', 'image_metadata', '2.1', status, body)
    assert body['metadata']['color'] == 'red' and 'auto_disk_config' in body['metadata']
    status, _h, body = aio.request('GET', base + '/color')
    ts.validate('images', 'image_meta_item', '2.1', status, body)
    assert body == {'meta': {'color': 'red'}}
    status, _h, body = aio.request('PUT', base + '/color', {'meta': {'color': 'blue'}})
    assert status == 200 and body == {'meta': {'color': 'blue'}}
    assert aio.request('PUT', base + '/color', {'meta': {'size': '1'}})[0] == 400
    status, _h, body = aio.request('PUT', base, {'metadata': {'only': 'this'}})
    assert status == 200 and body == {'metadata': {'only': 'this'}}
    assert aio.request('GET', base)[2] == {'metadata': {'only': 'this'}}
    assert aio.request('DELETE', base + '/only')[0] == 204
    assert aio.request('DELETE', base + '/only')[0] == 404
    assert aio.request('GET', base + '/only')[0] == 404
    assert aio.request('POST', base, {'metadata': {'': 'x'}})[0] == 400
    assert aio.request('GET', '/images/%s/metadata' % ('0' * 32))[0] == 404


def test_delete(aio, tmp_path_factory):
    from nova.tests.functional import fixtures
    disk = fixtures.tiny_disk(tmp_path_factory.mktemp('del') / 'disk.raw')
    doomed = aio.upload_image(disk, name='doomed')
    assert aio.request('DELETE', '/images/' + doomed)[0] == 204
    assert aio.request('GET', '/images/' + doomed)[0] == 404
    assert aio.request('DELETE', '/images/' + doomed)[0] == 404
