"""Remote consoles: POST /servers/{id}/remote-consoles (2.6+), the legacy get-console
actions (2.1-2.5) and GET /os-console-auth-tokens/{token}."""

from nova import exception
from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import remote_consoles as schemas
from nova.policies import consoles as policies

# The protocol/type pairs this service serves, as console types of its proxies
# (spice-direct, which the 2.99 schema alone accepts, is for a native SPICE proxy).
_SERVED = {('vnc', 'novnc'): 'novnc', ('serial', 'serial'): 'serial',
           ('spice', 'spice-html5'): 'spice-html5', ('spice', 'spice-direct'): 'spice-direct'}


def _console_url(req, server_id, console_type, policy):
    ctx = req.context
    instance = req.app.compute_api.servers.get(ctx, server_id)
    ctx.can(policy, target={'project_id': instance['project_id'],
                            'user_id': instance['user_id']})
    return req.app.compute_api.consoles.get_console_url(ctx, instance, console_type)


@validation.schema(schemas.create_v2_6, mv.REMOTE_CONSOLES, mv.before(mv.MKS))
@validation.schema(schemas.create_v2_8, mv.MKS, mv.before(mv.SPICE_DIRECT))
@validation.schema(schemas.create_v2_99, mv.SPICE_DIRECT)
def create(req, server_id, body):
    spec = body['remote_console']
    console_type = _SERVED.get((spec['protocol'], spec['type']))
    if console_type is None:
        req.app.compute_api.servers.get(req.context, server_id)     # 404 first, as upstream
        raise exception.ConsoleTypeUnavailable(console_type=spec['type'])
    url = _console_url(req, server_id, console_type, policies.REMOTE_CONSOLES)
    return wsgi.json_response({'remote_console': {
        'protocol': spec['protocol'], 'type': spec['type'], 'url': url}})


def _legacy(schema, action, served_types):
    @validation.schema(schema)
    def handler(req, server_id, body):
        console_type = body[action]['type']
        if console_type not in served_types:
            req.app.compute_api.servers.get(req.context, server_id)
            raise exception.ConsoleTypeUnavailable(console_type=console_type)
        url = _console_url(req, server_id, console_type, policies.REMOTE_CONSOLES)
        return wsgi.json_response({'console': {'type': console_type, 'url': url}})
    return handler


def token_show(req, console_token):
    req.context.can(policies.CONSOLE_AUTH_TOKENS)
    try:
        row = req.app.compute_api.consoles.console_token_show(req.context, console_token)
    except exception.InvalidToken:
        raise wsgi.fault(404, 'Token not found') from None
    if not req.is_at_least(mv.ANY_CONSOLE_TOKEN) and row['console_type'] != 'rdp-html5':
        raise wsgi.fault(401, 'The requested console type details are not accessible')
    console = {'instance_uuid': row['instance_uuid'], 'host': row['host'],
               'port': row['port'], 'internal_access_path': row['internal_access_path']}
    if req.is_at_least(mv.SPICE_DIRECT) and row['console_type'] == 'spice-direct':
        # As upstream: only spice-direct tokens tell the TLS port (None without TLS).
        console['tls_port'] = row['tls_port']
    return wsgi.json_response({'console': console})


# The legacy console actions; the router serves them up to
# mv.LEGACY_CONSOLE_ACTIONS_LAST (POST /servers/{id}/remote-consoles replaces them).
get_vnc_console = _legacy(schemas.get_vnc, 'os-getVNCConsole', ('novnc',))
get_serial_console = _legacy(schemas.get_serial, 'os-getSerialConsole', ('serial',))
get_spice_console = _legacy(schemas.get_spice, 'os-getSPICEConsole', ('spice-html5',))
get_rdp_console = _legacy(schemas.get_rdp, 'os-getRDPConsole', ())
