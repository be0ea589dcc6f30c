"""The handlers' boot and rebuild bodies made into typed compute requests."""

import copy
import dataclasses

import pytest

from nova.api.handlers import server_actions, servers
from nova.compute import server_requests

FULL_SERVER = {
    'name': 'web', 'flavorRef': '1', 'imageRef': 'http://glance/images/abc',
    'block_device_mapping_v2': [{'boot_index': 0, 'uuid': 'abc', 'source_type': 'image',
                                 'destination_type': 'local'}],
    'image_props_override': {'hw_disk_bus': 'scsi'}, 'key_name': 'k',
    'availability_zone': 'az1:host1', 'min_count': '2', 'max_count': 3,
    'metadata': {'a': 'b'}, 'personality': [{'path': '/p', 'contents': 'Zg=='}],
    'OS-DCF:diskConfig': 'AUTO', 'adminPass': 'pw', 'description': 'd', 'hostname': 'h',
    'config_drive': 'yes', 'user_data': 'dQ==', 'accessIPv4': '10.0.0.1',
    'accessIPv6': '::1', 'tags': ['t1', 't2'], 'networks': 'none',
    'trusted_image_certificates': ['c1', 'c2'],
    'security_groups': [{'name': 'web'}, {'name': 'default'}],
}


def test_every_boot_field_comes_from_the_body():
    hints = {'group': 'g'}
    request = servers.boot_request({'server': FULL_SERVER, 'os:scheduler_hints': hints},
                                   supports_multiattach=True)
    assert dataclasses.asdict(request) == {
        'name': 'web', 'flavor_ref': '1', 'image_ref': 'http://glance/images/abc',
        'block_device_mappings': FULL_SERVER['block_device_mapping_v2'],
        'image_props_override': {'hw_disk_bus': 'scsi'}, 'key_name': 'k',
        'availability_zone': 'az1:host1', 'min_count': 2, 'max_count': 3,
        'metadata': {'a': 'b'}, 'personality': FULL_SERVER['personality'],
        'disk_config': 'AUTO', 'admin_password': 'pw', 'description': 'd', 'hostname': 'h',
        'config_drive': True, 'user_data': 'dQ==', 'access_ip_v4': '10.0.0.1',
        'access_ip_v6': '::1', 'tags': ('t1', 't2'), 'networks': 'none',
        'security_groups': ('web', 'default'),
        'scheduler_hints': {'group': 'g'}, 'trusted_certs': ['c1', 'c2'],
        'supports_multiattach': True,
    }


def test_a_minimal_boot_takes_the_defaults():
    request = servers.boot_request(
        {'server': {'name': 'n', 'flavorRef': '1'},
         'OS-SCH-HNT:scheduler_hints': {'same_host': 'u'}})
    assert request == server_requests.BootRequest(
        name='n', flavor_ref='1', scheduler_hints={'same_host': 'u'})
    assert (request.min_count, request.max_count, request.config_drive) == (1, None, False)


def test_an_empty_networks_list_asks_as_an_omitted_one():
    request = servers.boot_request({'server': {'name': 'n', 'flavorRef': '1',
                                               'networks': []}})
    assert request.networks is None and request.security_groups == ()


def test_rebuild_keeps_absent_keys_unset_and_null_as_a_value():
    request = server_actions.rebuild_request(
        {'imageRef': 'img', 'key_name': None, 'user_data': None, 'accessIPv4': '10.0.0.2',
         'OS-DCF:diskConfig': 'MANUAL'})
    assert request.image_ref == 'img'
    assert request.key_name is None and request.user_data is None
    assert request.access_ip_v4 == '10.0.0.2' and request.disk_config == 'MANUAL'
    unset = [f.name for f in dataclasses.fields(request)
             if getattr(request, f.name) is server_requests.UNSET]
    assert unset == ['name', 'description', 'metadata', 'hostname', 'access_ip_v6',
                     'trusted_certs']
    assert server_actions.rebuild_request(
        {'imageRef': 'img', 'trusted_image_certificates': None}).trusted_certs is None


def test_requests_are_frozen():
    request = server_requests.BootRequest(name='n', flavor_ref='1')
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.name = 'other'


def test_unset_survives_copies():
    request = server_requests.RebuildRequest(image_ref='img')
    assert copy.deepcopy(request).name is server_requests.UNSET
