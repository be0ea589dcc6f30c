"""Optional guest hardware as literal domain XML, schema-checked: CPU, firmware, devices."""

import subprocess

import pytest
from lxml import etree

from nova import exception
from nova.objects import image_meta as image_meta_obj
from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import firmware, guest_config

UUID = '11111111-2222-3333-4444-555555555555'
OVMF = '/usr/share/OVMF/'
DESCRIPTORS = (
    firmware.Firmware('40-secure-enrolled.json', OVMF + 'OVMF_CODE_4M.ms.fd',
                      OVMF + 'OVMF_VARS_4M.ms.fd', (('x86_64', ('pc-q35-*',)),),
                      frozenset({'secure-boot', 'enrolled-keys', 'requires-smm'})),
    firmware.Firmware('50-secure.json', OVMF + 'OVMF_CODE_4M.secboot.fd',
                      OVMF + 'OVMF_VARS_4M.fd', (('x86_64', ('pc-q35-*',)),),
                      frozenset({'secure-boot', 'requires-smm'})),
    firmware.Firmware('60-plain.json', OVMF + 'OVMF_CODE_4M.fd', OVMF + 'OVMF_VARS_4M.fd',
                      (('x86_64', ('pc-i440fx-*', 'pc-q35-*')),), frozenset()),
)
SETTINGS = guest_config.GuestSettings(
    domain_type='qemu', arch='x86_64', instances_path='/i', disk_cachemode='none',
    firmware=DESCRIPTORS, swtpm_enabled=True,
    machine_aliases={'q35': 'pc-q35-7.2', 'pc': 'pc-i440fx-7.2'})


def canon(xml):
    return etree.tostring(etree.fromstring(
        xml, etree.XMLParser(remove_blank_text=True)), method='c14n')


def build(props=None, specs=None, vcpus=2, settings=SETTINGS):
    instance = fx.make_instance(uuid=UUID, name='instance-1',
                                flavor=fx.make_flavor(vcpus=vcpus, memory_mb=512,
                                                      extra_specs=specs or {}))
    meta = image_meta_obj.ImageMeta.from_dict({'id': 'image-1', 'disk_format': 'raw',
                                               'properties': props or {}})
    mapping = guest_config.get_disk_mapping('qemu', settings, instance, meta)
    xml = guest_config.get_guest_config(settings, instance, meta, mapping).to_xml()
    return etree.fromstring(xml), xml


def part(root, path):
    return canon(etree.tostring(root.find(path)))


def test_devices_literal_xml(tmp_path):
    root, xml = build({'hw_rng_model': 'virtio', 'hw_watchdog_action': 'pause',
                       'hw_input_bus': 'virtio', 'hw_serial_port_count': '2',
                       'hw_tpm_version': '2.0', 'hw_viommu_model': 'virtio',
                       'hw_sound_model': 'ich9', 'hw_usb_model': 'qemu-xhci'},
                      {'hw_rng:rate_bytes': '2048', 'hw_rng:rate_period': '500'})
    devices = root.find('devices')
    wanted = {
        'rng': '<rng model="virtio"><rate bytes="2048" period="500"></rate>'
               '<backend model="random">/dev/urandom</backend></rng>',
        'watchdog': '<watchdog action="pause" model="i6300esb"></watchdog>',
        'tpm': '<tpm model="tpm-tis"><backend type="emulator" version="2.0"></backend></tpm>',
        'iommu': '<iommu model="virtio"></iommu>',
        'sound': '<sound model="ich9"></sound>',
        "controller[@type='usb']": '<controller index="0" model="qemu-xhci" type="usb">'
                                   '</controller>',
    }
    for path, literal in wanted.items():
        assert part(devices, path) == canon(literal), path
    assert [canon(etree.tostring(i)) for i in devices.findall('input')] == [
        canon('<input bus="virtio" type="tablet"/>'), canon('<input bus="virtio" '
                                                            'type="keyboard"/>')]
    assert [s.find('target').get('port') for s in devices.findall('serial')] == ['0', '1']
    validate(tmp_path, xml)


def test_cpu_topology_tuning_and_features_literal_xml(tmp_path):
    root, xml = build({'hw_cpu_sockets': '2', 'hw_pmu': 'false', 'hw_time_hpet': 'true',
                       'img_hide_hypervisor_id': 'true', 'hw_maxphysaddr_mode': 'emulate',
                       'hw_maxphysaddr_bits': '42'},
                      {'quota:cpu_shares': '512', 'quota:cpu_period': '100000',
                       'quota:cpu_quota': '-1', 'quota:disk_total_iops_sec': '300',
                       'hw:mem_page_size': 'small', 'hw:locked_memory': 'true'}, vcpus=4)
    assert part(root, 'cpu') == canon(
        '<cpu><topology sockets="2" cores="2" threads="1"/>'
        '<maxphysaddr mode="emulate" bits="42"/></cpu>')
    assert part(root, 'cputune') == canon(
        '<cputune><shares>512</shares><period>100000</period><quota>-1</quota></cputune>')
    assert part(root, 'clock') == canon(
        '<clock offset="utc"><timer name="pit" tickpolicy="delay"/>'
        '<timer name="rtc" tickpolicy="catchup"/><timer name="hpet" present="yes"/></clock>')
    assert part(root, 'features') == canon(
        '<features><acpi/><apic/><pmu state="off"/><kvm><hidden state="on"/></kvm></features>')
    assert part(root, 'memoryBacking') == canon('<memoryBacking><locked/></memoryBacking>')
    assert part(root, "devices/disk[@device='disk']/iotune") == canon(
        '<iotune><total_iops_sec>300</total_iops_sec></iotune>')
    validate(tmp_path, xml)


def test_uefi_picks_the_descriptor_secure_boot_only_when_asked(tmp_path):
    root, xml = build({'hw_firmware_type': 'uefi', 'hw_machine_type': 'q35'})
    assert part(root, 'os/loader') == canon(
        '<loader readonly="yes" secure="no" type="pflash">%sOVMF_CODE_4M.fd</loader>' % OVMF)
    assert root.find('os/nvram').get('template') == OVMF + 'OVMF_VARS_4M.fd'
    assert root.find('features/smm') is None and root.find('os').get('firmware') is None
    validate(tmp_path, xml)
    root, xml = build({'hw_firmware_type': 'uefi', 'hw_machine_type': 'q35',
                       'os_secure_boot': 'required'})
    assert root.find('os/loader').get('secure') == 'yes'
    assert root.find('os/loader').text.endswith('OVMF_CODE_4M.ms.fd')
    assert part(root, 'features/smm') == canon('<smm state="on"/>')
    validate(tmp_path, xml)
    # optional: secure where the host can (q35), plain where it cannot (pc).
    root, _xml = build({'hw_firmware_type': 'uefi', 'os_secure_boot': 'optional'})
    assert root.find('os/loader').get('secure') == 'no'


def test_secure_boot_the_machine_cannot_have_is_a_fault():
    with pytest.raises(exception.Invalid, match='no UEFI firmware with secure boot'):
        build({'hw_firmware_type': 'uefi', 'os_secure_boot': 'required'})


def test_stateless_uefi_has_no_nvram():
    root, _xml = build({'hw_firmware_type': 'uefi', 'hw_firmware_stateless': 'true'})
    assert root.find('os/loader').get('stateless') == 'yes'
    assert root.find('os/nvram') is None


def test_windows_gets_hyperv_enlightenments_and_local_time(tmp_path):
    root, xml = build({'os_type': 'windows', 'img_hide_hypervisor_id': 'true'})
    hyperv = root.find('features/hyperv')
    assert [c.tag for c in hyperv] == ['relaxed', 'vapic', 'spinlocks', 'vpindex', 'runtime',
                                       'synic', 'reset', 'frequencies', 'tlbflush', 'ipi',
                                       'vendor_id']
    assert hyperv.find('spinlocks').get('retries') == '8191'
    assert root.find('clock').get('offset') == 'localtime'
    assert root.find("clock/timer[@name='hypervclock']").get('present') == 'yes'
    validate(tmp_path, xml)


def test_intel_iommu_needs_q35():
    root, _xml = build({'hw_viommu_model': 'intel', 'hw_machine_type': 'q35'})
    assert part(root, 'features/ioapic') == canon('<ioapic driver="qemu"/>')
    assert root.find('devices/iommu/driver').get('aw_bits') == '48'
    with pytest.raises(exception.Invalid, match='needs the q35 machine type'):
        build({'hw_viommu_model': 'intel'})


def test_machine_type_default_emulation_arch_and_metadata():
    root, _xml = build()
    assert root.find('os/type').get('machine') == 'pc'
    ns = {'nova': 'http://openstack.org/xmlns/libvirt/nova/1.1'}
    flavor = root.find('metadata/nova:instance/nova:flavor', ns)
    assert flavor.find('nova:vcpus', ns).text == '2'
    assert root.find('metadata/nova:instance/nova:root', ns).get('uuid') == 'image-1'
    assert root.find('metadata/nova:instance/nova:ports', ns) is not None
    root, _xml = build({'hw_emulation_architecture': 'aarch64'})
    assert (root.find('os/type').get('arch'), root.find('os/type').get('machine')) == (
        'aarch64', 'virt')


def test_serial_port_count_zero_moves_the_log_to_a_virtio_console():
    root, _xml = build({'hw_serial_port_count': '0'})
    assert root.find('devices/serial') is None
    console = root.find('devices/console')
    assert console.find('target').get('type') == 'virtio'
    assert console.find('source').get('path').endswith('console.log')


def test_cpu_mode_custom_models_and_flags():
    settings = guest_config.GuestSettings(
        domain_type='qemu', arch='x86_64', instances_path='/i', cpu_mode='custom',
        cpu_models=('Nehalem', 'Westmere'), cpu_flags=('pcid',))
    root, _xml = build(settings=settings, specs={'hw:cpu_model': 'Westmere'})
    assert part(root, 'cpu') == canon(
        '<cpu mode="custom" match="exact"><model>Westmere</model>'
        '<feature policy="require" name="pcid"/></cpu>')
    with pytest.raises(exception.Invalid, match='is not one of'):
        build(settings=settings, specs={'hw:cpu_model': 'EPYC'})


def test_packed_ring_on_virtio_disks():
    root, _xml = build({'hw_virtio_packed_ring': 'true'})
    assert root.find("devices/disk[@device='disk']/driver").get('packed') == 'on'


def validate(tmp_path, xml):
    path = tmp_path / 'domain.xml'
    path.write_text(xml)
    proc = subprocess.run(['virt-xml-validate', str(path), 'domain'], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout + xml
