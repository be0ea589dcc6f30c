"""[compute] max_disk_devices_to_attach through the API: an attach past it is a 403."""

import time

import pytest

from nova.tests.functional import fixtures


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('disk-limit')
    running = fixtures.RunningAio(tmp / 'state',
                                  extra={('compute', 'max_disk_devices_to_attach'): 1})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    yield running
    running.stop()


def _volume(aio):
    url = aio.aio.urls['volume']
    status, _h, body = aio.request('POST', '/v3/demo/volumes', {'volume': {'size': 1}},
                                   url=url, headers={'OpenStack-API-Version': 'volume 3.44'})
    assert status == 202, body
    vid = body['volume']['id']
    deadline = time.monotonic() + 30
    while aio.request('GET', '/v3/demo/volumes/' + vid, url=url)[2]['volume']['status'] \
            != 'available':
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return vid


def test_an_attach_past_the_limit_is_refused_and_leaves_nothing(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'limited', 'imageRef': aio.image_id, 'flavorRef': '1'}})
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    vid = _volume(aio)
    status, _h, body = aio.request('POST', '/servers/%s/os-volume_attachments' % sid,
                                   {'volumeAttachment': {'volumeId': vid}}, version='2.79')
    assert status == 403, body
    assert body['forbidden']['message'] == (
        'The maximum allowed number of disk devices (1) to attach to a single instance '
        'has been exceeded.')
    _s, _h, attachments = aio.request('GET', '/servers/%s/os-volume_attachments' % sid)
    assert attachments['volumeAttachments'] == []
    _s, _h, volume = aio.request('GET', '/v3/demo/volumes/' + vid, url=aio.aio.urls['volume'])
    assert volume['volume']['status'] == 'available'
    assert volume['volume']['attachments'] == []
