"""The all-in-one in keystone mode boots from a real Glance (tools/glance.sh)."""

import time

import pytest

from nova.tests.fixtures import bootimg
from nova.tests.functional import fixtures, glance, keystone


@pytest.fixture(scope='module')
def admin():
    keystone.require_keystone()
    glance.require_glance()
    return keystone.admin_session()


@pytest.fixture(scope='module')
def member(admin):
    creds = keystone.make_credentials(admin, roles=('member', 'reader'))
    yield creds
    keystone.delete_credentials(admin, creds)


@pytest.fixture(scope='module')
def image(member, tmp_path_factory):
    path = bootimg.write_boot_image(tmp_path_factory.mktemp('img') / 'boot.img',
                                    'glance\r\nimage\r\n')
    session = member.session()
    image = glance.upload_image(session, path, name='nova-test-boot')
    yield image
    glance.delete_image(session, image['id'])


@pytest.fixture(scope='module')
def aio(tmp_path_factory, admin):
    extra = {('api', 'auth_strategy'): 'keystone',
             ('glance', 'endpoint_override'): glance.GLANCE_URL}
    extra.update(keystone.authtoken_options())
    running = fixtures.RunningAio(tmp_path_factory.mktemp('glance-aio'), extra=extra)
    yield running
    running.stop()


def test_glance_accepts_the_boot_sector_image(image):
    # The format inspector would refuse a bare boot sector without the
    # gpt_safety_checks_nonfatal setting tools/glance.sh writes.
    assert image['status'] == 'active'
    assert image['size'] == bootimg.MiB


def test_a_server_boots_from_an_image_in_the_real_glance(aio, member, image):
    status, _h, body = aio.request('POST', '/servers', token=member.token, version='2.37',
                                   body={'server': {'name': 'from-glance',
                                                    'imageRef': image['id'],
                                                    'flavorRef': '1', 'networks': 'none'}})
    assert status == 202, body
    server_id = body['server']['id']
    try:
        server = _wait_active(aio, server_id, member.token)
        assert server['image']['id'] == image['id']
    finally:
        aio.request('DELETE', '/servers/' + server_id, token=member.token)


def _wait_active(aio, server_id, token, timeout=300):
    deadline = time.monotonic() + timeout
    while True:
        _s, _h, body = aio.request('GET', '/servers/' + server_id, token=token)
        server = body['server']
        if server['status'] == 'ACTIVE':
            return server
        assert server['status'] != 'ERROR', server.get('fault')
        assert time.monotonic() < deadline, 'still %s' % server['status']
        time.sleep(0.5)
