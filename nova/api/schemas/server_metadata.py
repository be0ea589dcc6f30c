"""Request schemas of /servers/{id}/metadata."""

from nova.api.schemas import types

metadata = {'type': 'object', 'properties': {'metadata': types.metadata},
                  'required': ['metadata'], 'additionalProperties': False}
meta_item = {'type': 'object', 'properties': {'meta': dict(types.metadata, minProperties=1,
                                                         maxProperties=1)},
              'required': ['meta'], 'additionalProperties': False}
