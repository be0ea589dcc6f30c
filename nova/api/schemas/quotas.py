"""Request schemas of os-quota-sets, os-quota-class-sets and /limits."""

import copy

# A limit: an integer (or its string), -1 for unlimited, at most the DB's MAX_INT.
_limit = {'type': ['integer', 'string'], 'pattern': '^-?[0-9]+$', 'minimum': -1,
          'maximum': 0x7FFFFFFF}

_resources = {name: _limit for name in (
    'instances', 'cores', 'ram', 'floating_ips', 'fixed_ips', 'metadata_items', 'key_pairs',
    'security_groups', 'security_group_rules', 'injected_files',
    'injected_file_content_bytes', 'injected_file_path_bytes', 'server_groups',
    'server_group_members',
    # nova-network only: accepted by the schema, then refused with a 400.
    'networks')}
_NETWORK = ('fixed_ips', 'floating_ips', 'security_groups', 'security_group_rules',
            'networks')
_PERSONALITY = ('injected_files', 'injected_file_content_bytes', 'injected_file_path_bytes')

_boolean = {'type': ['boolean', 'string'],
            'enum': [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on', 'YES', 'Yes',
                     'yes', 'y', 't', False, 'False', 'FALSE', 'false', '0', 'OFF', 'Off',
                     'off', 'NO', 'No', 'no', 'n', 'f']}


def _body(key, properties):
    return {'type': 'object',
            'properties': {key: {'type': 'object', 'properties': properties,
                                 'additionalProperties': False}},
            'required': [key], 'additionalProperties': False}


def _without(schema, key, names):
    derived = copy.deepcopy(schema)
    for name in names:
        del derived['properties'][key]['properties'][name]
    return derived


update_v2_1 = _body('quota_set', dict(_resources, force=_boolean))
# 2.36: the nova-network quotas are gone.
update_v2_36 = _without(update_v2_1, 'quota_set', _NETWORK)
# 2.57: personality (injected file) quotas are gone.
update_v2_57 = _without(update_v2_36, 'quota_set', _PERSONALITY)

class_update_v2_1 = _body('quota_class_set', _resources)
# 2.50: the nova-network quotas are gone from quota classes.
class_update_v2_50 = _without(class_update_v2_1, 'quota_class_set', _NETWORK)
# 2.57: personality quotas are gone.
class_update_v2_57 = _without(class_update_v2_50, 'quota_class_set', _PERSONALITY)

# ?user_id= of quota sets; unknown parameters are refused from 2.75.
query_v2_1 = {'type': 'object', 'properties': {'user_id': {'type': 'string'}}}
# ?tenant_id= of /limits (admins); unknown parameters are refused from 2.75.
limits_query_v2_1 = {'type': 'object', 'properties': {'tenant_id': {'type': 'string'}}}
