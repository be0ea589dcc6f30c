"""Handlers of /servers/{id}/os-volume_attachments: list, show, attach, update, detach."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import volume_attachments as schemas
from nova.policies import server_actions as policies


def view(req, bdm, server_id, listing=False):
    body = {'serverId': server_id, 'volumeId': bdm['volume_id'], 'device': bdm['device_name']}
    if not (listing and req.is_at_least(mv.ATTACHMENT_IDS)):
        body['id'] = bdm['volume_id']
    if req.is_at_least(mv.ATTACHMENT_TAG_SHOWN):
        body['tag'] = bdm['tag']
    if req.is_at_least(mv.DELETE_ON_TERMINATION):
        body['delete_on_termination'] = bool(bdm['delete_on_termination'])
    if listing and req.is_at_least(mv.ATTACHMENT_IDS):
        body['attachment_id'] = bdm['attachment_id']
        body['bdm_uuid'] = bdm['uuid']
    return body


def _instance(req, server_id, policy):
    instance = req.app.compute_api.servers.get(req.context, server_id)
    req.context.can(policy,
                    target={'project_id': instance['project_id']})
    return instance


def _volume_bdms(req, instance):
    return req.app.compute_api.volumes.volume_attachments(req.context, instance)


def _find(req, instance, volume_id):
    bdm = next((b for b in _volume_bdms(req, instance) if b['volume_id'] == volume_id), None)
    if bdm is None:
        raise wsgi.fault(404, 'Volume %s is not attached to the server.' % volume_id)
    return bdm


def index(req, server_id):
    instance = _instance(req, server_id, policies.VOLUME_ATTACHMENTS_INDEX)
    items = [view(req, b, instance['uuid'], listing=True) for b in _volume_bdms(req, instance)]
    return wsgi.json_response({'volumeAttachments': items})


def show(req, server_id, volume_id):
    instance = _instance(req, server_id, policies.VOLUME_ATTACHMENTS_SHOW)
    return wsgi.json_response({'volumeAttachment': view(req, _find(req, instance, volume_id),
                                                        instance['uuid'], listing=True)})


@validation.schema(schemas.attach_v2_1, mv.MIN, mv.before(mv.VOLUME_ATTACH_TAG))
@validation.schema(schemas.attach_v2_49, mv.VOLUME_ATTACH_TAG,
                   mv.before(mv.DELETE_ON_TERMINATION))
@validation.schema(schemas.attach_v2_79, mv.DELETE_ON_TERMINATION)
def create(req, server_id, body):
    instance = _instance(req, server_id, policies.VOLUME_ATTACHMENTS_CREATE)
    spec = body['volumeAttachment']
    bdm = req.app.compute_api.volumes.attach_volume(
        req.context, instance, spec['volumeId'], device=spec.get('device'),
        tag=spec.get('tag'), delete_on_termination=spec.get('delete_on_termination', False),
        supports_multiattach=req.is_at_least(mv.MULTIATTACH))
    status = 202 if req.is_at_least(mv.ASYNC_VOLUME_ATTACH) else 200
    return wsgi.json_response({'volumeAttachment': view(req, bdm, instance['uuid'])},
                              status=status)


def update(req, server_id, volume_id):
    if not req.is_at_least(mv.ATTACHMENT_UPDATE):
        return _swap(req, server_id, volume_id)
    return _update_v2_85(req, server_id, volume_id)


@validation.schema(schemas.update_v2_1, mv.MIN, mv.before(mv.ATTACHMENT_UPDATE))
def _swap(req, server_id, volume_id, body):
    instance = _swap_instance(req, server_id)
    req.app.compute_api.volumes.swap_volume(req.context, instance, volume_id,
                                            body['volumeAttachment']['volumeId'])


def _swap_instance(req, server_id):
    # Cinder calls the swap for another project's server: no project target, as upstream.
    instance = req.app.compute_api.servers.get(req.context, server_id)
    req.context.can(policies.VOLUME_ATTACHMENTS_SWAP, target={})
    return instance


@validation.schema(schemas.update_v2_85, mv.ATTACHMENT_UPDATE)
def _update_v2_85(req, server_id, volume_id, body):
    spec = body['volumeAttachment']
    swap = spec['volumeId'] != volume_id
    if swap:
        instance = _swap_instance(req, server_id)
    else:
        instance = _instance(req, server_id, policies.VOLUME_ATTACHMENTS_UPDATE)
    bdm = _find(req, instance, volume_id)
    # Every shown field may come back, unchanged: upstream's messages otherwise.
    for key, current in (('id', volume_id), ('serverId', instance['uuid']),
                         ('device', bdm['device_name']), ('tag', bdm['tag'])):
        if key in spec and spec[key] != current:
            raise wsgi.fault(400, 'The %s property is not mutable' % key)
    if 'delete_on_termination' in spec:
        req.app.compute_api.volumes.set_delete_on_termination(req.context, instance, bdm,
                                                              spec['delete_on_termination'])
    if swap:
        req.app.compute_api.volumes.swap_volume(req.context, instance, volume_id, spec['volumeId'])
    return wsgi.empty_response(202)


def delete(req, server_id, volume_id):
    instance = _instance(req, server_id, policies.VOLUME_ATTACHMENTS_DELETE)
    bdm = _find(req, instance, volume_id)
    req.app.compute_api.volumes.detach_volume(req.context, instance, bdm)
    return wsgi.empty_response(202)


