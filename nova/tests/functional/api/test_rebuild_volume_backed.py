"""Rebuild of a volume-backed server: the same image before 2.93, a re-imaged root from 2.93."""

import time

from nova.tests.functional import fixtures
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'
VOLUME = {'OpenStack-API-Version': 'volume 3.68'}


def _volume(aio, vid):
    status, _h, body = aio.request('GET', '/os-volumes/' + vid, version='2.35')
    assert status == 200, body
    return body['volume']


def _volume_v3(aio, vid):
    url = aio.aio.urls['volume']
    status, _h, body = aio.request('GET', '/v3/%s/volumes/%s' % ('demo', vid),
                                   url=url[:-len('/v3')] if url.endswith('/v3') else url,
                                   headers=VOLUME)
    assert status == 200, body
    return body['volume']


def _wait_volume(aio, vid, wanted, timeout=60):
    deadline = time.monotonic() + timeout
    while _volume(aio, vid)['status'] != wanted:
        assert time.monotonic() < deadline, _volume(aio, vid)
        time.sleep(0.1)


def _rebuild(aio, sid, image, version):
    return aio.request('POST', '/servers/%s/action' % sid, {'rebuild': {'imageRef': image}},
                       version=version)


def _volume_path(aio, vid):
    import glob
    [path] = glob.glob('%s/**/volume-%s' % (aio.conf.state_path, vid), recursive=True)
    return path


def test_rebuild_keeps_or_reimages_the_root_volume(aio, image, nano, tmp_path):
    other_disk = tmp_path / 'other.raw'
    with open(other_disk, 'wb') as handle:
        handle.write(b'NEWIMAGE' * 64)
        handle.truncate(1024 * 1024)
    other = aio.upload_image(str(other_disk), name='other', token=ADMIN, visibility='public')
    big = aio.upload_image(fixtures.tiny_disk(tmp_path / 'big.raw'), name='big', token=ADMIN,
                           visibility='public', min_disk=5)
    body = server_body(image, flavor=nano, name='vbr', block_device_mapping_v2=[{
        'source_type': 'image', 'destination_type': 'volume', 'boot_index': 0,
        'uuid': image, 'volume_size': 1, 'delete_on_termination': True}])
    # No imageRef: a server booted from a volume alone shows no image.
    body['server']['imageRef'] = ''
    status, _h, body = aio.request('POST', '/servers', body, version='2.37')
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    vid = aio.request('GET', '/servers/' + sid, version='2.37')[2]['server'][
        'os-extended-volumes:volumes_attached'][0]['id']
    try:
        # Before 2.93: another image is refused, the same one rebuilds the server.
        status, _h, body = _rebuild(aio, sid, other, '2.92')
        assert status == 400, body
        assert body['badRequest']['message'] == (
            'Unable to rebuild with a different image for a volume-backed server.')
        status, _h, body = _rebuild(aio, sid, image, '2.92')
        assert status == 202, body
        aio.wait_for_status(sid, ['ACTIVE'])
        assert _volume(aio, vid)['status'] == 'in-use'
        with open(_volume_path(aio, vid), 'rb') as handle:
            assert b'NEWIMAGE' not in handle.read(1024 * 1024)
        # From 2.93: an image bigger than the volume allows is refused up front.
        status, _h, body = _rebuild(aio, sid, big, '2.93')
        assert status == 400 and 'smaller than the minimum size' in \
            body['badRequest']['message'], body
        # ... and another image is written over the root volume.
        attachment = _volume_v3(aio, vid)['attachments'][0]['attachment_id']
        status, _h, body = _rebuild(aio, sid, other, '2.93')
        assert status == 202, body
        assert body['server']['image'] == ''
        aio.wait_for_status(sid, ['ACTIVE'])
        _wait_volume(aio, vid, 'in-use')
        shown = _volume_v3(aio, vid)
        assert shown['volume_image_metadata']['image_id'] == other
        assert shown['attachments'][0]['attachment_id'] != attachment
        with open(_volume_path(aio, vid), 'rb') as handle:
            data = handle.read(4 * 1024 * 1024)
        assert b'NEWIMAGE' in data
        server = aio.request('GET', '/servers/' + sid, version='2.93')[2]['server']
        assert server['image'] == '' and server['status'] == 'ACTIVE'
        assert [v['id'] for v in server['os-extended-volumes:volumes_attached']] == [vid]
    finally:
        aio.request('DELETE', '/servers/' + sid)
        aio.wait_for_status(sid, ['DELETED'])


def test_volume_reimage_action(aio, image):
    url = aio.aio.urls['volume']
    base = url[:-len('/v3')] if url.endswith('/v3') else url
    status, _h, body = aio.request('POST', '/os-volumes', {'volume': {'size': 1}},
                                   version='2.35')
    assert status == 200, body
    vid = body['volume']['id']
    _wait_volume(aio, vid, 'available')
    path = '/v3/demo/volumes/%s/action' % vid

    def act(body, version='3.68'):
        return aio.request('POST', path, body, url=base,
                           headers={'OpenStack-API-Version': 'volume ' + version})
    status, _h, body = act({'os-reimage': {'image_id': image}}, '3.67')
    assert status == 400 and 'no such action' in str(body), body
    for bad in ({'os-reimage': {}}, {'os-reimage': {'image_id': image, 'x': 1}},
                {'os-reimage': {'image_id': image, 'reimage_reserved': 'maybe'}}):
        status, _h, body = act(bad)
        assert status == 400, (bad, body)
    status, _h, body = act({'os-reimage': {'image_id': '00000000-0000-0000-0000-000000000000'}})
    assert status == 400 and 'image' in str(body).lower(), body
    assert _volume(aio, vid)['status'] == 'available'
    status, _h, body = act({'os-reimage': {'image_id': image}})
    assert status == 202, body
    _wait_volume(aio, vid, 'available')
    assert _volume_v3(aio, vid)['volume_image_metadata']['image_id'] == image
    assert _volume_v3(aio, vid)['bootable'] == 'true'
    assert aio.request('DELETE', '/os-volumes/' + vid, version='2.35')[0] == 202
