"""Request schemas of os-services, os-hypervisors, os-aggregates, os-hosts and zones."""

import copy

from nova.api.schemas import types

_hostname = {'type': 'string', 'minLength': 1, 'maxLength': 255,
             'pattern': r'^[a-zA-Z0-9-._]*$'}
_reason = {'type': 'string', 'minLength': 1, 'maxLength': 255}

# PUT /os-services/{enable,disable,disable-log-reason} before 2.53.
service_update_v2_1 = {
    'type': 'object',
    'properties': {'host': _hostname, 'binary': {'type': 'string'},
                   'disabled_reason': _reason},
    'required': ['host', 'binary'],
    'additionalProperties': False,
}
# 2.11: force-down.
service_update_v2_11 = copy.deepcopy(service_update_v2_1)
service_update_v2_11['properties']['forced_down'] = types.boolean
# 2.53: PUT /os-services/{uuid} with the new state in the body.
service_update_v2_53 = {
    'type': 'object',
    'properties': {'status': {'type': 'string', 'enum': ['enabled', 'disabled']},
                   'disabled_reason': _reason, 'forced_down': types.boolean},
    'additionalProperties': False,
}
service_query = {'type': 'object', 'properties': {
    'host': {'type': 'string'}, 'binary': {'type': 'string'}}}

_bool_query = {'type': 'string', 'enum': ['0', '1', 'true', 'True', 'TRUE', 'false', 'False',
                                          'FALSE', 'yes', 'no', 'on', 'off', 't', 'f', 'y', 'n']}
hypervisor_list_query_v2_33 = {'type': 'object', 'properties': {
    'limit': {'type': 'string', 'pattern': '^[0-9]+$'}, 'marker': {'type': 'string'}}}
# 2.53: hostname pattern and servers; marker is a uuid.
hypervisor_list_query_v2_53 = copy.deepcopy(hypervisor_list_query_v2_33)
hypervisor_list_query_v2_53['properties'].update({
    'hypervisor_hostname_pattern': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'with_servers': _bool_query})
hypervisor_show_query_v2_53 = {'type': 'object', 'properties': {'with_servers': _bool_query}}
empty_query = {'type': 'object', 'properties': {}}

_az = {'type': 'string', 'minLength': 1, 'maxLength': 255,
       'pattern': r'^(?! )[^\x00-\x1f\x7f:]*(?<! )$'}
_agg_name = {'type': 'string', 'minLength': 1, 'maxLength': 255,
             'pattern': r'^(?! )[^\x00-\x1f\x7f]*(?<! )$'}
aggregate_create = {
    'type': 'object',
    'properties': {'aggregate': {
        'type': 'object',
        'properties': {'name': _agg_name, 'availability_zone': {'oneOf': [_az,
                                                                         {'type': 'null'}]}},
        'required': ['name'], 'additionalProperties': False}},
    'required': ['aggregate'], 'additionalProperties': False,
}
# An update's name may carry surrounding spaces (the handler strips them), as upstream.
_agg_new_name = {'type': 'string', 'minLength': 1, 'maxLength': 255,
                 'pattern': r'^[^\x00-\x1f\x7f]*[^\x00-\x1f\x7f ][^\x00-\x1f\x7f]*$'}
aggregate_update = {
    'type': 'object',
    'properties': {'aggregate': {
        'type': 'object',
        'properties': {'name': _agg_new_name, 'availability_zone': {'oneOf': [_az,
                                                                         {'type': 'null'}]}},
        'additionalProperties': False, 'minProperties': 1}},
    'required': ['aggregate'], 'additionalProperties': False,
}
_host_action = {'type': 'object', 'properties': {'host': _hostname}, 'required': ['host'],
                'additionalProperties': False}
aggregate_add_host = {'type': 'object', 'properties': {'add_host': _host_action},
                      'required': ['add_host'], 'additionalProperties': False}
aggregate_remove_host = {'type': 'object', 'properties': {'remove_host': _host_action},
                         'required': ['remove_host'], 'additionalProperties': False}
aggregate_set_metadata = {
    'type': 'object',
    'properties': {'set_metadata': {
        'type': 'object',
        'properties': {'metadata': {
            'type': 'object',
            'patternProperties': {'^[a-zA-Z0-9-_:. ]{1,255}$': {
                'type': ['string', 'null'], 'maxLength': 255}},
            'additionalProperties': False}},
        'required': ['metadata'], 'additionalProperties': False}},
    'required': ['set_metadata'], 'additionalProperties': False,
}

host_update = {
    'type': 'object',
    'properties': {'status': {'type': 'string', 'enum': ['enable', 'disable', 'Enable',
                                                          'Disable', 'ENABLE', 'DISABLE']},
                   'maintenance_mode': {'type': 'string',
                                        'enum': ['enable', 'disable', 'Enable', 'Disable',
                                                 'ENABLE', 'DISABLE']}},
    'anyOf': [{'required': ['status']}, {'required': ['maintenance_mode']}],
    'additionalProperties': False,
}
host_list_query = {'type': 'object', 'properties': {'zone': {'type': 'string'}}}
