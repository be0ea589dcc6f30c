"""Static host rules: hardware no reporting host can give is refused before the 202."""

import types

import pytest

from nova import exception
from nova.compute import host_rules

NODE = {'virt_type': 'qemu', 'machine_type': 'pc', 'guest_arches': 'i686,x86_64',
        'machine_types': 'pc,pc-i440fx-7.2,q35,pc-q35-7.2', 'vtpm': False, 'sev': False,
        'uefi_machines': 'pc,pc-i440fx-7.2,q35,pc-q35-7.2',
        'secure_boot_machines': 'q35,pc-q35-7.2'}


def check(props, specs=None, node=NODE):
    db = types.SimpleNamespace(compute_nodes_with_room=lambda *a: [{'capabilities': node}])
    conf = types.SimpleNamespace(service_down_time=60)
    host_rules.check_buses_somewhere(conf, db, {'properties': props},
                                     {'extra_specs': specs or {}})


@pytest.mark.parametrize('props,specs,message', [
    ({'hw_machine_type': 'pc-q35-99.0'}, None, "no machine type 'pc-q35-99.0'"),
    ({'hw_emulation_architecture': 'aarch64'}, None, 'no QEMU for aarch64'),
    ({'hw_tpm_version': '2.0'}, None, 'no vTPM'),
    ({}, {'hw:mem_encryption': 'true'}, 'no AMD SEV'),
    ({'hw_firmware_type': 'uefi', 'os_secure_boot': 'required'}, None,
     'no UEFI firmware with secure boot for machine type pc'),
])
def test_refused_when_no_host_can(props, specs, message):
    with pytest.raises(exception.Invalid, match=message):
        check(props, specs)


def test_accepted_where_a_host_can():
    check({'hw_machine_type': 'q35', 'hw_firmware_type': 'uefi', 'os_secure_boot': 'required'})
    check({'hw_tpm_version': '2.0'}, node=dict(NODE, vtpm=True))
    # Hosts that report nothing are not judged.
    check({'hw_emulation_architecture': 'aarch64'}, node={'virt_type': 'qemu'})


def test_a_vtpm_refusal_says_why_the_host_does_not_offer_it():
    reason = '/srv/private is not searchable by the swtpm user tss'
    with pytest.raises(exception.Invalid, match='no vTPM: /srv/private is not searchable'):
        check({'hw_tpm_version': '2.0'}, node=dict(NODE, vtpm=False, vtpm_reason=reason))
