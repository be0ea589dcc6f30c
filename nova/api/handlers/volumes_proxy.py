"""Handlers of the volume proxy os-volumes and os-snapshots (up to microversion 2.35)."""

from oslo_utils import strutils

from nova import exception
from nova.api import validation, wsgi
from nova.api.schemas import volumes_proxy as schemas
from nova.policies import volumes_proxy as policies


def _volume(vol):
    """Upstream's camelCase volume; unattached volumes show ``[{}]`` as upstream."""
    attachments = [{'id': vol['id'], 'volumeId': vol['id'], 'serverId': a.get('server_id'),
                    **({'device': a['device']} if a.get('device') else {})}
                   for a in vol.get('attachments') or [] if a.get('server_id')]
    return {
        'id': vol['id'], 'status': vol['status'], 'size': vol['size'],
        'availabilityZone': vol.get('availability_zone') or 'nova',
        'createdAt': vol.get('created_at'), 'attachments': attachments or [{}],
        'displayName': vol.get('name'), 'displayDescription': vol.get('description'),
        'volumeType': vol.get('volume_type'), 'snapshotId': vol.get('snapshot_id'),
        'metadata': vol.get('metadata') or {},
    }


def _snapshot(snap):
    return {'id': snap['id'], 'volumeId': snap['volume_id'], 'status': snap['status'],
            'size': snap['size'], 'createdAt': snap.get('created_at'),
            'displayName': snap.get('name'), 'displayDescription': snap.get('description')}


def _page(req, params, items):
    """Offset paging, as upstream's common.limited."""
    max_limit = req.app.conf.api.max_limit
    limit = min(int(params.get('limit') or max_limit), max_limit)
    offset = int(params.get('offset') or 0)
    return items[offset:offset + limit]


def _can(req, policy):
    req.context.can(policy, target={'project_id': req.context.project_id})


def _listing(policy, fetch, render, key):
    @validation.query_schema(schemas.list_query)
    def handler(req, params):
        _can(req, policy)
        items = _page(req, params, fetch(req.app.compute_api, req.context))
        return wsgi.json_response({key: [render(i) for i in items]})
    return handler


volume_index = _listing(policies.VOLUMES_LIST, lambda api, ctx: api.proxy.proxy_volume_list(ctx),
                        _volume, 'volumes')
volume_detail = _listing(policies.VOLUMES_DETAIL,
                         lambda api, ctx: api.proxy.proxy_volume_list(ctx), _volume, 'volumes')
snapshot_index = _listing(policies.SNAPSHOTS_LIST,
                          lambda api, ctx: api.proxy.proxy_snapshot_list(ctx), _snapshot,
                          'snapshots')
snapshot_detail = _listing(policies.SNAPSHOTS_DETAIL,
                           lambda api, ctx: api.proxy.proxy_snapshot_list(ctx), _snapshot,
                           'snapshots')


def volume_show(req, volume_id):
    _can(req, policies.VOLUMES_SHOW)
    vol = req.app.compute_api.proxy.proxy_volume_get(req.context, volume_id)
    return wsgi.json_response({'volume': _volume(vol)})


@validation.schema(schemas.create_volume)
def volume_create(req, body):
    _can(req, policies.VOLUMES_CREATE)
    spec = body['volume']
    try:
        vol = req.app.compute_api.proxy.proxy_volume_create(
            req.context, int(spec['size']), name=spec.get('display_name'),
            snapshot_id=spec.get('snapshot_id'), volume_type=spec.get('volume_type'),
            description=spec.get('display_description'), metadata=spec.get('metadata'),
            availability_zone=spec.get('availability_zone'))
    except exception.VolumeSnapshotNotFound as exc:
        raise wsgi.fault(404, exc.format_message())
    return wsgi.json_response({'volume': _volume(vol)})


def volume_delete(req, volume_id):
    _can(req, policies.VOLUMES_DELETE)
    req.app.compute_api.proxy.proxy_volume_delete(req.context, volume_id)
    return wsgi.empty_response(202)


def snapshot_show(req, snapshot_id):
    _can(req, policies.SNAPSHOTS_SHOW)
    snap = req.app.compute_api.proxy.proxy_snapshot_get(req.context, snapshot_id)
    return wsgi.json_response({'snapshot': _snapshot(snap)})


@validation.schema(schemas.create_snapshot)
def snapshot_create(req, body):
    _can(req, policies.SNAPSHOTS_CREATE)
    spec = body['snapshot']
    force = strutils.bool_from_string(spec.get('force', False), strict=True)
    snap = req.app.compute_api.proxy.proxy_snapshot_create(
        req.context, spec['volume_id'], name=spec.get('display_name'),
        description=spec.get('display_description'), force=force)
    return wsgi.json_response({'snapshot': _snapshot(snap)})


def snapshot_delete(req, snapshot_id):
    _can(req, policies.SNAPSHOTS_DELETE)
    req.app.compute_api.proxy.proxy_snapshot_delete(req.context, snapshot_id)
    return wsgi.empty_response(202)
