"""Handlers of /servers/{id}/tags (microversion 2.26)."""

from nova import vm_states as vs
from nova.api import validation, wsgi
from nova.api.schemas import server_tags as schemas
from nova.api.schemas import types
from nova.compute import api_core
from nova.policies import server_actions as policies

_SPEC = api_core.ActionSpec('update tags', (vs.ACTIVE, vs.PAUSED, vs.SUSPENDED, vs.STOPPED,
                                            vs.SHELVED, vs.SHELVED_OFFLOADED), (None,), None)


def _instance(req, server_id, policy, writing=False):
    instance = req.app.compute_api.servers.get(req.context, server_id)
    req.context.can(policy,
                    target={'project_id': instance['project_id']})
    if writing:
        api_core.check_locked(req.context, instance)
        if instance['vm_state'] not in _SPEC.vm_states or instance['task_state'] is not None:
            api_core.check_state(instance, _SPEC)
    return instance


def _save(req, instance, tags):
    return req.app.compute_api.servers.update(req.context, instance, {'tags': sorted(set(tags))})


def index(req, server_id):
    return wsgi.json_response({'tags': _instance(req, server_id, policies.TAGS_INDEX)['tags']})


@validation.schema(schemas.tags)
def update_all(req, server_id, body):
    instance = _instance(req, server_id, policies.TAGS_UPDATE_ALL, writing=True)
    return wsgi.json_response({'tags': _save(req, instance, body['tags'])['tags']})


def delete_all(req, server_id):
    _save(req, _instance(req, server_id, policies.TAGS_DELETE_ALL, writing=True), [])
    return wsgi.empty_response(204)


def show(req, server_id, tag):
    if tag not in _instance(req, server_id, policies.TAGS_SHOW)['tags']:
        raise wsgi.fault(404, 'Tag %s not found' % tag)
    return wsgi.empty_response(204)


def update(req, server_id, tag):
    validation.validate(types.tag, tag)
    instance = _instance(req, server_id, policies.TAGS_UPDATE, writing=True)
    if tag in instance['tags']:
        return wsgi.empty_response(204)
    if len(instance['tags']) >= schemas.MAX_TAGS:
        raise wsgi.fault(400, 'The number of tags exceeded the per-server limit %d'
                         % schemas.MAX_TAGS)
    _save(req, instance, instance['tags'] + [tag])
    resp = wsgi.empty_response(201)
    resp.headers['Location'] = req.url_for('servers', server_id, 'tags', tag)
    return resp


def delete(req, server_id, tag):
    instance = _instance(req, server_id, policies.TAGS_DELETE, writing=True)
    if tag not in instance['tags']:
        raise wsgi.fault(404, 'Tag %s not found' % tag)
    _save(req, instance, [t for t in instance['tags'] if t != tag])
    return wsgi.empty_response(204)
