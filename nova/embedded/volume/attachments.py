"""Handlers of /v3/{project_id}/attachments (microversion 3.27+; os-complete from 3.44)."""

from nova.embedded.volume import attach, common, errors, schemas, views
from nova.embedded.volume import microversion as mv
from nova.embedded.volume.common import json_response

SORT_KEYS = ('id', 'status', 'volume_id', 'instance_uuid', 'created_at',
             'updated_at')
FILTERS = {
    'volume_id': lambda r, v: r['volume_id'] == v,
    'status': lambda r, v: r['status'] == v,
    'attach_status': lambda r, v: r['status'] == v,
    'instance_id': lambda r, v: r['instance_uuid'] == v,
}


def create_attachment(api, req):
    schema = (schemas.attachment_create_v354
              if req.version >= mv.ATTACHMENT_CREATE_MODE_ARG
              else schemas.attachment_create)
    body = common.validated_body(req, schema)['attachment']
    attachment = attach.create(api.manager, req.caller, body['volume_uuid'],
                               body['instance_uuid'],
                               connector=body.get('connector'),
                               mode=body.get('mode'))
    return json_response({'attachment': views.attachment(attachment)})


def _list(api, req, detail):
    query = common.ListQuery(req, FILTERS, SORT_KEYS)
    page, next_href, count = common.paginate(
        req, api.manager.store.list('attachments'), query)
    render = views.attachment if detail else views.attachment_summary
    return json_response(views.collection(
        req, 'attachments', [render(a) for a in page], next_href, count))


def list_attachments(api, req):
    return _list(api, req, detail=False)


def list_attachments_detail(api, req):
    return _list(api, req, detail=True)


def show_attachment(api, req, attachment_id):
    attachment = attach.get_attachment(api.manager, req.caller, attachment_id)
    return json_response({'attachment': views.attachment(attachment)})


def update_attachment(api, req, attachment_id):
    body = common.validated_body(req, schemas.attachment_update)['attachment']
    attachment = attach.update(api.manager, req.caller, attachment_id,
                               body['connector'])
    return json_response({'attachment': views.attachment(attachment)})


def delete_attachment(api, req, attachment_id):
    remaining = attach.delete(api.manager, req.caller, attachment_id)
    return json_response({'attachments': [views.attachment_summary(a)
                                           for a in remaining]})


def attachment_action(api, req, attachment_id):
    if req.version < mv.NEW_ATTACH_COMPLETION:
        # The route does not exist before 3.44, as in Cinder.
        raise errors.NotFound('The resource could not be found.')
    body = common.read_json(req)
    if not isinstance(body, dict) or list(body) != ['os-complete']:
        name = next(iter(body), None) if isinstance(body, dict) else None
        raise errors.BadRequest('There is no such action: %s' % name)
    attach.complete(api.manager, req.caller, attachment_id)
    return common.empty_response(204)
