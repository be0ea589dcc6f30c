"""Handlers of /v3/{project_id}/types: volume types and their extra specs (Cinder's admin API)."""

from nova.embedded.volume import common, errors, schemas, views
from nova.embedded.volume import volume_types as vt
from nova.embedded.volume.common import json_response


def _view(req, vtype):
    return views.volume_type(vtype, vt.visible_specs(vtype, req.caller))


def list_types(api, req):
    return json_response({'volume_types': [
        _view(req, t) for t in vt.listed(api.manager, req.caller)]})


def show_type(api, req, type_id):
    return json_response({'volume_type': _view(
        req, vt.find(api.manager, req.caller, type_id))})


def create_type(api, req):
    body = common.validated_body(req, schemas.volume_type_create)['volume_type']
    is_public = schemas.to_bool(body.get('os-volume-type-access:is_public', True))
    vtype = vt.create(api.manager, req.caller, body['name'],
                      description=body.get('description'), is_public=is_public,
                      extra_specs=body.get('extra_specs'))
    return json_response({'volume_type': _view(req, vtype)})


def update_type(api, req, type_id):
    body = common.validated_body(req, schemas.volume_type_update)['volume_type']
    changes = {key: body[key] for key in ('name', 'description') if key in body}
    if 'is_public' in body:
        changes['is_public'] = schemas.to_bool(body['is_public'])
    vtype = vt.update(api.manager, req.caller, type_id, changes)
    return json_response({'volume_type': _view(req, vtype)})


def delete_type(api, req, type_id):
    vt.delete(api.manager, req.caller, type_id)
    return common.empty_response(202)


# -- /types/{id}/extra_specs ---------------------------------------------------

def list_specs(api, req, type_id):
    vtype = vt.find(api.manager, req.caller, type_id)
    return json_response({'extra_specs': vt.visible_specs(vtype, req.caller)})


def create_specs(api, req, type_id):
    specs = common.validated_body(req, schemas.extra_specs_set)['extra_specs']
    vt.set_specs(api.manager, req.caller, type_id, specs)
    return json_response({'extra_specs': specs})


def show_spec(api, req, type_id, key):
    vtype = vt.find(api.manager, req.caller, type_id)
    specs = vt.visible_specs(vtype, req.caller)
    if key not in specs:
        raise errors.NotFound('Volume Type %s has no extra specs with key %s.'
                              % (vtype['id'], key))
    return json_response({key: specs[key]})


def update_spec(api, req, type_id, key):
    body = common.validated_body(req, schemas.extra_spec_one)
    if list(body) != [key]:
        raise errors.BadRequest('Request body and URI mismatch')
    vt.set_specs(api.manager, req.caller, type_id, body)
    return json_response(body)


def delete_spec(api, req, type_id, key):
    vt.delete_spec(api.manager, req.caller, type_id, key)
    return common.empty_response(202)
