"""Request schemas of the resize, migrate and shelve server actions."""

import copy

_flavor_ref = {'type': ['string', 'integer'], 'minLength': 1}
resize = {
    'type': 'object',
    'properties': {'resize': {
        'type': 'object',
        'properties': {'flavorRef': _flavor_ref,
                       'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']}},
        'required': ['flavorRef'], 'additionalProperties': False}},
    'required': ['resize'], 'additionalProperties': False,
}
_host = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': '^[a-zA-Z0-9-._]*$'}


def _action(name, spec):
    return {'type': 'object', 'properties': {name: spec}, 'required': [name],
            'additionalProperties': False}


# 2.56: an optional target host.
migrate_v2_56 = _action('migrate', {
    'type': ['object', 'null'],
    'properties': {'host': {'type': ['string', 'null'], 'minLength': 1,
                            'maxLength': 255, 'pattern': '^[a-zA-Z0-9-._]*$'}},
    'additionalProperties': False})
# 2.77: an availability zone.
unshelve_v2_77 = _action('unshelve', {
    'type': ['object', 'null'],
    'properties': {'availability_zone': {'type': 'string', 'minLength': 1,
                                         'maxLength': 255}},
    'additionalProperties': False})
# 2.91: a host, and an explicit null availability_zone means "any zone".
unshelve_v2_91 = copy.deepcopy(unshelve_v2_77)
unshelve_v2_91['properties']['unshelve']['properties'] = {
    'availability_zone': {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255},
    'host': _host}
