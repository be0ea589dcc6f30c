"""Server actions os-resetState, createBackup, restore, forceDelete, and GET diagnostics."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import admin_actions as schemas
from nova.policies import admin_actions as policies


def _instance(req, server_id, policy):
    instance = req.app.compute_api.servers.get(req.context, server_id)
    req.context.can(policy, target={'project_id': instance['project_id'],
                                    'user_id': instance['user_id']})
    return instance


@validation.schema(schemas.reset_state)
def reset_state(req, server_id, body):
    instance = _instance(req, server_id, policies.RESET_STATE)
    req.app.compute_api.admin_actions.reset_state(req.context, instance,
                                                  body['os-resetState']['state'])
    return wsgi.empty_response(202)


@validation.schema(schemas.inject_network_info)
def inject_network_info(req, server_id, body):
    """Accepted as upstream; with no network service there is nothing to inject."""
    instance = _instance(req, server_id, policies.INJECT_NETWORK_INFO)
    if not instance['host']:
        raise wsgi.fault(409, 'Cannot \'injectNetworkInfo\' instance %s while it is in '
                              'host None' % instance['uuid'])
    return wsgi.empty_response(202)


@validation.schema(schemas.create_backup)
def create_backup(req, server_id, body):
    instance = _instance(req, server_id, policies.CREATE_BACKUP)
    spec = body['createBackup']
    rotation = int(spec['rotation'])
    # Upstream links the backup to its server in the image properties.
    metadata = dict(spec.get('metadata') or {},
                    instance_ref=req.url_for('servers', server_id, versioned=False))
    image_id = req.app.compute_api.admin_actions.backup(req.context, instance, spec['name'],
                                                        spec['backup_type'], rotation, metadata)
    if req.is_at_least(mv.IMAGE_ID_IN_BODY):
        return wsgi.json_response({'image_id': image_id}, status=202)
    resp = wsgi.empty_response(202)
    if rotation > 0:
        resp.headers['Location'] = req.url_for('images', image_id)
    return resp


@validation.schema(schemas.restore)
def restore(req, server_id, body):
    instance = _instance(req, server_id, policies.RESTORE)
    req.app.compute_api.deletion.restore(req.context, instance)
    return wsgi.empty_response(202)


@validation.schema(schemas.force_delete)
def force_delete(req, server_id, body):
    instance = _instance(req, server_id, policies.FORCE_DELETE)
    req.app.compute_api.deletion.force_delete(req.context, instance)
    return wsgi.empty_response(202)


def diagnostics(req, server_id):
    instance = _instance(req, server_id, policies.DIAGNOSTICS)
    try:
        body = req.app.compute_api.admin_actions.get_diagnostics(
            req.context, instance, standard=req.is_at_least(mv.STANDARD_DIAGNOSTICS))
    except NotImplementedError:
        raise wsgi.fault(501, 'Unable to get diagnostics, functionality not implemented')
    return wsgi.json_response(body)
