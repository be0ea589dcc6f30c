"""Handlers of /os-assisted-volume-snapshots: the volume service asks the hypervisor to
snapshot (or merge a snapshot of) an attached file volume."""

import json

from nova import exception
from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import assisted_volume_snapshots as schemas
from nova.policies import assisted_volume_snapshots as policies

# Upstream answers 400, not 409, when the server cannot take the request now.
_NOT_NOW = (exception.InstanceInvalidState, exception.InstanceNotReady)


@validation.schema(schemas.create_v2_1)
def create(req, body):
    # Empty target: the volume service calls with its own project, not the server's.
    req.context.can(policies.CREATE, target={})
    snapshot = body['snapshot']
    try:
        result = req.app.compute_api.volume_snapshots.volume_snapshot_create(
            req.context, snapshot['volume_id'], snapshot['create_info'])
    except (exception.VolumeBDMNotFound, exception.VolumeBDMIsMultiAttach,
            exception.InvalidVolume) + _NOT_NOW as exc:
        raise wsgi.fault(400, exc.format_message())
    return wsgi.json_response(result)


@validation.query_schema(schemas.delete_query_v2_1, max_version=mv.before(mv.FULL_UPDATE_BODY))
@validation.query_schema(schemas.delete_query_v2_75, mv.FULL_UPDATE_BODY,
                         strict_from=mv.FULL_UPDATE_BODY)
def delete(req, snapshot_id, params):
    req.context.can(policies.DELETE, target={})
    # Upstream's messages: the missing key, or the JSON decoder's complaint.
    if 'delete_info' not in params:
        raise wsgi.fault(400, "'delete_info'")
    try:
        delete_info = json.loads(params['delete_info'])
    except ValueError as exc:
        raise wsgi.fault(400, str(exc))
    if not isinstance(delete_info, dict):
        raise wsgi.fault(400, 'delete_info must be a JSON object')
    if 'volume_id' not in delete_info:
        raise wsgi.fault(400, "'volume_id'")
    try:
        req.app.compute_api.volume_snapshots.volume_snapshot_delete(
            req.context, delete_info['volume_id'], snapshot_id, delete_info)
    except (exception.VolumeBDMNotFound, exception.InvalidVolume) + _NOT_NOW as exc:
        raise wsgi.fault(400, exc.format_message())
    except exception.NotFound as exc:
        raise wsgi.fault(404, exc.format_message())
    return wsgi.empty_response(204)
