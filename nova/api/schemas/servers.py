"""Request schemas of the servers resource, derived per microversion."""

import copy

from nova.api.schemas import types
from nova.objects.fields import DiskBus

_bdm_v2 = {
    'type': 'object',
    'properties': {
        'uuid': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                 'pattern': '^[a-zA-Z0-9._-]*$'},
        'image_id': types.uuid, 'volume_id': types.uuid, 'snapshot_id': types.uuid,
        'source_type': {'type': 'string', 'enum': ['volume', 'image', 'snapshot', 'blank']},
        'destination_type': {'type': 'string', 'enum': ['local', 'volume']},
        'device_name': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                        'pattern': '^[a-zA-Z0-9._/-]*$'},
        'device_type': {'type': 'string', 'enum': ['disk', 'cdrom', 'floppy', 'lun']},
        'disk_bus': {'type': 'string', 'enum': list(DiskBus.BLOCK_DEVICE)},
        'guest_format': {'type': 'string', 'maxLength': 255},
        'boot_index': {'type': ['integer', 'string', 'null'], 'pattern': '^-?[0-9]+$',
                       'minimum': -types.MAX_INT, 'maximum': types.MAX_INT},
        'delete_on_termination': types.boolean,
        'volume_size': types.non_negative_integer,
        'no_device': {},
        'connection_info': {'type': 'string', 'maxLength': 16777215},
    },
    'additionalProperties': False,
}

_network = {
    'type': 'object',
    'properties': {'uuid': {'type': 'string'}, 'port': {'type': ['string', 'null']},
                   'fixed_ip': {'type': 'string'}},
    'additionalProperties': False,
}

_server_v2_1 = {
    'type': 'object',
    'properties': {
        'name': types.name,
        'imageRef': types.image_ref,
        'flavorRef': types.flavor_ref,
        'adminPass': types.admin_password,
        'metadata': types.metadata,
        'networks': {'type': 'array', 'items': _network},
        'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
        'accessIPv4': types.ipv4,
        'accessIPv6': types.ipv6,
        'personality': types.personality,
        'availability_zone': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'block_device_mapping': {'type': 'array', 'items': {'type': 'object'}},
        'block_device_mapping_v2': {'type': 'array', 'items': _bdm_v2},
        'config_drive': types.boolean,
        'key_name': types.name,
        'min_count': types.positive_integer,
        'max_count': types.positive_integer,
        'return_reservation_id': types.boolean,
        'security_groups': {'type': 'array', 'items': {
            'type': 'object', 'properties': {'name': {'type': 'string', 'minLength': 1,
                                                      'maxLength': 255}},
            # Upstream accepts an item without a name and drops it; a group the
            # request cannot name is refused here instead.
            'required': ['name'],
            'additionalProperties': False}},
        'user_data': {'type': 'string', 'format': 'base64', 'maxLength': 65535},
    },
    'required': ['name', 'flavorRef'],
    'additionalProperties': False,
}

_server_id_list = {'oneOf': [types.uuid, {'type': 'array', 'items': types.uuid}]}
# Known hints are checked; unknown ones pass through, as upstream.
_hints = {
    'type': 'object',
    'properties': {
        'group': types.uuid,
        'different_host': _server_id_list,
        'same_host': _server_id_list,
        'query': {'type': ['string', 'object']},
        'target_cell': types.name,
        'different_cell': {'type': ['string', 'array'], 'items': {'type': 'string'}},
        'build_near_host_ip': {'type': 'string', 'oneOf': [{'format': 'ipv4'},
                                                           {'format': 'ipv6'}]},
        'cidr': {'type': 'string', 'pattern': '^/[0-9a-f.:]+$'},
    },
    'additionalProperties': True,
}

create_v2_1 = {
    'type': 'object',
    'properties': {
        'server': _server_v2_1,
        'os:scheduler_hints': _hints,
        'OS-SCH-HNT:scheduler_hints': _hints,
    },
    'required': ['server'],
    'additionalProperties': False,
}

# 2.19: server description.
create_v2_19 = copy.deepcopy(create_v2_1)
create_v2_19['properties']['server']['properties']['description'] = types.description

# 2.32: device tags on networks and block devices.
create_v2_32 = copy.deepcopy(create_v2_19)
create_v2_32['properties']['server']['properties']['networks']['items']['properties'][
    'tag'] = types.tag
create_v2_32['properties']['server']['properties']['block_device_mapping_v2']['items'][
    'properties']['tag'] = types.tag

# 2.37: networks is required and may be "auto" or "none".
create_v2_37 = copy.deepcopy(create_v2_32)
create_v2_37['properties']['server']['properties']['networks'] = {
    'oneOf': [create_v2_32['properties']['server']['properties']['networks'],
              {'type': 'string', 'enum': ['none', 'auto']}]}
create_v2_37['properties']['server']['required'].append('networks')

# 2.52: tags on create.
create_v2_52 = copy.deepcopy(create_v2_37)
create_v2_52['properties']['server']['properties']['tags'] = {
    'type': 'array', 'items': types.tag, 'maxItems': 50}

# 2.57: personality removed; user_data stays.
create_v2_57 = copy.deepcopy(create_v2_52)
del create_v2_57['properties']['server']['properties']['personality']

# 2.63: trusted image certificates.
create_v2_63 = copy.deepcopy(create_v2_57)
create_v2_63['properties']['server']['properties']['trusted_image_certificates'] = {
    'type': ['array', 'null'], 'minItems': 1, 'maxItems': 50, 'uniqueItems': True,
    'items': {'type': 'string', 'minLength': 1}}

# 2.67: volume_type in block_device_mapping_v2.
create_v2_67 = copy.deepcopy(create_v2_63)
create_v2_67['properties']['server']['properties']['block_device_mapping_v2']['items'][
    'properties']['volume_type'] = {'type': ['string', 'null'], 'minLength': 0,
                                    'maxLength': 255}

# 2.74: host and hypervisor_hostname requests.
create_v2_74 = copy.deepcopy(create_v2_67)
create_v2_74['properties']['server']['properties']['host'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255}
create_v2_74['properties']['server']['properties']['hypervisor_hostname'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255}

# 2.90: requested hostname.
create_v2_90 = copy.deepcopy(create_v2_74)
create_v2_90['properties']['server']['properties']['hostname'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255}

# 2.94: hostname may be an FQDN (same shape, longer).
create_v2_94 = copy.deepcopy(create_v2_90)
create_v2_94['properties']['server']['properties']['hostname']['maxLength'] = 255

# 2.105: image_props_override, a flat object of string values.
create_v2_105 = copy.deepcopy(create_v2_94)
create_v2_105['properties']['server']['properties']['image_props_override'] = {
    'type': 'object',
    'patternProperties': {
        r'^[a-zA-Z0-9_:.\-]{1,255}$': {'type': 'string', 'maxLength': 255},
    },
    'additionalProperties': False,
}


update_v2_1 = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': types.name,
                'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
                'accessIPv4': types.ipv4, 'accessIPv6': types.ipv6,
            },
            'additionalProperties': False,
        },
    },
    'required': ['server'],
    'additionalProperties': False,
}

# 2.19: description.
update_v2_19 = copy.deepcopy(update_v2_1)
update_v2_19['properties']['server']['properties']['description'] = types.description

# 2.90: hostname.
update_v2_90 = copy.deepcopy(update_v2_19)
update_v2_90['properties']['server']['properties']['hostname'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255}

# 2.104: pinned_availability_zone (null unpins; a name pins to the current zone).
update_v2_104 = copy.deepcopy(update_v2_90)
update_v2_104['properties']['server']['properties']['pinned_availability_zone'] = {
    'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255}


_list_query_common = {
    'limit': {'type': 'string', 'pattern': '^[0-9]+$'},
    'marker': {'type': 'string'},
    'name': {'type': 'string'},
    'status': {'type': 'string'},
    'image': {'type': 'string'},
    'flavor': {'type': 'string'},
    'host': {'type': 'string'},
    'project_id': {'type': 'string'},
    'tenant_id': {'type': 'string'},
    'all_tenants': {},
    'deleted': types.boolean,
    'changes-since': {'type': 'string', 'format': 'date-time'},
    'sort_key': {'type': 'string'},
    'sort_dir': {'type': 'string', 'enum': ['asc', 'desc']},
    'locked': types.boolean,
    'reservation_id': {'type': 'string'},
    'ip': {'type': 'string'}, 'ip6': {'type': 'string'},
    'availability_zone': {'type': 'string'},
    'user_id': {'type': 'string'},
    'tags': {'type': 'string'}, 'tags-any': {'type': 'string'},
    'not-tags': {'type': 'string'}, 'not-tags-any': {'type': 'string'},
    'description': {'type': 'string'},
    'vm_state': {'type': 'string'}, 'task_state': {'type': 'string'},
    'power_state': {'type': 'string'}, 'key_name': {'type': 'string'},
    'uuid': {'type': 'string'}, 'node': {'type': 'string'},
    'config_drive': {'type': 'string'}, 'hostname': {'type': 'string'},
    'launch_index': {'type': 'string'}, 'terminated_at': {'type': 'string'},
    'created_at': {'type': 'string'}, 'updated_at': {'type': 'string'},
    'launched_at': {'type': 'string'}, 'access_ip_v4': {'type': 'string'},
    'access_ip_v6': {'type': 'string'}, 'progress': {'type': 'string'},
    'pinned_availability_zone': {'type': 'string'},
}
list_query = {'type': 'object', 'properties': _list_query_common}
# 2.66: changes-before (below 2.66 it is dropped unread, as upstream).
list_query_v2_66 = {'type': 'object', 'properties': dict(
    _list_query_common, **{'changes-before': {'type': 'string', 'format': 'date-time'}})}
