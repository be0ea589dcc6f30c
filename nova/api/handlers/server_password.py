"""changePassword (the guest agent sets it) and GET/DELETE /servers/{id}/os-server-password."""

from nova.api import validation, wsgi
from nova.api.schemas import server_actions as schemas
from nova.policies import consoles as policies


def _instance(req, server_id, policy):
    instance = req.app.compute_api.servers.get(req.context, server_id)
    req.context.can(policy, target={'project_id': instance['project_id'],
                                    'user_id': instance['user_id']})
    return instance


@validation.schema(schemas.change_password)
def change_password(req, server_id, body):
    instance = _instance(req, server_id, policies.ADMIN_PASSWORD)
    try:
        req.app.compute_api.password.set_admin_password(req.context, instance,
                                                        body['changePassword']['adminPass'])
    except NotImplementedError:
        raise wsgi.fault(501, 'Unable to set password on instance') from None
    return wsgi.empty_response(202)


def show(req, server_id):
    instance = _instance(req, server_id, policies.SERVER_PASSWORD_SHOW)
    return wsgi.json_response({'password': req.app.compute_api.password.get_server_password(
        req.context, instance)})


def clear(req, server_id):
    instance = _instance(req, server_id, policies.SERVER_PASSWORD_CLEAR)
    req.app.compute_api.password.clear_server_password(req.context, instance)
    return wsgi.empty_response(204)
