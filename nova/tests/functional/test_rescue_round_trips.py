"""Rescue's API round trips on test:///default: a legacy rescue is cast without asking the host."""

import time

import pytest

from nova.tests.functional import fixtures

V = '2.106'


@pytest.fixture
def cloud(tmp_path):
    aio = fixtures.RunningAio(tmp_path)
    aio.plain = aio.upload_image(fixtures.tiny_disk(str(tmp_path / 'disk.img')))
    aio.stable = aio.upload_image(fixtures.tiny_disk(str(tmp_path / 'disk2.img')),
                                  hw_rescue_bus='virtio', hw_rescue_device='disk')
    yield aio
    aio.stop()


def _boot(cloud):
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'r', 'imageRef': cloud.plain, 'flavorRef': '1', 'networks': 'none'}},
        version=V)
    assert status == 202, body
    cloud.wait_for_status(body['server']['id'], ['ACTIVE'])
    return body['server']['id']


def _rescue(cloud, sid, image):
    start = time.monotonic()
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid,
                                     {'rescue': {'rescue_image_ref': image}}, version=V)
    return status, body, time.monotonic() - start


def test_legacy_rescue_is_cast_without_a_host_round_trip(cloud):
    sid = _boot(cloud)
    compute = cloud.aio.services[1].rpcserver
    # The host takes no message now: a synchronous question would wait 30 s.
    compute.stop()
    compute.wait()
    try:
        status, body, took = _rescue(cloud, sid, cloud.plain)
        assert status == 200 and took < 10, (status, body, took)
        server = cloud.request('GET', '/servers/' + sid, version=V)[2]['server']
        assert server['OS-EXT-STS:task_state'] == 'rescuing'
    finally:
        compute.start()
    # The cast waited in the queue; the host rescues once it listens again.
    cloud.wait_for_status(sid, ['RESCUE'])



def test_overrides_on_a_rescue_image_it_cannot_read_are_400(cloud, tmp_path):
    # The overrides are merged into the rescue image's properties and parsed
    # once in the API: a value there that no host could read is a 400 before
    # the server changes, not a failed rescue on the host.
    sid = _boot(cloud)
    bad = cloud.upload_image(fixtures.tiny_disk(str(tmp_path / 'bad.img')),
                             hw_numa_nodes='two')
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid, {'rescue': {
        'rescue_image_ref': bad, 'image_props_override': {'hw_video_model': 'vga'}}},
        version=V)
    assert status == 400 and 'hw_numa_nodes' in body['badRequest']['message'], body
    server = cloud.request('GET', '/servers/' + sid, version=V)[2]['server']
    assert (server['status'], server['OS-EXT-STS:task_state']) == ('ACTIVE', None)
