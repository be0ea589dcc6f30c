"""nova-aio with [aio] embedded_network = false: no network endpoint, none in the catalog."""

import pytest

from nova.network import neutron as network_neutron
from nova.tests.functional import fixtures


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    running = fixtures.RunningAio(tmp_path_factory.mktemp('aio-ext-net') / 'state',
                                  extra={('aio', 'embedded_network'): False})
    yield running
    running.stop()


def test_no_endpoint_and_no_network_service(cloud):
    assert 'network' not in cloud.aio.urls
    assert cloud.aio.network is None and cloud.aio.plane is None
    # Nothing points the [neutron] client anywhere: the deployment is networkless
    # until [neutron] names a real Neutron.
    assert not network_neutron.configured(cloud.conf)


def test_the_identity_stand_in_lists_no_network_service(cloud):
    auth = {'auth': {'identity': {'methods': ['password'], 'password': {'user': {
        'name': 'demo', 'domain': {'id': 'default'}, 'password': 'x'}}}}}
    status, _h, body = cloud.request('POST', '/v3/auth/tokens', auth,
                                     url=cloud.aio.urls['identity'])
    assert status == 201, body
    types = {entry['type'] for entry in body['token']['catalog']}
    assert 'network' not in types and {'compute', 'image'} <= types


def test_servers_boot_without_ports(cloud, tmp_path):
    image = cloud.upload_image(fixtures.tiny_disk(tmp_path / 'disk.img'))
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'ext', 'imageRef': image, 'flavorRef': '1'}})
    assert status == 202, body
    server = cloud.wait_for_status(body['server']['id'], 'ACTIVE')
    assert server['addresses'] == {}
