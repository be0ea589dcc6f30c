"""Handlers of /v3/{project_id}/snapshots: create, list, show, update, delete, actions."""

from nova.embedded.volume import common, errors, schemas, views
from nova.embedded.volume.common import json_response

SORT_KEYS = ('id', 'name', 'status', 'size', 'volume_id', 'created_at',
             'updated_at')


def _metadata_matches(record, raw):
    wanted = common.metadata_filter(raw)
    return all(record['metadata'].get(k) == v for k, v in wanted.items())


FILTERS = {
    'name': lambda r, v: r['name'] == v,
    'status': lambda r, v: r['status'] == v,
    'volume_id': lambda r, v: r['volume_id'] == v,
    'metadata': _metadata_matches,
}


def create_snapshot(api, req):
    body = common.validated_body(req, schemas.snapshot_create)['snapshot']
    spec = common.named_fields(body)
    spec.update(volume_id=body['volume_id'], metadata=body.get('metadata'),
                force=(schemas.to_bool(body['force'])
                       if 'force' in body else None))
    snapshot = api.manager.create_snapshot(req.caller, spec, req.version)
    return json_response({'snapshot': views.snapshot(req, snapshot,
                                                     detail=False)},
                         status=202)


def _list(api, req, detail):
    query = common.ListQuery(req, FILTERS, SORT_KEYS)
    page, next_href, count = common.paginate(
        req, api.manager.store.list('snapshots'), query)
    items = [views.snapshot(req, s, detail=detail) for s in page]
    return json_response(views.collection(req, 'snapshots', items, next_href,
                                          count))


def list_snapshots(api, req):
    return _list(api, req, detail=False)


def list_snapshots_detail(api, req):
    return _list(api, req, detail=True)


def show_snapshot(api, req, snapshot_id):
    snapshot = api.manager.get_snapshot(req.caller, snapshot_id)
    return json_response({'snapshot': views.snapshot(req, snapshot)})


def update_snapshot(api, req, snapshot_id):
    body = common.validated_body(req, schemas.snapshot_update)['snapshot']
    snapshot = api.manager.update_snapshot(req.caller, snapshot_id,
                                           common.named_fields(body))
    return json_response({'snapshot': views.snapshot(req, snapshot,
                                                     detail=False)})


def delete_snapshot(api, req, snapshot_id):
    api.manager.delete_snapshot(req.caller, snapshot_id)
    return common.empty_response(202)


def snapshot_action(api, req, snapshot_id):
    """Only os-update_snapshot_status, as Cinder's snapshot actions: 202."""
    body = common.read_json(req)
    if not isinstance(body, dict) or 'os-update_snapshot_status' not in body:
        raise errors.BadRequest('Invalid request body: expected '
                                'os-update_snapshot_status.')
    api.manager.get_snapshot(req.caller, snapshot_id)
    problem = schemas.first_error(schemas.update_snapshot_status, body)
    if problem:
        raise errors.BadRequest(problem)
    args = body['os-update_snapshot_status']
    api.manager.update_snapshot_status(req.caller, snapshot_id, args['status'],
                                       args.get('progress'))
    return common.empty_response(202)
