"""Handlers of /v3/{project_id}/volumes: create, list, show, update, delete and actions."""

from nova.embedded.volume import common, errors, manager, schemas, views
from nova.embedded.volume import microversion as mv
from nova.embedded.volume.common import json_response

SORT_KEYS = ('id', 'name', 'status', 'size', 'availability_zone', 'bootable',
             'created_at', 'updated_at', 'volume_type')


def _metadata_matches(record, raw):
    wanted = common.metadata_filter(raw)
    return all(record['metadata'].get(k) == v for k, v in wanted.items())


FILTERS = {
    'name': lambda r, v: r['name'] == v,
    'status': lambda r, v: r['status'] == v,
    'bootable': lambda r, v: r['bootable'] == schemas.to_bool(v),
    'availability_zone': lambda r, v: r['availability_zone'] == v,
    'size': lambda r, v: str(r['size']) == v,
    'volume_type': lambda r, v: v in (r['volume_type'], r['volume_type_id']),
    'metadata': _metadata_matches,
}


def _create_schema(version):
    if version >= mv.SUPPORT_VOLUME_SCHEMA_CHANGES:
        return schemas.volume_create_v353
    if version >= mv.VOLUME_CREATE_FROM_BACKUP:
        return schemas.volume_create_v347
    if version >= mv.GROUP_VOLUME:
        return schemas.volume_create_v313
    return schemas.volume_create


def _show(api, req, volume, extended=True, attachments=None):
    if attachments is None:
        attachments = api.manager.attachments_of(volume['id'])
    return views.volume(req, volume, attachments, api.manager.host,
                        extended=extended)


def create_volume(api, req):
    body = common.validated_body(req, _create_schema(req.version))['volume']
    for key in ('consistencygroup_id', 'group_id', 'backup_id'):
        if body.get(key):
            raise errors.BadRequest('Invalid input received: %s is not '
                                    'supported by this volume service.' % key)
    if body.get('multiattach') is not None and schemas.to_bool(
            body['multiattach']):
        raise errors.BadRequest(
            "Invalid input received: multiattach=true in the request body is "
            "not supported; create the volume with a volume type whose extra "
            "spec multiattach is '<is> True'.")
    zone = body.get('availability_zone')
    if zone not in (None, manager.AVAILABILITY_ZONE):
        raise errors.BadRequest("Invalid input received: Availability zone "
                                "'%s' is invalid." % zone)
    spec = common.named_fields(body)
    spec.update(
        size=(common.parse_size(body['size'], maximum=manager.MAX_SIZE_GB)
              if body.get('size') is not None else None),
        metadata=body.get('metadata'),
        image_id=body.get('imageRef') or body.get('image_id'),
        snapshot_id=body.get('snapshot_id'),
        source_volid=body.get('source_volid'),
        volume_type=body.get('volume_type'))
    volume = api.manager.create_volume(req.caller, spec)
    return json_response({'volume': _show(api, req, volume, extended=False)},
                         status=202)


def _list(api, req, detail):
    query = common.ListQuery(req, FILTERS, SORT_KEYS)
    page, next_href, count = common.paginate(
        req, api.manager.store.list('volumes'), query)
    if detail:
        # One pass over the attachments for the page, not one per volume.
        by_volume = api.manager.attachments_by_volume()
        items = [_show(api, req, v, attachments=by_volume.get(v['id'], []))
                 for v in page]
    else:
        items = [views.volume_summary(req, v) for v in page]
    return json_response(views.collection(req, 'volumes', items, next_href,
                                          count))


def list_volumes(api, req):
    return _list(api, req, detail=False)


def list_volumes_detail(api, req):
    return _list(api, req, detail=True)


def show_volume(api, req, volume_id):
    volume = api.manager.get_volume(req.caller, volume_id)
    return json_response({'volume': _show(api, req, volume)})


def update_volume(api, req, volume_id):
    schema = (schemas.volume_update_v353 if req.version >= mv.SUPPORT_VOLUME_SCHEMA_CHANGES
              else schemas.volume_update)
    body = common.validated_body(req, schema)['volume']
    changes = common.named_fields(body)
    if 'metadata' in body:
        changes['metadata'] = dict(body['metadata'] or {})
    volume = api.manager.update_volume(req.caller, volume_id, changes)
    return json_response({'volume': _show(api, req, volume, extended=False)})


def delete_volume(api, req, volume_id):
    cascade = req.GET.get('cascade', '').lower() in ('1', 'true', 'yes', 'on')
    api.manager.delete_volume(req.caller, volume_id, cascade=cascade)
    return common.empty_response(202)


# -- POST /volumes/{id}/action ------------------------------------------------

def _extend(api, req, volume_id, body):
    problem = schemas.first_error(schemas.extend, body)
    if problem:
        raise errors.BadRequest(problem)
    new_size = common.parse_size(body['os-extend']['new_size'], 'new_size',
                                 maximum=manager.MAX_SIZE_GB)
    api.manager.extend_volume(req.caller, volume_id, new_size)
    return common.empty_response(202)


def _set_bootable(api, req, volume_id, body):
    problem = schemas.first_error(schemas.set_bootable, body)
    if problem:
        raise errors.BadRequest(problem)
    bootable = schemas.to_bool(body['os-set_bootable']['bootable'])
    api.manager.update_volume(req.caller, volume_id, {'bootable': bootable})
    return common.empty_response(200)


def _reset_status(api, req, volume_id, body):
    problem = schemas.first_error(schemas.reset_status, body)
    if problem:
        raise errors.BadRequest(problem)
    args = body['os-reset_status']
    api.manager.reset_status(req.caller, volume_id, args.get('status'),
                             args.get('attach_status'), args.get('migration_status'))
    return common.empty_response(202)


def _reimage(api, req, volume_id, body):
    if req.version < mv.SUPPORT_REIMAGE_VOLUME:
        raise errors.BadRequest('There is no such action: os-reimage')
    problem = schemas.first_error(schemas.reimage, body)
    if problem:
        raise errors.BadRequest(problem)
    args = body['os-reimage']
    api.manager.reimage_volume(req.caller, volume_id, args['image_id'],
                               schemas.to_bool(args.get('reimage_reserved', False)))
    return common.empty_response(202)


ACTIONS = {
    'os-extend': _extend,
    'os-reimage': _reimage,
    'os-set_bootable': _set_bootable,
    'os-reset_status': _reset_status,
}


def volume_action(api, req, volume_id):
    body = common.read_json(req)
    if not isinstance(body, dict) or len(body) != 1:
        raise errors.BadRequest('Invalid request body: expected exactly one '
                                'action.')
    name = next(iter(body))
    handler = ACTIONS.get(name)
    if handler is None:
        raise errors.BadRequest('There is no such action: %s' % name)
    # 404 for an unknown volume wins over a malformed action body.
    api.manager.get_volume(req.caller, volume_id)
    return handler(api, req, volume_id, body)
