"""Request schemas of the flavors resource."""

import copy

from nova.api.schemas import types

create_v2_1 = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {
                'name': types.name,
                'id': {'type': ['string', 'number', 'null'], 'minLength': 1,
                       'maxLength': 255, 'pattern': r'^(?! )[a-zA-Z0-9. _-]+(?<! )$'},
                'ram': {'type': ['integer', 'string'], 'pattern': '^[0-9]+$',
                        'minimum': 1, 'maximum': types.MAX_INT},
                'vcpus': {'type': ['integer', 'string'], 'pattern': '^[0-9]+$',
                          'minimum': 1, 'maximum': types.MAX_INT},
                'disk': types.non_negative_integer,
                'OS-FLV-EXT-DATA:ephemeral': types.non_negative_integer,
                'swap': types.non_negative_integer,
                # Upstream bounds it by the float column (3.40282e+38).
                'rxtx_factor': {'type': ['number', 'string'],
                                'pattern': r'^[0-9]+(\.[0-9]+)?$',
                                'minimum': 0, 'exclusiveMinimum': True,
                                'maximum': 3.40282e+38},
                'os-flavor-access:is_public': types.boolean,
            },
            'required': ['name', 'ram', 'vcpus', 'disk'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

# 2.55: description.
create_v2_55 = copy.deepcopy(create_v2_1)
create_v2_55['properties']['flavor']['properties']['description'] = types.description

list_query = {'type': 'object', 'properties': {
    'limit': {'type': 'string', 'pattern': '^[0-9]+$'},
    'marker': {'type': 'string'},
    'is_public': {'type': 'string'},
    'minRam': {'type': 'string', 'pattern': '^[0-9]+$'},
    'minDisk': {'type': 'string', 'pattern': '^[0-9]+$'},
    'sort_key': {'type': 'string', 'enum': ['created_at', 'description', 'disabled',
                                            'ephemeral_gb', 'flavorid', 'id', 'is_public',
                                            'memory_mb', 'name', 'root_gb', 'rxtx_factor',
                                            'swap', 'updated_at', 'vcpus']},
    'sort_dir': {'type': 'string', 'enum': ['asc', 'desc']},
}}

# 2.55: PUT /flavors/{id} updates the description only.
update_v2_55 = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {'description': types.description},
            'required': ['description'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

_spec_value = {'type': ['string', 'number', 'boolean'], 'minLength': 1, 'maxLength': 255}
_specs = {
    'type': 'object',
    'patternProperties': {'^[a-zA-Z0-9-_:. ]{1,255}$': _spec_value},
    'additionalProperties': False,
}
extra_specs_create = {
    'type': 'object',
    'properties': {'extra_specs': _specs},
    'required': ['extra_specs'],
    'additionalProperties': False,
}
# PUT /flavors/{id}/os-extra_specs/{key}: exactly the one key of the URL.
extra_spec_update = dict(_specs, minProperties=1, maxProperties=1)

_tenant = {
    'type': 'object',
    'properties': {'tenant': {'type': 'string', 'minLength': 1, 'maxLength': 255}},
    'required': ['tenant'],
    'additionalProperties': False,
}
add_tenant_access = {'type': 'object', 'properties': {'addTenantAccess': _tenant},
                     'required': ['addTenantAccess'], 'additionalProperties': False}
remove_tenant_access = {'type': 'object', 'properties': {'removeTenantAccess': _tenant},
                        'required': ['removeTenantAccess'], 'additionalProperties': False}
