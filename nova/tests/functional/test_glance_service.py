"""tools/glance.sh's Glance accepts the boot-sector test images nova's tests upload."""

import pytest

from nova.tests.fixtures import bootimg
from nova.tests.functional import glance, keystone


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


def test_glance_accepts_the_boot_sector_image(image):
    # The format inspector would refuse a bare boot sector without the
    # gpt_safety_checks_nonfatal setting tools/glance.sh writes.
    assert image['status'] == 'active'
    assert image['size'] == bootimg.MiB
