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

