"""Image properties and flavor extra specs proven in real QEMU (TCG) guests the driver boots."""

import dataclasses
import os
import time

import libvirt
import pytest
from lxml import etree

from nova import exception, power_state
from nova.objects import image_meta as image_meta_obj
from nova.tests.fixtures import bootimg, kernelguest
from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import config_base, driver_consoles, guest_config, guestfeatures
from nova.virt.libvirt import driver as libvirt_driver

pytestmark = fx.requires_libvirtd()

# Under TCG a kernel reaches /init in ~8 s; leave room for a busy host.
KERNEL_BOOT_TIMEOUT = 90
CMDLINE_A = 'console=ttyS0 quiet nova.test=alpha'
CMDLINE_B = 'console=ttyS0 quiet panic=-1 nova.test=beta'
CMDLINE_C = 'console=ttyS0 quiet nova.test=hugepages'
HUGEPAGE_KIB = 2048
HUGEPAGES_SYSFS = '/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages'


# ---------------------------------------------------------------- helpers

def image_meta(**props):
    """A real ImageMeta, as the compute manager builds from system metadata
    after applying boot-time overrides."""
    return image_meta_obj.ImageMeta.from_dict(
        {'id': 'image-1', 'disk_format': 'raw', 'properties': props})


def kernel_instance(vcpus=1, memory_mb=128, extra_specs=None):
    # kernel_id/ramdisk_id live on the instance, as the API copies them
    # from the image when the server is created.
    return fx.make_instance(
        flavor=fx.make_flavor(vcpus=vcpus, memory_mb=memory_mb,
                              extra_specs=extra_specs),
        kernel_id='kernel-1', ramdisk_id='ramdisk-1')


def host_info_of(drv):
    """Host facts from the live libvirtd, the way the driver should read them."""
    conn = drv.host.get_connection()
    domcaps = conn.getDomainCapabilities(None, None, None, 'qemu', 0)
    running = [g.get_xml_desc() for g in drv.host.list_guests(True)]
    return guestfeatures.host_info_from_capabilities(
        conn.getCapabilities(), domcaps,
        pinned_cpus=guestfeatures.pinned_host_cpus(running))


def with_host_info(drv, host_info):
    """Make ``drv`` pass ``host_info`` to guestfeatures.apply().

    The driver reads ``settings.host_info``; until GuestSettings carries it,
    a frozen subclass adds the field.
    """
    settings = drv.core.settings
    if 'host_info' in {f.name for f in dataclasses.fields(settings)}:
        drv.core._settings = dataclasses.replace(settings, host_info=host_info)
        return
    cls = dataclasses.make_dataclass(
        'SettingsWithHostInfo',
        [('host_info', object, dataclasses.field(default=None))],
        bases=(type(settings),), frozen=True)
    drv.core._settings = cls(**{f.name: getattr(settings, f.name)
                           for f in dataclasses.fields(settings)},
                        host_info=host_info)


def wait_for_report(drv, instance, timeout=KERNEL_BOOT_TIMEOUT):
    path = drv.core.console_log_path(instance)
    deadline = time.monotonic() + timeout
    while True:
        text = driver_consoles.read_tail(path, 1 << 20).decode(
            'utf-8', 'replace')
        if kernelguest.DONE_MARKER in text:
            return kernelguest.parse_report(text)
        if time.monotonic() > deadline:
            raise AssertionError('no %s on the serial console after %ss:\n%s'
                                 % (kernelguest.DONE_MARKER, timeout,
                                    text[-2000:]))
        time.sleep(0.1)


def live_xml(drv, instance):
    """What `virsh dumpxml` shows for the running domain."""
    return etree.fromstring(
        drv.host.get_guest(instance.uuid).get_xml_desc().encode())


def qemu_argv(drv, instance):
    """What `virsh domxml-to-native qemu-argv` makes of the domain."""
    conn = drv.host.get_connection()
    xml = drv.host.get_guest(instance.uuid).get_xml_desc(inactive=True)
    return conn.domainXMLToNative('qemu-argv', xml, 0)


# --------------------------------------------------------------- fixtures

@pytest.fixture(scope='module')
def images(tmp_path_factory):
    """Image id -> local file, what the driver's image fetcher serves."""
    root = bootimg.write_boot_image(
        str(tmp_path_factory.mktemp('images') / 'root.raw'), 'ROOT\r\n')
    return {'image-1': root}


@pytest.fixture(scope='module')
def boot_files(tmp_path_factory, images):
    """Kernel and initrd images; only the kernel boots skip without them."""
    try:
        kernel, busybox = kernelguest.fetch()
    except kernelguest.KernelUnavailable as exc:
        pytest.skip('no test kernel: %s' % exc)
    initrd = kernelguest.write_initrd(
        str(tmp_path_factory.mktemp('initrd') / 'initrd.gz'), busybox)
    images.update({'kernel-1': kernel, 'ramdisk-1': initrd})
    return kernel, initrd


@pytest.fixture(scope='module')
def drv(tmp_path_factory, images):
    tmp = tmp_path_factory.mktemp('guestfeatures')
    conf = fx.make_conf(tmp / 'state', uri=fx.QEMU_URI, virt_type='qemu')
    # Devices as the image asks for them, without the VNC console's graphics
    # (and the video device libvirt then adds); consoles have tests of their own.
    conf.set_override('enabled', False, group='vnc')
    # The fetcher reads ``images`` when called: boot_files adds to it.
    drv = libvirt_driver.LibvirtDriver(conf, fx.file_fetcher(images),
                                       shutdown_poll_interval=0.05)
    drv.init_host('testhost')
    with_host_info(drv, host_info_of(drv))
    yield drv
    drv.cleanup_host('testhost')


@pytest.fixture
def cleanup(drv):
    """Instances to destroy after the test, whatever happened."""
    instances = []
    yield instances
    for instance in instances:
        drv.destroy(None, instance)


@pytest.fixture(scope='module')
def kernel_guests(drv, boot_files):
    """Two kernel boots run side by side (TCG is the slow part):
    A: two NUMA nodes, command line A; B: no NUMA, command line B."""
    a = kernel_instance(vcpus=2, memory_mb=256)
    b = kernel_instance(vcpus=1, memory_mb=128)
    guests = {
        'a': (a, image_meta(os_command_line=CMDLINE_A, hw_numa_nodes='2')),
        # The spec's boot-time override alias, as stored after merging.
        'b': (b, image_meta(hw_os_command_line=CMDLINE_B)),
    }
    try:
        start = time.monotonic()
        for instance, meta in guests.values():
            drv.spawn(None, instance, meta, [], None, {})
        reports = {key: wait_for_report(drv, instance)
                   for key, (instance, _) in guests.items()}
        print('two kernel guests reported in %.1fs'
              % (time.monotonic() - start))
        yield {key: (guests[key][0], reports[key]) for key in guests}
    finally:
        for instance, _ in guests.values():
            drv.destroy(None, instance)


# ----------------------------------------------------- real kernel boots

def test_os_command_line_reaches_the_guest_verbatim(drv, kernel_guests):
    a, report_a = kernel_guests['a']
    b, report_b = kernel_guests['b']
    assert report_a['CMDLINE'] == CMDLINE_A
    assert report_b['CMDLINE'] == CMDLINE_B
    assert live_xml(drv, a).findtext('os/cmdline') == CMDLINE_A
    assert live_xml(drv, b).findtext('os/cmdline') == CMDLINE_B


def test_numa_nodes_seen_by_the_guest_kernel(drv, kernel_guests):
    a, report_a = kernel_guests['a']
    b, report_b = kernel_guests['b']
    assert report_a['NODES'] == ['node0', 'node1']
    assert report_a['CPUS'] == 2
    assert report_b['NODES'] == ['node0']
    cells = live_xml(drv, a).findall('cpu/numa/cell')
    assert [(c.get('id'), c.get('cpus'), c.get('memory')) for c in cells] \
        == [('0', '0', '131072'), ('1', '1', '131072')]
    assert live_xml(drv, b).find('cpu/numa') is None
    # `poweroff -f` in /init: the guests stopped by themselves.
    for instance in (a, b):
        deadline = time.monotonic() + 10
        while drv.get_info(instance).state != power_state.SHUTDOWN:
            assert time.monotonic() < deadline, 'guest did not power off'
            time.sleep(0.1)


def _hugepages_unavailable(host_info, pages_needed):
    """Why this host cannot back a guest with 2 MiB pages, or None."""
    if not os.path.exists(HUGEPAGES_SYSFS):
        return 'the kernel has no 2 MiB huge pages'
    with open(HUGEPAGES_SYSFS) as f:
        free = int(f.read())
    with open('/proc/mounts') as f:
        mounted = any(line.split()[2] == 'hugetlbfs' for line in f)
    if free < pages_needed or not mounted:
        return ('%d free 2 MiB pages (%d needed), hugetlbfs %smounted: run '
                'NOVA_TEST_HUGEPAGES=64 tools/start-libvirtd.sh before '
                'libvirtd starts (libvirt only sees hugetlbfs mounts that '
                'exist when it starts)'
                % (free, pages_needed, '' if mounted else 'not '))
    return None


def test_hugepages_guest(drv, boot_files, cleanup):
    flavor_specs = {'hw:mem_page_size': 'large'}
    instance = kernel_instance(memory_mb=128, extra_specs=flavor_specs)
    meta = image_meta(os_command_line=CMDLINE_C,
                      hw_mem_page_size='%d' % HUGEPAGE_KIB)
    host_info = drv.core.settings.host_info
    pages_needed = 128 * 1024 // HUGEPAGE_KIB

    # The XML, on this host's topology with enough pages in node 0.
    cells = host_info.cells
    rich = dataclasses.replace(host_info, cells=(dataclasses.replace(
        cells[0], pages=((4, 1 << 20), (HUGEPAGE_KIB, pages_needed))),)
        + cells[1:])
    guest = guest_config.get_guest_config(
        dataclasses.replace(drv.core.settings, host_info=rich), instance, meta,
        drv.definition.disk_mapping(instance, meta))
    backing = guest.format_dom().find('memoryBacking')
    assert config_base.to_text(backing.find('hugepages/page'), pretty_print=False) == \
        '<page size="2048" unit="KiB" nodeset="0"/>'

    reason = _hugepages_unavailable(host_info, pages_needed)
    if reason:
        # The real host facts say the same: spawn refuses before QEMU runs.
        with pytest.raises(exception.Invalid, match='not enough 2048 KiB '
                                                    'pages for 128 MiB'):
            drv.spawn(None, instance, meta, [], None, {})
        assert not os.path.exists(drv.core.instance_dir(instance))
        pytest.skip('huge page boot skipped: %s' % reason)

    cleanup.append(instance)
    try:
        drv.spawn(None, instance, meta, [], None, {})
    except exception.HypervisorError as exc:
        if 'hugetlbfs' in str(exc):
            pytest.skip('huge page boot skipped: libvirtd started before '
                        'hugetlbfs was mounted (%s)' % exc)
        raise
    report = wait_for_report(drv, instance)
    assert report['CMDLINE'] == CMDLINE_C
    assert report['NODES'] == ['node0']
    page = live_xml(drv, instance).find('memoryBacking/hugepages/page')
    assert (page.get('size'), page.get('nodeset')) == ('2048', '0')
    assert 'hugepages' in qemu_argv(drv, instance) or \
        'mem-path' in qemu_argv(drv, instance)


# ------------------------------------- live domain XML, no kernel boots

def test_pinning_video_boot_menu_machine_on_a_live_domain(drv, cleanup):
    """Dedicated CPUs on this 2-core host, VGA with 16 MiB, boot menu, pc."""
    instance = fx.make_instance(flavor=fx.make_flavor(
        vcpus=2, memory_mb=128,
        extra_specs={'hw:cpu_policy': 'dedicated',
                     'hw_video:ram_max_mb': '32'}))
    meta = image_meta(hw_video_model='vga', hw_video_ram='16',
                      hw_boot_menu='true', hw_machine_type='pc')
    cleanup.append(instance)
    drv.spawn(None, instance, meta, [], None, {})
    dom = live_xml(drv, instance)

    host_cpus = sorted(cpu for cell in drv.core.settings.host_info.cells
                       for cpu in cell.cpus)
    pins = {int(p.get('vcpu')): p.get('cpuset')
            for p in dom.findall('cputune/vcpupin')}
    if len(host_cpus) >= 2:
        assert pins == {0: str(host_cpus[0]), 1: str(host_cpus[1])}
        # libvirt applied it: each vCPU thread may run on its CPU only.
        _, cpumaps = drv.host.get_domain(instance.uuid).vcpus()
        assert [[i for i, ok in enumerate(m) if ok] for m in cpumaps] == \
            [[host_cpus[0]], [host_cpus[1]]]
    assert dom.find('cputune/emulatorpin') is not None
    assert dom.find('cpu/topology').attrib == {
        'sockets': '1', 'dies': '1', 'cores': '2', 'threads': '1'}
    assert dom.find('numatune/memnode').attrib == {
        'cellid': '0', 'mode': 'strict', 'nodeset': '0'}
    model = dom.find('devices/video/model')
    assert (model.get('type'), model.get('vram')) == ('vga', '16384')
    assert dom.find('os/bootmenu').get('enable') == 'yes'
    assert dom.find('os/type').get('machine').startswith('pc-i440fx')

    argv = qemu_argv(drv, instance)
    assert 'menu=on' in argv
    assert '-machine pc-i440fx' in argv
    # QEMU 7.2 takes -device as JSON.
    assert '"driver":"VGA"' in argv and '"vgamem_mb":16' in argv
    assert '-numa node,nodeid=0,cpus=0-1' in argv


def test_headless_uefi_q35_guest_on_a_live_domain(drv, cleanup):
    instance = fx.make_instance(flavor=fx.make_flavor(vcpus=1,
                                                      memory_mb=128))
    meta = image_meta(hw_video_model='none', hw_firmware_type='uefi',
                      hw_machine_type='q35')
    cleanup.append(instance)
    drv.spawn(None, instance, meta, [], None, {})
    dom = live_xml(drv, instance)
    assert [m.get('type') for m in dom.findall('devices/video/model')] == \
        ['none']
    assert dom.find('devices/graphics') is None
    assert dom.find('os/loader').get('type') == 'pflash'
    assert dom.find('os/type').get('machine').startswith('pc-q35')
    assert drv.get_info(instance).state == power_state.RUNNING
    argv = qemu_argv(drv, instance)
    assert '-machine pc-q35' in argv
    assert '"driver":"VGA"' not in argv and 'virtio-vga' not in argv


def test_no_properties_no_extras_on_a_live_domain(drv, cleanup):
    instance = fx.make_instance(flavor=fx.make_flavor(vcpus=1,
                                                      memory_mb=64))
    cleanup.append(instance)
    drv.spawn(None, instance, image_meta(), [], None, {})
    dom = live_xml(drv, instance)
    for path in ('cputune', 'numatune', 'memoryBacking', 'cpu/numa',
                 'os/bootmenu', 'devices/video'):
        assert dom.find(path) is None, path


def test_requests_the_host_cannot_meet_fail_before_qemu(drv):
    too_many = fx.make_instance(flavor=fx.make_flavor(
        vcpus=len(drv.core.settings.host_info.cells[0].cpus) + 1, memory_mb=64))
    with pytest.raises(exception.Invalid,
                       match='need as many free host CPUs'):
        drv.spawn(None, too_many, image_meta(hw_cpu_policy='dedicated'),
                  [], None, {})
    conflict = fx.make_instance(flavor=fx.make_flavor(
        vcpus=1, memory_mb=64, extra_specs={'hw:cpu_policy': 'shared'}))
    with pytest.raises(exception.Invalid,
                       match="conflicts with the flavor's hw:cpu_policy"):
        drv.spawn(None, conflict, image_meta(hw_cpu_policy='dedicated'),
                  [], None, {})
    for instance in (too_many, conflict):
        with pytest.raises(exception.InstanceNotFound):
            drv.get_info(instance)
        assert not os.path.exists(drv.core.instance_dir(instance))


def test_video_model_outside_domain_capabilities(drv):
    assert 'xen' not in drv.core.settings.host_info.video_models
    instance = fx.make_instance()
    with pytest.raises(exception.Invalid,
                       match='hw_video_model=xen is not supported by this '
                             'host'):
        drv.spawn(None, instance, image_meta(hw_video_model='xen'), [],
                  None, {})


def test_libvirt_accepts_the_xml_with_schema_validation(drv):
    """`virsh define --validate` on a guest using every feature at once."""
    instance = kernel_instance(vcpus=2, memory_mb=256, extra_specs={
        'hw:cpu_policy': 'dedicated', 'hw:mem_page_size': 'any'})
    meta = image_meta(hw_numa_nodes='2', hw_video_model='virtio',
                      hw_boot_menu='yes', os_command_line=CMDLINE_A)
    xml = drv.definition.guest_xml(instance, meta)
    conn = drv.host.get_connection()
    dom = conn.defineXMLFlags(xml, libvirt.VIR_DOMAIN_DEFINE_VALIDATE)
    dom.undefine()
