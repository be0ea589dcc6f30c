"""Request bodies of the os-migrateLive server action, per microversion (upstream's)."""

import copy

from nova.api.schemas import types

_host = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
         'pattern': '^[a-zA-Z0-9-._]*$'}


def _body(properties, required):
    return {'type': 'object',
            'properties': {'os-migrateLive': {
                'type': 'object', 'properties': properties, 'required': required,
                'additionalProperties': False}},
            'required': ['os-migrateLive'], 'additionalProperties': False}


migrate_live = _body({'block_migration': types.boolean, 'disk_over_commit': types.boolean,
                      'host': _host}, ['block_migration', 'disk_over_commit', 'host'])
# 2.25: disk_over_commit gone; block_migration may be 'auto'.
_block_auto = copy.deepcopy(types.boolean)
_block_auto['enum'] = _block_auto['enum'] + ['auto']
migrate_live_v2_25 = _body({'block_migration': _block_auto, 'host': _host},
                           ['block_migration', 'host'])
# 2.30: force (skip the scheduler's checks of the named host); 2.68 takes it away.
migrate_live_v2_30 = _body({'block_migration': _block_auto, 'host': _host,
                            'force': types.boolean}, ['block_migration', 'host'])
migrate_live_v2_68 = migrate_live_v2_25
