"""Image properties and flavor extra specs -> guest XML, checked against literal snippets."""

import textwrap
import types

import libvirt
import pytest

from nova import exception
from nova.objects import image_meta as image_meta_obj
from nova.tests.fixtures import libvirt as fx
from nova.virt import guest_request
from nova.virt import numa_fit as fit
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import config_base, guest_config
from nova.virt.libvirt import guestfeatures as gf

SETTINGS = types.SimpleNamespace(domain_type='qemu', arch='x86_64')

# Two host NUMA nodes of two cores x two threads, 2 MiB and 1 GiB pages.
SMT_HOST = gf.HostInfo(cells=(
    fit.HostCell(0, frozenset({0, 1, 4, 5}), 8 * 1024 * 1024,
                ((4, 2097152), (2048, 1024), (1048576, 0)),
                (frozenset({0, 4}), frozenset({1, 5}))),
    fit.HostCell(1, frozenset({2, 3, 6, 7}), 8 * 1024 * 1024,
                ((4, 2097152), (2048, 1024), (1048576, 2)),
                (frozenset({2, 6}), frozenset({3, 7}))),
))
# This machine's shape: one node, two cores, no huge pages.
TWO_CORE_HOST = gf.HostInfo(cells=(
    fit.HostCell(0, frozenset({0, 1}), 4 * 1024 * 1024,
                ((4, 1048576), (2048, 0)),
                (frozenset({0}), frozenset({1}))),
))


def snippet(text):
    return textwrap.dedent(text).strip()


def make_guest(vcpus, memory_mb):
    return vconfig.GuestDomain(virt_type='qemu', name='instance-1',
                         uuid='9b5b5a56-3a7e-4e38-8a7e-5b0d6f3c2a11',
                         memory_kib=memory_mb * 1024, vcpus=vcpus,
                         os=vconfig.GuestOS(type='hvm', arch='x86_64'))


def build(vcpus=2, memory_mb=1024, specs=None, host=None, guest=None,
          **image):
    """apply() to a bare guest; returns the <domain> element."""
    flavor = fx.make_flavor(vcpus=vcpus, memory_mb=memory_mb,
                            extra_specs=specs or {})
    instance = fx.make_instance(flavor=flavor)
    guest = guest or make_guest(vcpus, memory_mb)
    gf.apply(guest, SETTINGS, instance, fx.make_image_meta(**image), host)
    return guest.format_dom()


def part(dom, path):
    """Pretty XML of one element of the domain, or None if absent."""
    elem = dom.find(path)
    if elem is None:
        return None
    elem.tail = None
    return config_base.to_text(elem).strip()


# ------------------------------------------------------- nothing asked for

def test_no_properties_change_nothing():
    plain = make_guest(2, 1024).to_xml()
    dom = build()
    assert config_base.to_text(dom) == plain
    for path in ('cpu', 'numatune', 'cputune', 'memoryBacking',
                 'devices/video', 'os/bootmenu'):
        assert dom.find(path) is None


# -------------------------------------------------------------------- NUMA

def test_numa_nodes_without_host_facts_give_guest_cells_only():
    dom = build(4, 2048, hw_numa_nodes='2')
    assert part(dom, 'cpu') == snippet('''
        <cpu>
          <numa>
            <cell id="0" cpus="0-1" memory="1048576" unit="KiB"/>
            <cell id="1" cpus="2-3" memory="1048576" unit="KiB"/>
          </numa>
        </cpu>''')
    assert dom.find('numatune') is None and dom.find('cputune') is None


def test_numa_nodes_on_a_numa_host_bind_memory_and_float_vcpus():
    dom = build(4, 2048, host=SMT_HOST, hw_numa_nodes='2')
    assert part(dom, 'numatune') == snippet('''
        <numatune>
          <memory mode="strict" nodeset="0-1"/>
          <memnode cellid="0" mode="strict" nodeset="0"/>
          <memnode cellid="1" mode="strict" nodeset="1"/>
        </numatune>''')
    assert part(dom, 'cputune') == snippet('''
        <cputune>
          <vcpupin vcpu="0" cpuset="0-1,4-5"/>
          <vcpupin vcpu="1" cpuset="0-1,4-5"/>
          <vcpupin vcpu="2" cpuset="2-3,6-7"/>
          <vcpupin vcpu="3" cpuset="2-3,6-7"/>
          <emulatorpin cpuset="0-7"/>
        </cputune>''')
    # Shared vCPUs: no guest topology forced.
    assert dom.find('cpu/topology') is None


def test_manual_numa_cells():
    dom = build(3, 1024, hw_numa_nodes='2', **{
        'hw_numa_cpus.0': '0', 'hw_numa_cpus.1': '1-2',
        'hw_numa_mem.0': '256', 'hw_numa_mem.1': '768'})
    assert part(dom, 'cpu/numa') == snippet('''
        <numa>
          <cell id="0" cpus="0" memory="262144" unit="KiB"/>
          <cell id="1" cpus="1-2" memory="786432" unit="KiB"/>
        </numa>''')


def test_boot_time_override_replaces_the_image_value():
    image = {'hw_numa_nodes': '1', 'hw_video_model': 'vga'}
    override = {'hw_numa_nodes': '2'}
    # What the compute manager records: the image's properties with the
    # override on top.
    merged = dict(image, **image_meta_obj.normalize_props(override))
    without = build(2, 1024, **image)
    with_override = build(2, 1024, **merged)
    assert len(without.findall('cpu/numa/cell')) == 1
    assert len(with_override.findall('cpu/numa/cell')) == 2
    assert part(with_override, 'devices/video') == part(without,
                                                         'devices/video')


def test_existing_cpu_element_is_extended_not_replaced():
    guest = make_guest(2, 1024)
    guest.cpu = vconfig.GuestCPU(mode='host-model')
    dom = build(2, 1024, guest=guest, hw_numa_nodes='1')
    assert part(dom, 'cpu') == snippet('''
        <cpu mode="host-model">
          <numa>
            <cell id="0" cpus="0-1" memory="1048576" unit="KiB"/>
          </numa>
        </cpu>''')


# -------------------------------------------------------------- huge pages

def test_huge_pages_with_an_explicit_size_need_no_host_facts():
    dom = build(2, 1024, {'hw:mem_page_size': 'large'},
                hw_mem_page_size='2048')
    assert part(dom, 'memoryBacking') == snippet('''
        <memoryBacking>
          <hugepages>
            <page size="2048" unit="KiB" nodeset="0"/>
          </hugepages>
        </memoryBacking>''')
    # Huge pages are per NUMA node, so the guest gets one node.
    assert part(dom, 'cpu/numa') == snippet('''
        <numa>
          <cell id="0" cpus="0-1" memory="1048576" unit="KiB"/>
        </numa>''')


def test_huge_pages_per_guest_node_on_the_host():
    dom = build(2, 2048, {'hw:mem_page_size': 'large'}, host=SMT_HOST,
                hw_numa_nodes='2')
    # Each guest node takes the largest pages its host node has: 1 GiB
    # pages exist only on host node 1.
    assert part(dom, 'memoryBacking') == snippet('''
        <memoryBacking>
          <hugepages>
            <page size="2048" unit="KiB" nodeset="0"/>
            <page size="1048576" unit="KiB" nodeset="1"/>
          </hugepages>
        </memoryBacking>''')
    assert part(dom, 'numatune') == snippet('''
        <numatune>
          <memory mode="strict" nodeset="0-1"/>
          <memnode cellid="0" mode="strict" nodeset="0"/>
          <memnode cellid="1" mode="strict" nodeset="1"/>
        </numatune>''')


def test_small_pages_and_any_without_huge_pages_add_nothing():
    for size in ('small', 'any'):
        dom = build(2, 1024, {'hw:mem_page_size': size}, host=TWO_CORE_HOST)
        assert dom.find('memoryBacking') is None


def test_huge_pages_missing_on_the_host():
    with pytest.raises(exception.Invalid,
                       match=r'not enough 2048 KiB pages for 1024 MiB '
                             r'\(pages on the host node: 2048 KiB: 0\)'):
        build(2, 1024, {'hw:mem_page_size': '2MB'}, host=TWO_CORE_HOST)


def test_large_pages_without_host_facts():
    with pytest.raises(exception.HypervisorError,
                       match='hw_mem_page_size=large needs the host'):
        build(2, 1024, {'hw:mem_page_size': 'large'})


# ------------------------------------------------------------- CPU pinning

def test_dedicated_cpus_are_pinned_with_emulator_and_topology():
    dom = build(2, 1024, {'hw:cpu_policy': 'dedicated'}, host=TWO_CORE_HOST)
    assert part(dom, 'cputune') == snippet('''
        <cputune>
          <vcpupin vcpu="0" cpuset="0"/>
          <vcpupin vcpu="1" cpuset="1"/>
          <emulatorpin cpuset="0-1"/>
        </cputune>''')
    assert part(dom, 'cpu') == snippet('''
        <cpu>
          <topology sockets="1" cores="2" threads="1"/>
          <numa>
            <cell id="0" cpus="0-1" memory="1048576" unit="KiB"/>
          </numa>
        </cpu>''')


def test_dedicated_image_request_on_a_two_core_host_that_cannot_fit():
    with pytest.raises(exception.Invalid,
                       match=r'guest NUMA node 0 \(3 vCPU\(s\), 1024 MiB, '
                             r'pinned, thread policy prefer\) fits on no host '
                             r'NUMA node: host node 0: 3 pinned vCPU\(s\) '
                             r'need as many free host CPUs, there are 2'):
        build(3, 1024, host=TWO_CORE_HOST, hw_cpu_policy='dedicated')


def test_dedicated_without_host_facts():
    with pytest.raises(exception.HypervisorError,
                       match='hw_cpu_policy=dedicated needs the host'):
        build(2, 1024, hw_cpu_policy='dedicated')


def test_thread_require_shows_host_siblings_as_guest_threads():
    dom = build(4, 2048, {'hw:cpu_policy': 'dedicated'}, host=SMT_HOST,
                hw_cpu_thread_policy='require', hw_numa_nodes='2')
    assert part(dom, 'cputune') == snippet('''
        <cputune>
          <vcpupin vcpu="0" cpuset="0"/>
          <vcpupin vcpu="1" cpuset="4"/>
          <vcpupin vcpu="2" cpuset="2"/>
          <vcpupin vcpu="3" cpuset="6"/>
          <emulatorpin cpuset="0,2,4,6"/>
        </cputune>''')
    assert part(dom, 'cpu/topology') == \
        '<topology sockets="2" cores="1" threads="2"/>'


def test_thread_isolate_leaves_siblings_idle():
    dom = build(2, 1024, {'hw:cpu_policy': 'dedicated',
                          'hw:cpu_thread_policy': 'isolate'}, host=SMT_HOST)
    assert [p.get('cpuset') for p in dom.findall('cputune/vcpupin')] == \
        ['0', '1']


def test_uneven_manual_cells_get_no_forced_topology():
    dom = build(3, 1024, {'hw:cpu_policy': 'dedicated'}, host=SMT_HOST,
                hw_numa_nodes='2', **{
                    'hw_numa_cpus.0': '0', 'hw_numa_cpus.1': '1-2',
                    'hw_numa_mem.0': '512', 'hw_numa_mem.1': '512'})
    assert dom.find('cpu/topology') is None
    assert len(dom.findall('cputune/vcpupin')) == 3


# ------------------------------------------------------- video, boot menu

def test_video_model():
    dom = build(hw_video_model='qxl')
    assert part(dom, 'devices/video') == snippet('''
        <video>
          <model type="qxl"/>
        </video>''')


def test_video_ram_within_the_flavor_limit():
    dom = build(specs={'hw_video:ram_max_mb': '64'}, hw_video_model='vga',
                hw_video_ram='16')
    assert part(dom, 'devices/video/model') == \
        '<model type="vga" vram="16384"/>'
    # RAM without a model gets the default model.
    dom = build(specs={'hw_video:ram_max_mb': '64'}, hw_video_ram='8')
    assert part(dom, 'devices/video/model') == \
        '<model type="virtio" vram="8192"/>'


def test_video_none_is_a_headless_guest():
    dom = build(hw_video_model='none')
    assert part(dom, 'devices/video/model') == '<model type="none"/>'


def test_video_ram_over_the_flavor_limit():
    with pytest.raises(exception.Invalid,
                       match=r"hw_video_ram=128 MiB exceeds the flavor's "
                             r"hw_video:ram_max_mb=64"):
        build(specs={'hw_video:ram_max_mb': '64'}, hw_video_ram='128')
    with pytest.raises(exception.Invalid,
                       match=r"hw_video:ram_max_mb=\(unset, i.e. 0\)"):
        build(hw_video_ram='8')


def test_video_model_the_host_does_not_offer():
    host = gf.HostInfo(video_models=frozenset({'vga', 'virtio'}))
    with pytest.raises(exception.Invalid,
                       match=r'hw_video_model=xen is not supported by this '
                             r'host \(it offers: vga, virtio\)'):
        build(host=host, hw_video_model='xen')
    dom = build(host=host, hw_video_model='vga')
    assert dom.find('devices/video/model').get('type') == 'vga'


def test_an_existing_video_device_is_reshaped_not_doubled():
    guest = make_guest(2, 1024)
    guest.devices = [vconfig.GuestVideo(model='cirrus')]
    dom = build(guest=guest, hw_video_model='bochs')
    assert [v.get('type') for v in dom.findall('devices/video/model')] == \
        ['bochs']


@pytest.mark.parametrize('specs, image, expected', [
    ({}, {'hw_boot_menu': 'true'}, 'yes'),
    ({'hw:boot_menu': 'yes'}, {}, 'yes'),
    ({'hw:boot_menu': 'true'}, {'hw_boot_menu': 'false'}, 'no'),
    ({'hw:boot_menu': 'no'}, {}, 'no'),
    ({}, {}, None),
])
def test_boot_menu(specs, image, expected):
    dom = build(specs=specs, **image)
    elem = dom.find('os/bootmenu')
    assert (elem.get('enable') if elem is not None else None) == expected


def test_bad_flavor_boot_menu():
    with pytest.raises(exception.Invalid,
                       match="hw:boot_menu='maybe' must be a boolean"):
        build(specs={'hw:boot_menu': 'maybe'})


def test_lxc_guests_get_nothing():
    guest = make_guest(2, 1024)
    instance = fx.make_instance(flavor=fx.make_flavor(vcpus=2,
                                                      memory_mb=1024))
    gf.apply(guest, types.SimpleNamespace(domain_type='lxc'), instance,
             fx.make_image_meta(hw_numa_nodes='2', hw_video_model='vga'))
    assert guest.cpu is None and guest.devices == ()


# ------------------------------------------------ validation for the API

API_FLAVOR = {'vcpus': 2, 'memory_mb': 1024, 'extra_specs': {}}


def flavor_with(**specs):
    return dict(API_FLAVOR, extra_specs={k.replace('__', ':'): v
                                         for k, v in specs.items()})


def test_validate_image_request_returns_the_request():
    request = guest_request.validate_image_request(
        flavor_with(hw__mem_page_size='any', hw__boot_menu='yes'),
        {'hw_numa_nodes': '2', 'hw_mem_page_size': '2MB',
         'hw_video_model': 'virtio'})
    assert request.topology.page_size == 2048
    assert [sorted(c.cpus) for c in request.topology.cells] == [[0], [1]]
    assert request.boot_menu is True
    assert request.video_model == 'virtio'
    empty = guest_request.validate_image_request(API_FLAVOR, {})
    assert empty.topology.cells == () and empty.boot_menu is None


def test_validate_accepts_objects_too():
    flavor = fx.make_flavor(vcpus=2, memory_mb=1024)
    props = image_meta_obj.ImageMetaProps.from_dict({'hw_numa_nodes': '2'})
    assert len(guest_request.validate_image_request(flavor, props).topology.cells) == 2


@pytest.mark.parametrize('specs, props, message', [
    ({}, {'hw_mem_page_size': 'large'},
     "hw_mem_page_size=large needs a flavor that allows it"),
    ({'hw:mem_page_size': 'small'}, {'hw_mem_page_size': '1GB'},
     "hw_mem_page_size=1GB conflicts with the flavor's "
     "hw:mem_page_size=small"),
    ({'hw:cpu_policy': 'shared'}, {'hw_cpu_policy': 'dedicated'},
     "hw_cpu_policy=dedicated conflicts with the flavor's "
     "hw:cpu_policy=shared"),
    ({}, {'hw_cpu_thread_policy': 'require'},
     'hw_cpu_thread_policy=require only applies to guests with '
     'hw_cpu_policy=dedicated'),
    ({}, {'hw_numa_nodes': '3'},
     '3 NUMA nodes requested but the flavor has only 2 vCPU'),
    ({}, {'hw_numa_nodes': '2', 'hw_numa_cpus.0': '0', 'hw_numa_cpus.1': '1',
          'hw_numa_mem.0': '512', 'hw_numa_mem.1': '256'},
     'hw_numa_mem.N add up to 768 MiB but the flavor has 1024 MiB'),
    ({}, {'hw_numa_nodes': '2', 'hw_numa_cpus.0': '0', 'hw_numa_cpus.1': '0',
          'hw_numa_mem.0': '512', 'hw_numa_mem.1': '512'},
     'vCPU 0 is in both hw_numa_cpus.0 and hw_numa_cpus.1'),
    ({'hw:numa_nodes': '1'}, {'hw_numa_nodes': '2'},
     "hw_numa_nodes=2 conflicts with the flavor's hw:numa_nodes=1"),
    ({}, {'hw_video_ram': '64'}, "hw_video_ram=64 MiB exceeds the flavor's"),
    ({}, {'hw_numa_nodes': 'two'},
     'Invalid image property hw_numa_nodes=two: must be an integer'),
    ({}, {'hw_cpu_policy': 'pinned'}, 'Invalid image property hw_cpu_policy'),
])
def test_validate_image_request_rejects(specs, props, message):
    flavor = dict(API_FLAVOR, extra_specs=specs)
    with pytest.raises(exception.Invalid) as info:
        guest_request.validate_image_request(flavor, props)
    assert message in info.value.format_message()
    assert info.value.code == 400


# ---------------------------------------------------------- host facts

CAPS = '''<capabilities><host><cpu><arch>x86_64</arch></cpu><topology>
  <cells num='2'>
    <cell id='0'>
      <memory unit='KiB'>2097152</memory>
      <pages unit='KiB' size='4'>524288</pages>
      <pages unit='KiB' size='2048'>16</pages>
      <cpus num='2'>
        <cpu id='0' socket_id='0' core_id='0' siblings='0,2'/>
        <cpu id='2' socket_id='0' core_id='0' siblings='0,2'/>
      </cpus>
    </cell>
    <cell id='1'>
      <memory unit='KiB'>1048576</memory>
      <pages unit='KiB' size='4'>262144</pages>
      <cpus num='2'>
        <cpu id='1' socket_id='1' core_id='0' siblings='1'/>
        <cpu id='3' socket_id='1' core_id='1' siblings='3'/>
      </cpus>
    </cell>
  </cells></topology></host></capabilities>'''

DOMCAPS = '''<domainCapabilities><devices><video supported='yes'>
  <enum name='modelType'><value>vga</value><value>virtio</value></enum>
</video></devices></domainCapabilities>'''


def test_host_info_from_capabilities():
    info = gf.host_info_from_capabilities(CAPS, DOMCAPS, pinned_cpus={3},
                                          free_pages={0: {2048: 4}})
    assert info.cells == (
        fit.HostCell(0, frozenset({0, 2}), 2097152, ((4, 524288), (2048, 4)),
                    (frozenset({0, 2}),)),
        fit.HostCell(1, frozenset({1, 3}), 1048576, ((4, 262144),),
                    (frozenset({1}), frozenset({3}))),
    )
    assert info.pinned_cpus == {3}
    assert info.video_models == {'vga', 'virtio'}
    assert gf.host_info_from_capabilities(CAPS).video_models is None
    assert gf.video_models_from_domain_caps(
        '<domainCapabilities/>') is None


def test_pinned_host_cpus_counts_only_exclusive_pins():
    dedicated = ("<domain><cputune><vcpupin vcpu='0' cpuset='3'/>"
                 "<vcpupin vcpu='1' cpuset='5'/></cputune></domain>")
    shared = ("<domain><cputune><vcpupin vcpu='0' cpuset='0-7'/>"
              "</cputune></domain>")
    assert gf.pinned_host_cpus([dedicated, shared, '<domain/>']) == {3, 5}


def test_libvirt_test_driver_capabilities_parse():
    conn = libvirt.open('test:///default')
    try:
        info = gf.host_info_from_capabilities(conn.getCapabilities())
    finally:
        conn.close()
    assert [len(c.cpus) for c in info.cells] == [8, 8]


# ----------------------------- the whole domain, through the driver

def driver_xml(vcpus=2, memory_mb=1024, specs=None, domain_type='qemu',
               boot_files=None, **image):
    settings = guest_config.GuestSettings(
        domain_type=domain_type, arch='x86_64', instances_path='/srv/inst',
        machine_types=(('x86_64', 'pc'),))
    flavor = fx.make_flavor(vcpus=vcpus, memory_mb=memory_mb,
                            extra_specs=specs or {})
    instance = fx.make_instance(flavor=flavor)
    # A real ImageMeta, as the compute manager builds from system metadata
    # (aliases such as hw_os_command_line resolved, values typed).
    meta = image_meta_obj.ImageMeta.from_dict(
        {'id': 'image-1', 'disk_format': 'raw', 'properties': image})
    # The disk mapping follows [libvirt]virt_type, never 'test'.
    mapping = guest_config.get_disk_mapping('qemu', settings, instance,
                                              meta)
    if boot_files == 'kernel':
        boot_files = guest_config.BootFiles(
            kernel='/k', ramdisk='/r',
            cmdline=guest_config.kernel_cmdline(meta.properties, mapping))
    guest = guest_config.get_guest_config(settings, instance, meta,
                                            mapping, boot_files)
    return guest.format_dom()


def test_driver_applies_guest_features():
    dom = driver_xml(4, 2048, hw_numa_nodes='2', hw_boot_menu='yes',
                     hw_video_model='virtio')
    assert len(dom.findall('cpu/numa/cell')) == 2
    assert dom.find('os/bootmenu').get('enable') == 'yes'
    assert dom.find('devices/video/model').get('type') == 'virtio'


def test_driver_firmware_type():
    uefi = driver_xml(hw_firmware_type='uefi')
    assert uefi.find('os').get('firmware') == 'efi'
    for dom in (driver_xml(hw_firmware_type='bios'), driver_xml()):
        assert dom.find('os').get('firmware') is None
        assert dom.find('os/loader') is None


def test_driver_machine_type_image_over_config():
    assert part(driver_xml(hw_machine_type='q35'), 'os/type') == \
        '<type arch="x86_64" machine="q35">hvm</type>'
    assert part(driver_xml(), 'os/type') == \
        '<type arch="x86_64" machine="pc">hvm</type>'
    # libvirt's test driver knows no machine types.
    assert driver_xml(domain_type='test', hw_machine_type='q35').find(
        'os/type').get('machine') is None


@pytest.mark.parametrize('image, expected', [
    ({'os_command_line': 'console=ttyS0 nova.x=1'}, 'console=ttyS0 nova.x=1'),
    # The boot-time override spec's alias.
    ({'hw_os_command_line': 'quiet'}, 'quiet'),
    ({}, 'root=/dev/vda console=tty0 console=ttyS0 console=hvc0'),
])
def test_driver_kernel_command_line(image, expected):
    dom = driver_xml(boot_files='kernel', **image)
    assert dom.findtext('os/cmdline') == expected
    assert dom.findtext('os/kernel') == '/k'


# ----------------------------- libvirt's schema accepts what we produce

@pytest.mark.parametrize('image, specs, host', [
    ({'hw_numa_nodes': '2', 'hw_video_model': 'vga', 'hw_boot_menu': 'yes'},
     {}, SMT_HOST),
    ({'hw_mem_page_size': '2048'}, {'hw:mem_page_size': 'any',
                                    'hw:cpu_policy': 'dedicated'}, SMT_HOST),
    ({'hw_cpu_thread_policy': 'require', 'hw_numa_nodes': '2'},
     {'hw:cpu_policy': 'dedicated'}, SMT_HOST),
    ({'hw_video_model': 'none'}, {}, None),
])
def test_generated_xml_passes_libvirt_schema_validation(image, specs, host):
    guest = make_guest(4, 2048)
    guest.virt_type = 'test'
    build(4, 2048, specs, host=host, guest=guest, **image)
    conn = libvirt.open('test:///default')
    try:
        dom = conn.defineXMLFlags(guest.to_xml(),
                                  libvirt.VIR_DOMAIN_DEFINE_VALIDATE)
        dom.undefine()
    finally:
        conn.close()


def test_video_ram_alone_keeps_the_spice_qxl_card():
    guest = make_guest(2, 1024)
    guest.devices = [vconfig.GuestVideo(model='qxl')]
    dom = build(guest=guest, specs={'hw_video:ram_max_mb': '64'}, hw_video_ram='8')
    assert [part(v, 'model') for v in dom.findall('devices/video')] == \
        ['<model type="qxl" vram="8192"/>']
