"""Flavor + image device rules: precedence, conflicts and refusals (the API's 400s)."""

import pytest

from nova import exception
from nova.objects import image_meta
from nova.tests.fixtures import libvirt as fx
from nova.virt import guest_request


def req(specs=None, vcpus=2, memory_mb=1024, **props):
    flavor = fx.make_flavor(vcpus=vcpus, memory_mb=memory_mb, extra_specs=specs or {})
    return guest_request.validate_image_request(
        flavor, image_meta.ImageMetaProps.from_dict(props)).devices


def refused(match, specs=None, **props):
    with pytest.raises(exception.Invalid, match=match):
        req(specs, **props)


def test_nothing_asked_nothing_added():
    devices = req()
    assert not devices.rng and devices.watchdog_action is None and devices.tpm_version is None


def test_rng_allowed_by_default_and_rate_from_the_flavor():
    devices = req({'hw_rng:rate_bytes': '1024', 'hw_rng:rate_period': '2000'},
                  hw_rng_model='virtio')
    assert (devices.rng, devices.rng_rate_bytes, devices.rng_rate_period) == (True, 1024, 2000)
    refused("hw_rng:allowed=False forbids", {'hw_rng:allowed': 'False'}, hw_rng_model='virtio')


def test_watchdog_image_wins_and_disabled_means_none():
    assert req({'hw:watchdog_action': 'pause'}, hw_watchdog_action='reset').watchdog_action \
        == 'reset'
    assert req({'hw:watchdog_action': 'poweroff'}).watchdog_action == 'poweroff'
    assert req(hw_watchdog_action='disabled').watchdog_action is None


def test_serial_ports_image_up_to_the_flavor():
    assert req({'hw:serial_port_count': '4'}, hw_serial_port_count='2').serial_ports == 2
    assert req({'hw:serial_port_count': '4'}).serial_ports == 4
    refused("hw_serial_port_count=5 exceeds the flavor's", {'hw:serial_port_count': '4'},
            hw_serial_port_count='5')
    refused('hw_serial_port_count=-5 must be at least 0', hw_serial_port_count='-5')


@pytest.mark.parametrize('spec,prop,a,b', [
    ('hw:pmu', 'hw_pmu', 'true', 'false'),
    ('hw:tpm_version', 'hw_tpm_version', '1.2', '2.0'),
    ('os:secure_boot', 'os_secure_boot', 'required', 'disabled'),
    ('hw:locked_memory', 'hw_locked_memory', 'false', 'true'),
    ('hw:virtio_packed_ring', 'hw_virtio_packed_ring', 'true', 'false'),
    ('hw:viommu_model', 'hw_viommu_model', 'intel', 'virtio'),
    ('hw:sound_model', 'hw_sound_model', 'ich9', 'ac97'),
])
def test_unique_properties_conflict_with_the_flavor(spec, prop, a, b):
    specs = {spec: a, 'hw:mem_page_size': 'small'}
    props = {prop: b, 'hw_firmware_type': 'uefi'}
    refused('image property %s=.* conflicts with the flavor\'s %s' % (prop, spec), specs,
            **props)
    # The same value in both places is fine.
    req({spec: b, 'hw:mem_page_size': 'small'}, **{prop: b, 'hw_firmware_type': 'uefi'})


def test_tpm_rules():
    devices = req(hw_tpm_version='2.0')
    assert (devices.tpm_version, devices.tpm_model) == ('2.0', 'tpm-tis')
    refused('needs hw_tpm_version', hw_tpm_model='tpm-crb')
    refused('TPM 1.2 can only be of model tpm-tis', hw_tpm_version='1.2', hw_tpm_model='tpm-crb')


def test_secure_boot_needs_uefi_and_locked_memory_a_page_size():
    refused('needs UEFI firmware', os_secure_boot='required')
    refused('locked memory .* needs a page size', hw_locked_memory='true')
    assert req({'hw:mem_page_size': 'small'}, hw_locked_memory='true').locked_memory


def test_realtime_mask_rules():
    dedicated = {'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'yes'}
    assert req(dict(dedicated, **{'hw:cpu_realtime_mask': '^0'}), vcpus=4).realtime_cpus == \
        frozenset({1, 2, 3})
    assert req(dedicated, vcpus=4, hw_cpu_realtime_mask='^0-1').realtime_cpus == \
        frozenset({2, 3})
    refused('is not a CPU mask', dedicated, vcpus=4, hw_cpu_realtime_mask='garbage')
    refused("needs the flavor's hw:cpu_realtime=yes", hw_cpu_realtime_mask='^0')
    refused('leaves no vCPU', dict(dedicated, **{'hw:cpu_realtime_mask': '0-1'}))
    refused('needs dedicated CPUs', {'hw:cpu_realtime': 'yes', 'hw:cpu_realtime_mask': '^0'})


def test_quotas():
    devices = req({'quota:cpu_shares': '512', 'quota:cpu_period': '100000',
                   'quota:cpu_quota': '50000', 'quota:disk_read_bytes_sec': '1048576'})
    assert dict(devices.cpu_quotas) == {'shares': 512, 'period': 100000, 'quota': 50000}
    assert devices.disk_quotas == (('read_bytes_sec', 1048576),)
    refused('cannot be combined', {'quota:disk_total_iops_sec': '10',
                                   'quota:disk_read_iops_sec': '5'})
    refused('must be -1', {'quota:cpu_quota': '10'})
    refused('VMware', {'quota:cpu_limit': '10'})


def test_refused_properties_and_specs_say_why():
    refused('hw_tpm_secret_security is not supported', hw_tpm_secret_security='user')
    refused('hw:pmem is not supported', {'hw:pmem': '1GB'})
    refused('hw_vm_mode=xen is not supported', hw_vm_mode='xen')
    refused('emulator_threads_policy=isolate is not supported',
            {'hw:cpu_policy': 'dedicated', 'hw:emulator_threads_policy': 'isolate'})


def test_maxphysaddr_rules():
    devices = req(hw_maxphysaddr_mode='emulate', hw_maxphysaddr_bits='42')
    assert (devices.maxphysaddr_mode, devices.maxphysaddr_bits) == ('emulate', 42)
    refused('emulate needs hw_maxphysaddr_bits', hw_maxphysaddr_mode='emulate')
