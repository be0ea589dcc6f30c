"""One running all-in-one per test module, plus an uploaded image to boot from."""

import pytest

from nova.tests.functional import fixtures


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    base = tmp_path_factory.mktemp('aio')
    running = fixtures.RunningAio(base / 'state')
    yield running
    running.stop()


@pytest.fixture(scope='module')
def image(aio, tmp_path_factory):
    disk = fixtures.tiny_disk(tmp_path_factory.mktemp('img') / 'disk.raw')
    # Public: tests boot from it as several projects.
    return aio.upload_image(disk, os_distro='cirros', hw_qemu_guest_agent='yes',
                            token='admin:admin', visibility='public')


@pytest.fixture(scope='module')
def nano(aio):
    """A flavor small enough that a hundred servers fit on the test host."""
    status, _h, body = aio.request('POST', '/flavors', {'flavor': {
        'name': 'nano', 'id': 'nano', 'ram': 1, 'vcpus': 1, 'disk': 0}}, token='admin:admin')
    assert status == 200, body
    return body['flavor']['id']


def server_body(image, flavor='nano', name='srv', version='2.37', **extra):
    """A create body valid at ``version``: networks is required, and "none" valid, from 2.37."""
    server = dict(name=name, imageRef=image, flavorRef=flavor, **extra)
    if tuple(map(int, version.split('.'))) >= (2, 37):
        server.setdefault('networks', 'none')
    return {'server': server}
