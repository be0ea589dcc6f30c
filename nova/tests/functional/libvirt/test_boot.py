"""Real QEMU (TCG) guests through libvirtd: boot, console, power, destroy."""

import os
import time

import pytest

from nova import exception, power_state
from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import driver as libvirt_driver

pytestmark = fx.requires_libvirtd()

MESSAGE = 'ROOT-DISK-OK'


@pytest.fixture
def drv(tmp_path):
    image = bootimg.write_boot_image(str(tmp_path / 'root.raw'),
                                     MESSAGE + '\r\n')
    conf = fx.make_conf(tmp_path / 'state', uri=fx.QEMU_URI,
                        virt_type='qemu')
    drv = libvirt_driver.LibvirtDriver(conf,
                                       fx.file_fetcher({'image-1': image}),
                                       shutdown_poll_interval=0.05)
    drv.init_host('testhost')
    yield drv
    drv.cleanup_host('testhost')


@pytest.fixture
def instance(drv):
    inst = fx.make_instance()
    yield inst
    drv.destroy(None, inst)     # idempotent: safety net for failed tests


def wait_for_console(drv, instance, text, count=1, timeout=15):
    deadline = time.monotonic() + timeout
    while True:
        out = drv.get_console_output(None, instance)
        if out.count(text.encode()) >= count:
            return out
        if time.monotonic() > deadline:
            raise AssertionError('%r x%d not on the console after %ss: %r'
                                 % (text, count, timeout, out))
        time.sleep(0.02)


def test_boot_root_disk_then_destroy(drv, instance):
    start = time.monotonic()
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {})
    wait_for_console(drv, instance, MESSAGE)
    booted = time.monotonic() - start
    assert drv.get_info(instance).state == power_state.RUNNING
    assert instance.uuid in drv.list_instance_uuids()

    start = time.monotonic()
    drv.destroy(None, instance)
    destroyed = time.monotonic() - start
    with pytest.raises(exception.InstanceNotFound):
        drv.get_info(instance)
    assert instance.uuid not in drv.list_instance_uuids()
    assert not os.path.exists(drv.core.instance_dir(instance))
    print('spawn->console %.2fs, destroy %.2fs' % (booted, destroyed))


def test_power_cycle_pause_and_suspend(drv, instance):
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {})
    wait_for_console(drv, instance, MESSAGE)

    drv.pause(instance)
    assert drv.get_info(instance).state == power_state.PAUSED
    drv.unpause(instance)
    assert drv.get_info(instance).state == power_state.RUNNING

    # The boot sector ignores ACPI, so a clean shutdown times out and the
    # driver pulls the plug.
    drv.power_off(instance, timeout=0.3, retry_interval=0.1)
    assert drv.get_info(instance).state == power_state.SHUTDOWN
    drv.power_on(None, instance, None)
    # A second boot proves power_on really started the guest again (the
    # console file is appended to).
    wait_for_console(drv, instance, MESSAGE, count=2)

    drv.suspend(None, instance)
    assert drv.get_info(instance).state == power_state.SHUTDOWN
    drv.resume(None, instance, None)
    assert drv.get_info(instance).state == power_state.RUNNING
    # Restored from memory: no third boot.
    assert drv.get_console_output(None, instance).count(MESSAGE.encode()) \
        == 2


def test_uefi_guest_gets_firmware_and_nvram_removed(drv, instance):
    meta = fx.make_image_meta(hw_firmware_type='uefi')
    drv.spawn(None, instance, meta, [], None, {})
    xml = drv.host.get_guest(instance.uuid).get_xml_desc()
    assert "type='pflash'" in xml
    nvram = xml.split('<nvram', 1)[1].split('>', 1)[1].split('<', 1)[0]
    assert os.path.exists(nvram)
    drv.destroy(None, instance)
    assert not os.path.exists(nvram)
