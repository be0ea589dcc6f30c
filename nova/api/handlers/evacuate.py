"""The evacuate server action: upstream's request checks and answers."""

from oslo_utils import strutils

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.handlers import server_actions
from nova.api.schemas import evacuate as schemas
from nova.compute import request_values
from nova.policies import evacuate as policies


@validation.schema(schemas.evacuate, mv.MIN, mv.before(mv.EVACUATE_NO_SHARED_STORAGE))
@validation.schema(schemas.evacuate_v2_14, mv.EVACUATE_NO_SHARED_STORAGE,
                   mv.before(mv.EVACUATE_FORCE))
@validation.schema(schemas.evacuate_v2_29, mv.EVACUATE_FORCE,
                   mv.before(mv.EVACUATE_FORCE_REMOVED))
@validation.schema(schemas.evacuate_v2_68, mv.EVACUATE_FORCE_REMOVED)
def evacuate(req, server_id, body):
    """200 (upstream's code for this asynchronous action); before 2.14 with the password."""
    args = body['evacuate']
    instance = server_actions._instance(req, server_id, policies.EVACUATE)
    host = args.get('host')
    legacy = not req.is_at_least(mv.EVACUATE_NO_SHARED_STORAGE)
    password = args.get('adminPass')
    if legacy:
        shared = strutils.bool_from_string(args['onSharedStorage'], strict=True)
        if shared and password is not None:
            raise wsgi.fault(400, "admin password can't be changed on existing disk")
        if shared:
            # Instance directories are each host's own here: nothing to find there.
            raise wsgi.fault(400, 'Invalid onSharedStorage: instance files are not on '
                                  'storage shared between compute hosts here; evacuate '
                                  'with onSharedStorage false (the server is rebuilt '
                                  'from its image and keeps its volumes).')
    force = strutils.bool_from_string(args.get('force', False), strict=True)
    if force and not host:
        raise wsgi.fault(400, "Can't force to a non-provided destination")
    password = password or request_values.generate_password()
    stopped = req.is_at_least(mv.EVACUATE_STOPPED)
    req.app.compute_api.evacuation.evacuate(req.context, instance, host=host,
                                            admin_password=password, force=force,
                                            stopped=stopped)
    if legacy and req.app.conf.api.enable_instance_password:
        return wsgi.json_response({'adminPass': password})
    return wsgi.empty_response(200)
