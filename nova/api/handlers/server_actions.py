"""POST /servers/{id}/action: the core server actions, one small handler per action key."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import server_actions as schemas
from nova.api.views import servers as views
from nova.compute import server_requests
from nova.policies import server_actions as policies


def _instance(req, server_id, policy):
    instance = req.app.compute_api.servers.get(req.context, server_id)
    req.context.can(policy, target={'project_id': instance['project_id'],
                                    'user_id': instance['user_id']})
    return instance


def _null_action(policy, spec_key):
    def handler(req, server_id, body):
        instance = _instance(req, server_id, policy)
        req.app.compute_api.actions.power_action(req.context, instance, spec_key)
        return wsgi.empty_response(202)
    return handler


@validation.schema(schemas.reboot)
def reboot(req, server_id, body):
    instance = _instance(req, server_id, policies.REBOOT)
    kind = body['reboot']['type'].upper()
    req.app.compute_api.actions.power_action(req.context, instance,
                                             'reboot_hard' if kind == 'HARD' else 'reboot_soft')
    return wsgi.empty_response(202)


@validation.schema(schemas.lock_v2_73, mv.LOCKED_REASON)
def lock(req, server_id, body):
    reason = None
    if req.is_at_least(mv.LOCKED_REASON):
        reason = (body['lock'] or {}).get('locked_reason')
    instance = _instance(req, server_id, policies.LOCK)
    req.app.compute_api.actions.lock(req.context, instance, reason=reason)
    return wsgi.empty_response(202)


def unlock(req, server_id, body):
    instance = _instance(req, server_id, policies.UNLOCK)
    if instance['locked_by'] == 'admin' and not req.context.is_admin:
        req.context.can(policies.UNLOCK_OVERRIDE, target={
            'project_id': instance['project_id']})
    req.app.compute_api.actions.unlock(req.context, instance)
    return wsgi.empty_response(202)


@validation.schema(schemas.console_output)
def console_output(req, server_id, body):
    instance = _instance(req, server_id, policies.CONSOLE_OUTPUT)
    length = body['os-getConsoleOutput'].get('length')
    length = None if length in (None, -1, '-1') else int(length)
    output = req.app.compute_api.actions.get_console_output(req.context, instance, length=length)
    return wsgi.json_response({'output': output})


@validation.schema(schemas.create_image)
def create_image(req, server_id, body):
    instance = _instance(req, server_id, policies.CREATE_IMAGE)
    spec = body['createImage']
    image_id = req.app.compute_api.actions.snapshot(req.context, instance, spec['name'],
                                                    spec.get('metadata', {}))
    if req.is_at_least(mv.IMAGE_ID_IN_BODY):
        return wsgi.json_response({'image_id': image_id}, status=202)
    resp = wsgi.empty_response(202)
    resp.headers['Location'] = req.url_for('images', image_id)
    return resp


# Rebuild body keys and the RebuildRequest fields they set when present.
_REBUILD_FIELDS = (('name', 'name'), ('description', 'description'), ('metadata', 'metadata'),
                   ('hostname', 'hostname'), ('user_data', 'user_data'),
                   ('accessIPv4', 'access_ip_v4'), ('accessIPv6', 'access_ip_v6'),
                   ('key_name', 'key_name'),
                   ('trusted_image_certificates', 'trusted_certs'))


def rebuild_request(spec, reimage_boot_volume=False):
    """The typed request for a validated rebuild body; absent keys stay UNSET."""
    return server_requests.RebuildRequest(
        image_ref=spec['imageRef'], admin_password=spec.get('adminPass'),
        personality=spec.get('personality'), disk_config=spec.get('OS-DCF:diskConfig'),
        reimage_boot_volume=reimage_boot_volume,
        **{field: spec[key] for key, field in _REBUILD_FIELDS if key in spec})


@validation.schema(schemas.rebuild_v2_1, mv.MIN, mv.before(mv.DESCRIPTION))
@validation.schema(schemas.rebuild_v2_19, mv.DESCRIPTION, mv.before(mv.KEYPAIR_ON_REBUILD))
@validation.schema(schemas.rebuild_v2_54, mv.KEYPAIR_ON_REBUILD,
                   mv.before(mv.PERSONALITY_REMOVED))
@validation.schema(schemas.rebuild_v2_57, mv.PERSONALITY_REMOVED, mv.before(mv.TRUSTED_CERTS))
@validation.schema(schemas.rebuild_v2_63, mv.TRUSTED_CERTS, mv.before(mv.HOSTNAME_FOR_USERS))
@validation.schema(schemas.rebuild_v2_90, mv.HOSTNAME_FOR_USERS)
def rebuild(req, server_id, body):
    instance = _instance(req, server_id, policies.REBUILD)
    instance, password = req.app.compute_api.rebuild.rebuild(
        req.context, instance, rebuild_request(
            body['rebuild'], reimage_boot_volume=req.is_at_least(mv.REBUILD_VOLUME_BACKED)))
    from nova.api.handlers import servers as servers_handlers
    server = views.show(servers_handlers._view_context(req, [instance]), instance)
    if not req.is_at_least(mv.FULL_UPDATE_BODY):
        key_name = server.get('key_name')
        server = servers_handlers.trim_before_2_75(server)
        if req.is_at_least(mv.REBUILD_KEY_NAME):
            server['key_name'] = key_name
    # Upstream's rebuild view leaves out OS-EXT-SRV-ATTR:user_data at every microversion
    # (show_user_data=False); from 2.57 the plain user_data below stands in for it.
    server.pop('OS-EXT-SRV-ATTR:user_data', None)
    if req.is_at_least(mv.PERSONALITY_REMOVED):
        # 2.57 replaced personality files with user_data, which rebuild echoes
        # to every caller (tempest's rebuild schema requires it).
        server['user_data'] = instance['user_data']
    if password is not None:
        server['adminPass'] = password
    # Upstream adds these after the view, whatever it carried.
    if req.is_at_least(mv.KEYPAIR_ON_REBUILD):
        server['key_name'] = instance['key_name']
    if req.is_at_least(mv.USER_DATA_ON_REBUILD):
        server['user_data'] = instance['user_data']
    return wsgi.json_response({'server': server}, status=202)


stop = _null_action(policies.STOP, 'stop')
start = _null_action(policies.START, 'start')
pause = _null_action(policies.PAUSE, 'pause')
unpause = _null_action(policies.UNPAUSE, 'unpause')
suspend = _null_action(policies.SUSPEND, 'suspend')
resume = _null_action(policies.RESUME, 'resume')


# Upstream's server actions this service does not (yet) offer. Upstream knows them, so it
# looks the server up first (404 for an unknown one) and only then answers.
UPSTREAM_ONLY = frozenset([
    'migrate', 'resize', 'confirmResize', 'revertResize', 'shelve',
    'shelveOffload', 'unshelve', 'changePassword', 'restore', 'forceDelete',
    'trigger_crash_dump', 'os-resetState', 'resetNetwork', 'injectNetworkInfo',
    'os-getVNCConsole', 'os-getSPICEConsole', 'os-getSerialConsole', 'os-getRDPConsole',
])


def unsupported(req, server_id, body):
    req.app.compute_api.servers.get(req.context, server_id)
    raise wsgi.fault(400, 'The requested functionality is not supported: %s.'
                     % next(iter(body)))


def action_name(req):
    """The one action key of a POST /servers/{id}/action body."""
    body = req.json_body()
    if not isinstance(body, dict) or len(body) != 1:
        raise wsgi.fault(400, 'Malformed request body: exactly one action is required.')
    return next(iter(body)), body


def no_such_action(name, status=400):
    return wsgi.fault(status, 'There is no such action: %s' % name)
