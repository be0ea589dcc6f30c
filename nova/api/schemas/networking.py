"""Request schemas of os-interface, the network proxies and the server network actions."""

import copy

from nova.api.schemas import types

_ip_address = {'type': 'string', 'oneOf': [{'format': 'ipv4'}, {'format': 'ipv6'}]}
# Neutron's ids (upstream takes any string and lets Neutron answer).
_neutron_id = {'type': 'string', 'minLength': 1, 'maxLength': 255}

interface_attach_v2_1 = {
    'type': 'object',
    'properties': {'interfaceAttachment': {
        'type': 'object',
        'properties': {
            'net_id': _neutron_id, 'port_id': _neutron_id,
            'fixed_ips': {'type': 'array', 'minItems': 1, 'maxItems': 1, 'items': {
                'type': 'object', 'properties': {'ip_address': _ip_address},
                'required': ['ip_address'], 'additionalProperties': False}},
        },
        'additionalProperties': False}},
    'additionalProperties': False,
}
# 2.49: a device tag for the new interface.
interface_attach_v2_49 = copy.deepcopy(interface_attach_v2_1)
interface_attach_v2_49['properties']['interfaceAttachment']['properties']['tag'] = types.tag

security_group = {
    'type': 'object',
    'properties': {'security_group': {
        'type': 'object',
        'properties': {'name': {'type': ['string', 'null']},
                       'description': {'type': ['string', 'null']}}}},
    'required': ['security_group'],
}

# Integers are bounded (Neutron's ids and ports are far below these).
_int = {'minimum': -2 ** 31, 'maximum': 2 ** 31 - 1}
_port = dict(_int, type=['string', 'integer', 'null'])
security_group_rule = {
    'type': 'object',
    'properties': {'security_group_rule': {
        'type': 'object',
        'properties': {'parent_group_id': dict(_int, type=['string', 'integer']),
                       'group_id': dict(_int, type=['string', 'integer', 'null']),
                       'ip_protocol': {'type': ['string', 'null']},
                       'from_port': _port, 'to_port': _port,
                       'cidr': {'type': ['string', 'null']}},
        'required': ['parent_group_id']}},
    'required': ['security_group_rule'],
}

floating_ip_create = {
    'type': ['object', 'null'],
    'properties': {'pool': {'type': ['string', 'null']}},
}

add_floating_ip = {
    'type': 'object',
    'properties': {'addFloatingIp': {
        'type': 'object',
        'properties': {'address': _ip_address, 'fixed_address': _ip_address},
        'required': ['address'], 'additionalProperties': False}},
    'required': ['addFloatingIp'], 'additionalProperties': False,
}

remove_floating_ip = {
    'type': 'object',
    'properties': {'removeFloatingIp': {
        'type': 'object', 'properties': {'address': _ip_address},
        'required': ['address'], 'additionalProperties': False}},
    'required': ['removeFloatingIp'], 'additionalProperties': False,
}

add_fixed_ip = {
    'type': 'object',
    'properties': {'addFixedIp': {
        'type': 'object',
        'properties': {'networkId': dict(_int, type=['string', 'number'], minLength=1,
                                         maxLength=255,
                                         pattern='^(?! )[a-zA-Z0-9. _-]+(?<! )$')},
        'required': ['networkId'], 'additionalProperties': False}},
    'required': ['addFixedIp'], 'additionalProperties': False,
}

remove_fixed_ip = {
    'type': 'object',
    'properties': {'removeFixedIp': {
        'type': 'object', 'properties': {'address': _ip_address},
        'required': ['address'], 'additionalProperties': False}},
    'required': ['removeFixedIp'], 'additionalProperties': False,
}
