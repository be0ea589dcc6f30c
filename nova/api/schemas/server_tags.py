"""Request schemas of /servers/{id}/tags."""

from nova.api.schemas import types

# Upstream's limit of tags per server.
MAX_TAGS = 50
tags = {'type': 'object',
              'properties': {'tags': {'type': 'array', 'items': types.tag,
                                      'maxItems': MAX_TAGS}},
              'required': ['tags'], 'additionalProperties': False}
