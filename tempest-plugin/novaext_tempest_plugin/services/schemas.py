"""Response schemas for this service's microversions above upstream's 2.100 schemas.

2.101-2.104 change nothing in the server bodies; 2.105 adds
image_props_override (an object of strings, {} for a server created without)
to every full server body; 2.106 changes only the rescue request.
"""

import copy

from tempest.lib.api_schema.response.compute.v2_100 import servers as servers_v2_100

_OVERRIDES = {
    'type': 'object',
    'patternProperties': {r'^[a-zA-Z0-9_:.\-]{1,255}$': {'type': 'string',
                                                         'maxLength': 255}},
    'additionalProperties': False,
}


def _with_overrides(schema, many=False):
    """``schema`` with image_props_override required in its server body."""
    schema = copy.deepcopy(schema)
    body = schema['response_body']['properties']
    server = body['servers']['items'] if many else body['server']
    server['properties']['image_props_override'] = _OVERRIDES
    server['required'].append('image_props_override')
    return schema


class _Schemas:
    """A module-like object: every 2.100 schema, four of them extended."""

    def __init__(self):
        for name in dir(servers_v2_100):
            value = getattr(servers_v2_100, name)
            if not name.startswith('_') and isinstance(value, dict):
                setattr(self, name, copy.deepcopy(value))
        self.get_server = _with_overrides(servers_v2_100.get_server)
        self.update_server = _with_overrides(servers_v2_100.update_server)
        self.rebuild_server = _with_overrides(servers_v2_100.rebuild_server)
        self.rebuild_server_with_admin_pass = _with_overrides(
            servers_v2_100.rebuild_server_with_admin_pass)
        self.list_servers_detail = _with_overrides(servers_v2_100.list_servers_detail,
                                                   many=True)


# 2.105: image_props_override in show, detail, update and rebuild.
v2_105 = _Schemas()
