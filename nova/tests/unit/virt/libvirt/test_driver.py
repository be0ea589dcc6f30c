"""LibvirtDriver against libvirt's in-process test:///default hypervisor."""

import json
import os
import subprocess

import pytest

from nova import exception, power_state
from nova.objects import image_meta as image_meta_obj
from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import driver as libvirt_driver
from nova.virt.libvirt import guest_config, imagebackend


@pytest.fixture
def image(tmp_path):
    return bootimg.write_boot_image(str(tmp_path / 'root.raw'), 'ROOT')


@pytest.fixture
def drv(tmp_path, image):
    conf = fx.make_conf(tmp_path / 'state')
    fetch = fx.file_fetcher({'image-1': image})
    drv = libvirt_driver.LibvirtDriver(conf, fetch, soft_reboot_wait=0.2,
                                       shutdown_poll_interval=0.01)
    drv.init_host('testhost')
    yield drv
    drv.cleanup_host('testhost')


@pytest.fixture
def spawned(drv):
    """A running guest, destroyed afterwards (test:///default is shared
    by the whole process)."""
    instance = fx.make_instance()
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {})
    yield instance
    drv.destroy(None, instance)


def test_spawn_builds_overlay_and_starts_domain(drv, spawned):
    disk = drv.get_instance_disk_path(spawned)
    assert disk == os.path.join(drv.core.instances_path, spawned.uuid, 'disk')
    info = imagebackend.qemu_img_info(disk, 'qcow2')
    assert info['backing-filename'] == drv.image_cache.path_for('image-1')
    assert info['backing-filename-format'] == 'raw'
    assert drv.get_info(spawned).state == power_state.RUNNING
    assert spawned.uuid in drv.list_instance_uuids()
    assert spawned.name in drv.list_instances()
    xml = drv.host.get_guest(spawned.uuid).get_xml_desc()
    assert "<domain type='test'" in xml
    assert "<boot order='1'/>" in xml


def test_destroy_removes_domain_and_directory_idempotently(drv, image):
    instance = fx.make_instance()
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {})
    inst_dir = drv.core.instance_dir(instance)
    assert os.path.isdir(inst_dir)
    drv.destroy(None, instance)
    assert not os.path.exists(inst_dir)
    assert instance.uuid not in drv.list_instance_uuids()
    with pytest.raises(exception.InstanceNotFound):
        drv.get_info(instance)
    assert not drv.instance_exists(instance)
    drv.destroy(None, instance)            # nothing left: still fine
    # The cached base image outlives the instance.
    assert os.path.exists(drv.image_cache.path_for('image-1'))


def test_destroy_can_keep_disks(drv):
    instance = fx.make_instance()
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {})
    drv.destroy(None, instance, destroy_disks=False)
    assert os.path.exists(drv.get_instance_disk_path(instance))
    drv.destroy(None, instance)
    assert not os.path.exists(drv.core.instance_dir(instance))


def test_second_spawn_reuses_cached_image(drv, image):
    fetch = drv.image_cache._fetcher
    instances = [fx.make_instance() for _ in range(2)]
    for inst in instances:
        drv.spawn(None, inst, fx.make_image_meta(), [], None, {})
    try:
        assert fetch.calls == ['image-1']
    finally:
        for inst in instances:
            drv.destroy(None, inst)


def test_power_operations_report_states(drv, spawned):
    def state():
        return drv.get_info(spawned).state

    drv.pause(spawned)
    assert state() == power_state.PAUSED
    drv.unpause(spawned)
    assert state() == power_state.RUNNING
    drv.power_off(spawned)
    assert state() == power_state.SHUTDOWN
    drv.power_on(None, spawned, None)
    assert state() == power_state.RUNNING
    drv.suspend(None, spawned)
    assert state() == power_state.SHUTDOWN
    assert drv.host.get_guest(spawned.uuid).has_managed_save()
    drv.resume(None, spawned, None)
    assert state() == power_state.RUNNING
    drv.reboot(None, spawned, None, 'HARD')
    assert state() == power_state.RUNNING
    # The test driver honours ACPI shutdown at once, so a soft reboot
    # completes without falling back to a hard one.
    drv.reboot(None, spawned, None, 'SOFT')
    assert state() == power_state.RUNNING
    drv.power_off(spawned, timeout=1, retry_interval=0.1)
    assert state() == power_state.SHUTDOWN


def test_power_calls_on_unknown_instance_raise_not_found(drv):
    ghost = fx.make_instance()
    for call in (lambda: drv.pause(ghost),
                 lambda: drv.get_console_output(None, ghost)):
        with pytest.raises(exception.InstanceNotFound):
            call()
    # A guest with no domain is off already (upstream's _destroy): stop succeeds.
    drv.power_off(ghost)


@pytest.mark.parametrize('props,error', [
    ({'hw_disk_bus': 'xen'}, exception.Invalid),
    ({'hw_machine_type': 'q35', 'hw_disk_bus': 'ide'}, None),
])
def test_bad_disk_bus_fails_before_touching_anything(drv, props, error):
    instance = fx.make_instance()
    meta = fx.make_image_meta(**props)
    if error is None:
        # The test driver ignores machine types, so q35 + ide is allowed.
        drv.spawn(None, instance, meta, [], None, {})
        drv.destroy(None, instance)
        return
    with pytest.raises(error):
        drv.spawn(None, instance, meta, [], None, {})
    assert not os.path.exists(drv.core.instance_dir(instance))
    assert instance.uuid not in drv.list_instance_uuids()


def test_failed_image_fetch_rolls_back(drv):
    instance = fx.make_instance(image_ref='missing')
    with pytest.raises(KeyError):
        drv.spawn(None, instance, fx.make_image_meta('missing'), [], None,
                  {})
    assert not os.path.exists(drv.core.instance_dir(instance))
    assert instance.uuid not in drv.list_instance_uuids()


def test_failed_define_rolls_back_disk(drv):
    # A name clash with libvirt's built-in 'test' domain fails the define.
    instance = fx.make_instance(name='test')
    with pytest.raises(exception.HypervisorError):
        drv.spawn(None, instance, fx.make_image_meta(), [], None, {})
    assert not os.path.exists(drv.core.instance_dir(instance))


def test_spawn_with_real_image_meta_object(drv):
    meta = image_meta_obj.ImageMeta.from_dict({
        'id': 'image-1', 'properties': {'hw_disk_bus': 'sata'}})
    instance = fx.make_instance()
    drv.spawn(None, instance, meta, [], None, {})
    try:
        xml = drv.host.get_guest(instance.uuid).get_xml_desc()
        assert "<target dev='sda' bus='sata'/>" in xml
    finally:
        drv.destroy(None, instance)


def test_flavor_root_gb_grows_the_overlay(drv):
    instance = fx.make_instance(flavor=fx.make_flavor(root_gb=1))
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {})
    try:
        info = imagebackend.qemu_img_info(drv.get_instance_disk_path(instance),
                                          'qcow2')
        assert info['virtual-size'] == imagebackend.GiB
    finally:
        drv.destroy(None, instance)


def test_console_output_is_a_bounded_tail(drv, spawned):
    assert drv.get_console_output(None, spawned) == b''
    limit = drv.conf.libvirt.console_log_max_bytes
    with open(drv.core.console_log_path(spawned), 'wb') as f:
        f.write(b'x' * limit + b'THE-END')
    out = drv.get_console_output(None, spawned)
    assert len(out) == limit and out.endswith(b'THE-END')


def test_available_resource(drv):
    res = drv.get_available_resource()
    assert set(res) == {'vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                        'memory_mb_used', 'local_gb_used', 'hypervisor_type',
                        'hypervisor_version', 'hypervisor_hostname',
                        'cpu_info', 'hugepages'}
    assert res['hypervisor_type'] == 'TEST'
    # The in-process test hypervisor has no huge pages to offer.
    assert res['hugepages'] is False
    assert res['vcpus'] == 16 and res['memory_mb'] == 3072
    assert res['local_gb'] > 0
    cpu = json.loads(res['cpu_info'])
    assert cpu['arch'] == 'i686' and cpu['topology']['cells'] == 2


def test_available_resource_skips_a_guest_gone_since_the_listing(drv, spawned):
    listed = drv.host.list_guests

    def list_then_lose_one(**kwargs):
        guests = listed(**kwargs)
        # Another user of the libvirtd removes the guest right after the listing.
        drv.destroy(None, spawned)
        return guests
    drv.host.list_guests = list_then_lose_one
    try:
        res = drv.get_available_resource()
    finally:
        drv.host.list_guests = listed
    assert res['vcpus_used'] >= 0


def test_nodename_is_reported_as_the_hypervisor_hostname(tmp_path, image):
    conf = fx.make_conf(tmp_path / 'state')
    drv = libvirt_driver.LibvirtDriver(conf, fx.file_fetcher({'image-1': image}),
                                       instances_path=str(tmp_path / 'host2'),
                                       nodename='host2')
    drv.init_host('host2')
    try:
        assert drv.get_available_resource()['hypervisor_hostname'] == 'host2'
        assert drv.core.settings.instances_path == str(tmp_path / 'host2')
    finally:
        drv.cleanup_host('host2')


def test_init_host_rejects_lxc(tmp_path):
    conf = fx.make_conf(tmp_path, virt_type='lxc')
    drv = libvirt_driver.LibvirtDriver(conf, fx.file_fetcher({}))
    with pytest.raises(exception.HypervisorError):
        drv.init_host('h')


# ----------------------------------------------- XML without any hypervisor

QEMU_SETTINGS = guest_config.GuestSettings(
    domain_type='qemu', arch='x86_64', instances_path='/var/lib/nova/i',
    disk_cachemode='none', machine_types=(('x86_64', 'q35'),))


def guest_xml(instance, meta, settings=QEMU_SETTINGS, boot_files=None):
    mapping = guest_config.get_disk_mapping('qemu', settings, instance,
                                              meta)
    return guest_config.get_guest_config(settings, instance, meta, mapping,
                                           boot_files).to_xml()


def validate(tmp_path, xml):
    path = tmp_path / 'domain.xml'
    path.write_text(xml)
    proc = subprocess.run(['virt-xml-validate', str(path), 'domain'],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout + xml


def test_qemu_domain_xml_validates(tmp_path):
    instance = fx.make_instance(uuid='11111111-2222-3333-4444-555555555555',
                                name='instance-00000001')
    xml = guest_xml(instance, fx.make_image_meta())
    validate(tmp_path, xml)
    assert '<domain type="qemu">' in xml
    assert '<type arch="x86_64" machine="q35">hvm</type>' in xml
    assert ('<source path="/var/lib/nova/i/11111111-2222-3333-4444-'
            '555555555555/console.log" append="on"/>') in xml
    assert '<driver name="qemu" type="qcow2" cache="none"/>' in xml


def test_iso_uefi_and_kernel_boot_xml_validates(tmp_path):
    instance = fx.make_instance()
    iso = guest_xml(instance, fx.make_image_meta(disk_format='iso',
                                                 hw_firmware_type='uefi'))
    validate(tmp_path, iso)
    assert '<os firmware="efi">' in iso
    # q35 from config: the CD-ROM goes on SATA.
    assert 'device="cdrom"' in iso and 'bus="sata"' in iso
    meta = fx.make_image_meta()
    mapping = guest_config.get_disk_mapping('qemu', QEMU_SETTINGS,
                                              instance, meta)
    boot = guest_config.BootFiles(
        kernel='/k', ramdisk='/r',
        cmdline=guest_config.kernel_cmdline(meta.properties, mapping))
    kxml = guest_xml(instance, meta, boot_files=boot)
    validate(tmp_path, kxml)
    assert ('<cmdline>root=/dev/vda console=tty0 console=ttyS0 '
            'console=hvc0</cmdline>') in kxml
    custom = fx.make_image_meta(os_command_line='console=ttyS0 quiet')
    assert guest_config.kernel_cmdline(custom.properties, mapping) == \
        'console=ttyS0 quiet'


def test_test_domain_xml_validates(tmp_path, drv):
    instance = fx.make_instance()
    validate(tmp_path, drv.definition.guest_xml(instance, fx.make_image_meta()))


def test_machine_type_config_is_parsed_strictly():
    assert guest_config.parse_machine_types(['x86_64=q35', 'aarch64=virt'])\
        == (('x86_64', 'q35'), ('aarch64', 'virt'))
    with pytest.raises(exception.Invalid):
        guest_config.parse_machine_types(['q35'])


def test_xml_generation_is_fast():
    import timeit
    instance = fx.make_instance()
    meta = fx.make_image_meta()
    per_call = min(timeit.repeat(lambda: guest_xml(instance, meta),
                                 number=100, repeat=3)) / 100
    # Design target: 2 ms for a much bigger guest; this one is tiny.
    assert per_call < 0.002


def test_kernel_and_ramdisk_are_copied_and_booted(tmp_path, image):
    kernel = tmp_path / 'vmlinuz'
    kernel.write_bytes(b'kernel' * 100)
    ramdisk = tmp_path / 'initrd'
    ramdisk.write_bytes(b'initrd' * 100)
    conf = fx.make_conf(tmp_path / 'state')
    drv = libvirt_driver.LibvirtDriver(conf, fx.file_fetcher(
        {'image-1': image, 'aki': str(kernel), 'ari': str(ramdisk)}))
    drv.init_host('h')
    instance = fx.make_instance(kernel_id='aki', ramdisk_id='ari')
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {})
    try:
        inst_dir = drv.core.instance_dir(instance)
        xml = drv.host.get_guest(instance.uuid).get_xml_desc()
        assert '<kernel>%s/kernel</kernel>' % inst_dir in xml
        assert '<initrd>%s/ramdisk</initrd>' % inst_dir in xml
        assert 'root=/dev/vda console=tty0' in xml
        assert (tmp_path / 'state' / 'instances' / instance.uuid /
                'kernel').read_bytes() == kernel.read_bytes()
    finally:
        drv.destroy(None, instance)


# ------------------------------------------------- every disk kind, test:///

def test_spawn_with_every_disk_kind(drv, tmp_path):
    from nova.virt import configdrive
    inst = fx.make_instance(config_drive='True', display_name='web',
                            flavor=fx.make_flavor(ephemeral_gb=1, swap=16))
    vols = [fx.make_volume(tmp_path / 'a.qcow2'),
            fx.make_volume(tmp_path / 'b.raw', 'raw')]
    bdi = fx.block_device_info([fx.volume_bdm('vol-a', vols[0]),
                                fx.volume_bdm('vol-b', vols[1], 'raw')])
    assert drv.get_device_names(inst, fx.make_image_meta(), bdi) == {
        'root_device_name': '/dev/vda', 'ephemerals': {0: '/dev/vdb'},
        'swap': '/dev/vdc', 'volumes': {'vol-a': '/dev/vdd',
                                        'vol-b': '/dev/vde'}}
    from nova.tests.unit.metadata import test_network_data as nd
    drv.spawn(None, inst, fx.make_image_meta(), [], 'pw', {},
              network_info=nd.NETWORK_INFO, block_device_info=bdi)
    try:
        inst_dir = drv.core.instance_dir(inst)
        base = drv.image_cache.base_dir
        eph = imagebackend.qemu_img_info(os.path.join(inst_dir, 'disk.local'))
        assert eph['backing-filename'] == os.path.join(
            base, 'ephemeral_1_ext4_ephemeral0')
        with open(eph['backing-filename'], 'rb') as f:
            f.seek(1080)
            assert f.read(2) == b'\x53\xef'           # ext4 magic
        swap = imagebackend.qemu_img_info(os.path.join(inst_dir, 'disk.swap'))
        with open(swap['backing-filename'], 'rb') as f:
            f.seek(4086)
            assert f.read(10) == b'SWAPSPACE2'
        iso = os.path.join(inst_dir, 'disk.config')
        assert configdrive.read_iso_label(iso) == 'config-2'
        meta = json.loads(fx.read_iso_files(iso)[
            'openstack/latest/meta_data.json'])
        assert (meta['uuid'], meta['name'], meta['admin_pass']) == \
            (inst.uuid, 'web', 'pw')
        # The ports spawn was given, in the metadata API's format.
        assert json.loads(fx.read_iso_files(iso)[
            'openstack/latest/network_data.json']) == nd.NETWORK_DATA
        xml = drv.host.get_guest(inst.uuid).get_xml_desc()
        assert "<source file='%s'/>" % vols[1] in xml
        assert '<serial>vol-a</serial>' in xml
    finally:
        drv.destroy(None, inst, block_device_info=bdi)
    # Volumes live outside the instance directory and survive it.
    assert all(os.path.exists(v) for v in vols)


def test_bdm_ephemeral_formats_and_unformatted(drv):
    inst = fx.make_instance()
    bdi = fx.block_device_info(ephemerals=[
        {'num': 0, 'size': 1, 'guest_format': 'vfat'},
        {'num': 1, 'size': 1, 'guest_format': 'none'}])
    drv.spawn(None, inst, fx.make_image_meta(), [], None, {},
              block_device_info=bdi)
    try:
        inst_dir = drv.core.instance_dir(inst)
        first = imagebackend.qemu_img_info(os.path.join(inst_dir,
                                                        'disk.eph0'))
        if imagebackend.can_format('vfat'):
            assert first['backing-filename'].endswith(
                'ephemeral_1_vfat_ephemeral0')
        second = imagebackend.qemu_img_info(os.path.join(inst_dir,
                                                         'disk.eph1'))
        assert 'backing-filename' not in second
        assert second['virtual-size'] == imagebackend.GiB
    finally:
        drv.destroy(None, inst)


def test_volume_backed_spawn_needs_no_image(drv, tmp_path):
    boot = fx.make_volume(tmp_path / 'boot.qcow2')
    inst = fx.make_instance(image_ref=None)
    bdi = fx.block_device_info([fx.volume_bdm('boot', boot, boot_index=0)])
    drv.spawn(None, inst, fx.make_image_meta(None, None), [], None, {},
              block_device_info=bdi)
    try:
        assert drv.image_cache._fetcher.calls == []
        assert not os.path.exists(drv.get_instance_disk_path(inst))
        xml = drv.host.get_guest(inst.uuid).get_xml_desc()
        assert "<source file='%s'/>" % boot in xml
        snap = drv.snapshot(None, inst, str(tmp_path / 'snap.qcow2'))
        assert snap['disk_format'] == 'qcow2'
        assert imagebackend.qemu_img_info(snap['path'])['format'] == 'qcow2'
    finally:
        drv.destroy(None, inst)


def test_missing_volume_file_fails_spawn_cleanly(drv, tmp_path):
    inst = fx.make_instance()
    bdi = fx.block_device_info([fx.volume_bdm('gone', tmp_path / 'gone')])
    with pytest.raises(exception.VolumeNotFound):
        drv.spawn(None, inst, fx.make_image_meta(), [], None, {},
                  block_device_info=bdi)
    assert not os.path.exists(drv.core.instance_dir(inst))


def test_snapshot_is_standalone_qcow2(drv, spawned, tmp_path):
    snap = drv.snapshot(None, spawned, str(tmp_path / 'snap.qcow2'))
    info = imagebackend.qemu_img_info(snap['path'])
    assert info['format'] == 'qcow2' and 'backing-filename' not in info
    assert snap['size'] == os.path.getsize(snap['path'])
    assert drv.get_info(spawned).state == power_state.RUNNING
