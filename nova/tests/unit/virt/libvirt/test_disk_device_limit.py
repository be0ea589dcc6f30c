"""[compute] max_disk_devices_to_attach: builds and attaches past the limit are refused."""

import os

import pytest

from nova import exception
from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import driver as libvirt_driver


@pytest.fixture
def drv(tmp_path):
    conf = fx.make_conf(tmp_path / 'state')
    conf.set_override('max_disk_devices_to_attach', 2, group='compute')
    image = bootimg.write_boot_image(str(tmp_path / 'root.raw'), 'ROOT')
    drv = libvirt_driver.LibvirtDriver(conf, fx.file_fetcher({'image-1': image}))
    drv.init_host('testhost')
    yield drv
    drv.cleanup_host('testhost')


def test_a_build_past_the_limit_fails_before_anything_is_made(drv, tmp_path):
    # Root, ephemeral and config drive: three devices where two are allowed.
    inst = fx.make_instance(flavor=fx.make_flavor(ephemeral_gb=1), config_drive='True')
    with pytest.raises(exception.TooManyDiskDevices, match=r'disk devices \(2\)'):
        drv.spawn(None, inst, fx.make_image_meta(), [], None, {})
    assert not os.path.exists(os.path.join(drv.core.instances_path, inst.uuid, 'disk'))
    with pytest.raises(exception.InstanceNotFound):
        drv.host.get_guest(inst.uuid)


def test_an_attach_past_the_limit_is_refused(drv, tmp_path):
    inst = fx.make_instance()
    drv.spawn(None, inst, fx.make_image_meta(), [], None, {})
    try:
        # Root disk plus one volume is the limit: a name for that one, none after.
        assert drv.get_next_volume_device(inst) == '/dev/vdb'
        with pytest.raises(exception.TooManyDiskDevices) as err:
            drv.get_next_volume_device(inst, in_use=['/dev/vdb'])
        assert err.value.code == 403
    finally:
        drv.destroy(None, inst)


def test_no_limit_by_default(tmp_path):
    conf = fx.make_conf(tmp_path / 'state')
    assert conf.compute.max_disk_devices_to_attach == -1
