"""Image properties proven in real kernel+busybox QEMU guests: CPU, devices, firmware, vTPM."""

# Two boots carry every property a guest can see, side by side (TCG is the
# slow part): A on BIOS with the devices, B on UEFI without secure boot.

import os
import shutil
import tempfile
import time

import pytest
from lxml import etree

from nova.objects import image_meta as image_meta_obj
from nova.tests.fixtures import bootimg, kernelguest
from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import driver as libvirt_driver
from nova.virt.libvirt import driver_consoles, vtpm

pytestmark = fx.requires_libvirtd()
TIMEOUT = 150
DONE = kernelguest.DONE_MARKER

# Runs as PID 1 and prints one KEY: value line per fact, read from /proc
# and /sys (PCI ids and ACPI tables need no driver in the guest).
INIT = """#!/bin/sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec >/dev/ttyS0 2>&1
echo "CPUS: $(grep -c ^processor /proc/cpuinfo)"
echo "SOCKETS: $(grep '^physical id' /proc/cpuinfo | sort -u | wc -l)"
echo "CORES: $(grep -m1 '^cpu cores' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
echo "ADDRESS: $(grep -m1 '^address sizes' /proc/cpuinfo | cut -d: -f2)"
p=''
for d in /sys/bus/pci/devices/*; do p="$p $(cat $d/vendor):$(cat $d/device)"; done
echo "PCI:$p"
echo "ACPI: $(ls /sys/firmware/acpi/tables | tr '\\n' ' ')"
echo "EFI: $(test -d /sys/firmware/efi && echo yes || echo no)"
echo "CLOCKS: $(cat /sys/devices/system/clocksource/clocksource0/available_clocksource)"
echo "UARTS: $(grep -c 'uart:16550A' /proc/tty/driver/serial)"
echo "%s"
poweroff -f
""" % DONE

VIRTIO_RNG = ('0x1af4:0x1005', '0x1af4:0x1044')
I6300ESB = '0x8086:0x25ab'
ICH9_HDA = '0x8086:0x293e'
QEMU_XHCI = '0x1b36:0x000d'


def image_meta(**props):
    return image_meta_obj.ImageMeta.from_dict(
        {'id': 'image-1', 'disk_format': 'raw', 'properties': props})


def report(drv, instance):
    path = drv.core.console_log_path(instance)
    deadline = time.monotonic() + TIMEOUT
    while True:
        text = driver_consoles.read_tail(path, 1 << 20).decode('utf-8', 'replace')
        if DONE in text:
            facts = {}
            for line in text.splitlines():
                key, sep, value = line.partition(':')
                if sep and key.isupper() and key.isalpha():
                    facts[key] = value.strip()
            return facts
        if time.monotonic() > deadline:
            raise AssertionError('no report after %ss:\n%s' % (TIMEOUT, text[-2000:]))
        time.sleep(0.2)


def domain(drv, instance):
    return etree.fromstring(drv.host.get_guest(instance.uuid).get_xml_desc().encode())


@pytest.fixture(scope='module')
def drv(tmp_path_factory):
    try:
        kernel, busybox = kernelguest.fetch()
    except kernelguest.KernelUnavailable as exc:
        pytest.skip('no test kernel: %s' % exc)
    tmp = tmp_path_factory.mktemp('breadth')
    initrd = kernelguest.write_initrd(str(tmp / 'initrd.gz'), busybox, INIT)
    images = {'image-1': bootimg.write_boot_image(str(tmp / 'root.raw'), 'ROOT\r\n'),
              'kernel-1': kernel, 'ramdisk-1': initrd}
    # swtpm runs as libvirt's swtpm_user (tss), which must reach the vTPM
    # state in the instance directory: pytest's own directories are root's.
    state = tempfile.mkdtemp(prefix='nova-breadth-', dir='/var/tmp')
    os.chmod(state, 0o711)
    conf = fx.make_conf(state, uri=fx.QEMU_URI, virt_type='qemu')
    conf.set_override('enabled', False, group='vnc')
    conf.set_override('swtpm_enabled', True, group='libvirt')
    driver = libvirt_driver.LibvirtDriver(conf, fx.file_fetcher(images),
                                          shutdown_poll_interval=0.05)
    driver.init_host('testhost')
    driver.test_images = images
    yield driver
    driver.cleanup_host('testhost')
    shutil.rmtree(state, ignore_errors=True)


def kernel_instance(vcpus, memory_mb=256, extra_specs=None):
    return fx.make_instance(flavor=fx.make_flavor(vcpus=vcpus, memory_mb=memory_mb,
                                                  extra_specs=extra_specs),
                            kernel_id='kernel-1', ramdisk_id='ramdisk-1')


DEVICES = dict(os_command_line='console=ttyS0 quiet', hw_cpu_sockets='2', hw_cpu_cores='2',
               hw_rng_model='virtio', hw_watchdog_action='reset', hw_serial_port_count='3',
               hw_time_hpet='true', hw_pointer_model='usbtablet', hw_input_bus='virtio',
               hw_sound_model='ich9', hw_usb_model='qemu-xhci', hw_maxphysaddr_mode='emulate',
               hw_maxphysaddr_bits='42', hw_tpm_version='2.0', hw_tpm_model='tpm-crb',
               hw_virtio_packed_ring='true', hw_pmu='false')
# no_timer_check: with the vIOMMU's interrupt remapping the kernel panics when its IO-APIC
# timer check times out, which a TCG guest on a loaded host can ("timer doesn't work
# through Interrupt-remapped IO-APIC").
FIRMWARE = dict(os_command_line='console=ttyS0 quiet no_timer_check', hw_firmware_type='uefi',
                os_secure_boot='disabled', hw_machine_type='q35', hw_viommu_model='intel')


@pytest.fixture(scope='module')
def guests(drv):
    a = kernel_instance(4, extra_specs={'hw_rng:rate_bytes': '4096',
                                        'hw_rng:rate_period': '1000'})
    b = kernel_instance(1)
    booted = []
    try:
        for instance, props in ((a, DEVICES), (b, FIRMWARE)):
            drv.spawn(None, instance, image_meta(**props), [], None, {})
            booted.append(instance)
        yield {'a': (a, report(drv, a)), 'b': (b, report(drv, b))}
    finally:
        for instance in booted:
            drv.destroy(None, instance)


def test_topology_and_address_bits_seen_by_the_guest(drv, guests):
    a, facts = guests['a']
    assert (facts['CPUS'], facts['SOCKETS'], facts['CORES']) == ('4', '2', '2')
    assert facts['ADDRESS'].startswith('42 bits physical')
    topology = domain(drv, a).find('cpu/topology')
    assert (topology.get('sockets'), topology.get('cores'), topology.get('threads')) == (
        '2', '2', '1')


def test_devices_seen_by_the_guest(drv, guests):
    a, facts = guests['a']
    pci = facts['PCI'].split()
    assert any(rng in pci for rng in VIRTIO_RNG), pci
    assert I6300ESB in pci and ICH9_HDA in pci and QEMU_XHCI in pci
    assert 'hpet' in facts['CLOCKS'].split()
    assert facts['UARTS'] == '3'
    # A TPM 2.0 puts its ACPI table in the guest whatever the model.
    assert 'TPM2' in facts['ACPI'].split()
    dom = domain(drv, a)
    assert dom.find('devices/rng/rate').get('bytes') == '4096'
    assert dom.find('devices/watchdog').get('action') == 'reset'
    assert {(i.get('type'), i.get('bus')) for i in dom.iterfind('devices/input')} >= {
        ('tablet', 'virtio'), ('keyboard', 'virtio')}
    assert dom.find('features/pmu').get('state') == 'off'
    assert dom.find("devices/disk[@device='disk']/driver").get('packed') == 'on'


def test_uefi_without_secure_boot_boots_an_unsigned_kernel(drv, guests):
    b, facts = guests['b']
    assert facts['EFI'] == 'yes'
    # The Intel IOMMU's DMAR table reaches the guest.
    assert 'DMAR' in facts['ACPI'].split()
    loader = domain(drv, b).find('os/loader')
    assert loader.get('secure') == 'no' and 'secboot' not in loader.text
    assert domain(drv, b).find('features/smm') is None


def test_vtpm_state_lives_in_the_instance_directory(drv, guests):
    a, _facts = guests['a']
    state = vtpm.state_dir(drv.core.instance_dir(a))
    assert any(name.startswith('tpm2') for name in _walk(state))
    # Power cycles keep it; the definition is redone without losing it.
    drv.power_off(a)
    drv.power_on(None, a, None)
    assert any(name.endswith('.permall') for name in _walk(state))


def test_vtpm_state_stays_through_a_rescue(drv, guests):
    """The rescue domain keeps the vTPM on the same state; unrescue hands it back."""
    a, _facts = guests['a']
    state = vtpm.state_dir(drv.core.instance_dir(a))
    before = _permall(state)
    assert before, 'no vTPM state before the rescue'
    drv.rescue(None, a, None, image_meta(hw_rescue_bus='usb', hw_rescue_device='disk'),
               'secret')
    assert drv.is_rescued(a)
    assert domain(drv, a).find('devices/tpm/backend').get('type') == 'emulator'
    assert set(_permall(state)) == set(before)
    drv.unrescue(None, a)
    assert not drv.is_rescued(a)
    assert domain(drv, a).find('devices/tpm') is not None
    assert set(_permall(state)) == set(before)


def _walk(path):
    """Every file and directory name under ``path``."""
    return [name for _dirpath, dirs, files in os.walk(path) for name in dirs + files]


def test_vtpm_state_follows_a_cold_migration_and_goes_on_delete(drv, guests):
    """The guest moves to a second host's instance directory (same libvirtd): its vTPM
    state is the one it left with, swtpm runs on the copy, and a delete removes it."""
    a, _facts = guests['a']
    state2 = tempfile.mkdtemp(prefix='nova-breadth-dest-', dir='/var/tmp')
    os.chmod(state2, 0o711)
    conf = fx.make_conf(state2, uri=fx.QEMU_URI, virt_type='qemu')
    conf.set_override('enabled', False, group='vnc')
    conf.set_override('swtpm_enabled', True, group='libvirt')
    dest = libvirt_driver.LibvirtDriver(conf, fx.file_fetcher(drv.test_images),
                                        shutdown_poll_interval=0.05)
    dest.init_host('testhost2')
    try:
        drv.migrate_disk_and_power_off(None, a, a.flavor, keep_for_another_host=True)
        moved = drv.moved_instance_dir(a)
        before = _permall(vtpm.state_dir(moved))
        assert before, 'no vTPM state left the source'
        dest.receive_instance_files(None, a, moved)
        dest.finish_migration(None, a, image_meta(**DEVICES), power_on=True)
        link = os.path.join(vtpm.SWTPM_DIR, a.uuid)
        assert os.readlink(link) == vtpm.state_dir(dest.core.instance_dir(a))
        # swtpm opened the copy: the guest runs with the state it left with.
        assert dest.get_info(a).state == 1
        assert domain(dest, a).find('devices/tpm') is not None
        dest.power_off(a)
        after = _permall(vtpm.state_dir(dest.core.instance_dir(a)))
        assert set(after) == set(before)
        drv.confirm_migration(None, None, a, another_host=True)
        assert not os.path.exists(moved)
        dest.destroy(None, a)
        assert not os.path.exists(dest.core.instance_dir(a))
        assert not os.path.lexists(link)
    finally:
        dest.cleanup_host('testhost2')
        shutil.rmtree(state2, ignore_errors=True)


def _permall(path):
    """{name: size} of the TPM's permanent state files under ``path``."""
    return {name: os.path.getsize(os.path.join(dirpath, name))
            for dirpath, _dirs, files in os.walk(path) for name in files
            if name.endswith('.permall')}
