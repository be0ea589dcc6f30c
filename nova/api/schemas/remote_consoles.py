"""Request schemas of remote consoles and the legacy get-console actions."""

from nova.api import microversion as mv

_PROTOCOLS_V2_6 = ['vnc', 'spice', 'rdp', 'serial']
_TYPES_V2_6 = ['novnc', 'xvpvnc', 'rdp-html5', 'spice-html5', 'serial']


def _remote_console(version):
    protocols = list(_PROTOCOLS_V2_6)
    types = list(_TYPES_V2_6)
    # 2.8: mks/webmks (accepted by the schema, then 400 as unavailable: this
    # service has no MKS consoles); 2.99: spice-direct.
    if version >= mv.MKS:
        protocols.append('mks')
        types.append('webmks')
    if version >= mv.SPICE_DIRECT:
        types.append('spice-direct')
    return {
        'type': 'object',
        'properties': {'remote_console': {
            'type': 'object',
            'properties': {'protocol': {'type': 'string', 'enum': protocols},
                           'type': {'type': 'string', 'enum': types}},
            'required': ['protocol', 'type'], 'additionalProperties': False}},
        'required': ['remote_console'], 'additionalProperties': False,
    }


# The schema of each range of versions, oldest first.
create_v2_6 = _remote_console(mv.REMOTE_CONSOLES)
# 2.8: protocol mks, type webmks.
create_v2_8 = _remote_console(mv.MKS)
# 2.99: type spice-direct.
create_v2_99 = _remote_console(mv.SPICE_DIRECT)


def _action_schema(action, types):
    return {
        'type': 'object',
        'properties': {action: {
            'type': 'object',
            'properties': {'type': {'type': 'string', 'enum': types}},
            'required': ['type'], 'additionalProperties': False}},
        'required': [action], 'additionalProperties': False,
    }


get_vnc = _action_schema('os-getVNCConsole', ['novnc', 'xvpvnc'])
get_serial = _action_schema('os-getSerialConsole', ['serial'])
get_spice = _action_schema('os-getSPICEConsole', ['spice-html5'])
get_rdp = _action_schema('os-getRDPConsole', ['rdp-html5'])
