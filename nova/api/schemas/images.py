"""Request schemas of the image proxy's metadata (microversions up to 2.35)."""

from nova.api.schemas import types

metadata = {
    'type': 'object',
    'properties': {'metadata': types.metadata},
    'required': ['metadata'], 'additionalProperties': False,
}

# PUT /images/{id}/metadata/{key}: exactly one item.
meta_item = {
    'type': 'object',
    'properties': {'meta': dict(types.metadata, minProperties=1, maxProperties=1)},
    'required': ['meta'], 'additionalProperties': False,
}

list_query = {'type': 'object', 'properties': {
    'name': {'type': 'string'}, 'status': {'type': 'string'},
    'changes-since': {'type': 'string', 'format': 'date-time'},
    'server': {'type': 'string'}, 'type': {'type': 'string'},
    'minRam': {'type': 'string', 'pattern': '^[0-9]+$'},
    'minDisk': {'type': 'string', 'pattern': '^[0-9]+$'},
    'limit': {'type': 'string', 'pattern': '^[0-9]+$'},
    'marker': {'type': 'string'},
}}
