"""Handlers of /servers/{id}/metadata and /servers/{id}/metadata/{key}."""

from nova import vm_states as vs
from nova.api import validation, wsgi
from nova.api.schemas import server_metadata as schemas
from nova.compute import api_core
from nova.policies import server_actions as policies

_SPEC = api_core.ActionSpec('update_metadata', (vs.ACTIVE, vs.PAUSED, vs.SUSPENDED,
                                                vs.STOPPED), (None,), None)


def _instance(req, server_id, policy, writing=False):
    instance = req.app.compute_api.servers.get(req.context, server_id)
    req.context.can(policy,
                    target={'project_id': instance['project_id']})
    if writing:
        api_core.check_locked(req.context, instance)
        if instance['vm_state'] not in _SPEC.vm_states or instance['task_state'] is not None:
            api_core.check_state(instance, _SPEC)
    return instance


def _save(req, instance, metadata):
    # The instance's project's metadata_items quota (a 403 with upstream's message).
    req.app.compute_api.quota.check_metadata(req.context, metadata, instance['project_id'])
    return req.app.compute_api.servers.update(req.context, instance, {'metadata': metadata})


def index(req, server_id):
    instance = _instance(req, server_id, policies.METADATA_INDEX)
    return wsgi.json_response({'metadata': instance['metadata']})


@validation.schema(schemas.metadata)
def create(req, server_id, body):
    instance = _instance(req, server_id, policies.METADATA_CREATE, writing=True)
    merged = dict(instance['metadata'], **body['metadata'])
    return wsgi.json_response({'metadata': _save(req, instance, merged)['metadata']})


@validation.schema(schemas.metadata)
def update_all(req, server_id, body):
    instance = _instance(req, server_id, policies.METADATA_UPDATE_ALL, writing=True)
    return wsgi.json_response({'metadata': _save(req, instance, body['metadata'])['metadata']})


def show(req, server_id, key):
    instance = _instance(req, server_id, policies.METADATA_SHOW)
    if key not in instance['metadata']:
        raise wsgi.fault(404, 'Metadata item was not found')
    return wsgi.json_response({'meta': {key: instance['metadata'][key]}})


@validation.schema(schemas.meta_item)
def update(req, server_id, key, body):
    if key not in body['meta']:
        raise wsgi.fault(400, 'Request body and URI mismatch')
    instance = _instance(req, server_id, policies.METADATA_UPDATE, writing=True)
    _save(req, instance, dict(instance['metadata'], **body['meta']))
    return wsgi.json_response({'meta': body['meta']})


def delete(req, server_id, key):
    instance = _instance(req, server_id, policies.METADATA_DELETE, writing=True)
    if key not in instance['metadata']:
        raise wsgi.fault(404, 'Metadata item was not found')
    metadata = dict(instance['metadata'])
    del metadata[key]
    _save(req, instance, metadata)
    return wsgi.empty_response(204)


