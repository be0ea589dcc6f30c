"""Handlers of /os-aggregates and /os-availability-zone."""

from nova.api import validation, wsgi
from nova.api.schemas import admin_hosts as schemas
from nova.api.views import admin_hosts as views
from nova.policies import admin_hosts as policies


def _id(aggregate_id):
    """Aggregates are addressed by integer id (even after 2.41 added uuids)."""
    try:
        int(aggregate_id)
    except ValueError:
        raise wsgi.fault(400, 'Invalid input received: id must be an integer')
    return aggregate_id


def index(req):
    req.context.can(policies.AGGREGATES_INDEX, target={})
    aggs = req.app.compute_api.aggregates.aggregate_list(req.context)
    return wsgi.json_response({'aggregates': [views.aggregate(req, a) for a in aggs]})


@validation.schema(schemas.aggregate_create)
def create(req, body):
    req.context.can(policies.AGGREGATES_CREATE, target={})
    spec = body['aggregate']
    agg = req.app.compute_api.aggregates.aggregate_create(req.context, spec['name'],
                                                          spec.get('availability_zone'))
    view = views.aggregate(req, agg)
    # Upstream's create answer carries neither hosts nor metadata.
    del view['hosts'], view['metadata']
    return wsgi.json_response({'aggregate': view})


def show(req, aggregate_id):
    req.context.can(policies.AGGREGATES_SHOW, target={})
    agg = req.app.compute_api.aggregates.aggregate_get(req.context, _id(aggregate_id))
    return wsgi.json_response({'aggregate': views.aggregate(req, agg)})


@validation.schema(schemas.aggregate_update)
def update(req, aggregate_id, body):
    req.context.can(policies.AGGREGATES_UPDATE, target={})
    values = dict(body['aggregate'])
    if 'name' in values:
        values['name'] = values['name'].strip()
    agg = req.app.compute_api.aggregates.aggregate_update(req.context, _id(aggregate_id),
                                                          values)
    return wsgi.json_response({'aggregate': views.aggregate(req, agg)})


def delete(req, aggregate_id):
    req.context.can(policies.AGGREGATES_DELETE, target={})
    req.app.compute_api.aggregates.aggregate_delete(req.context, _id(aggregate_id))
    return wsgi.empty_response(200)


def _add_host(req, aggregate_id, body):
    req.context.can(policies.AGGREGATES_ADD_HOST, target={})
    return _add_host_body(req, aggregate_id)


@validation.schema(schemas.aggregate_add_host)
def _add_host_body(req, aggregate_id, body):
    return req.app.compute_api.aggregates.aggregate_add_host(req.context, aggregate_id,
                                                             body['add_host']['host'])


def _remove_host(req, aggregate_id, body):
    req.context.can(policies.AGGREGATES_REMOVE_HOST, target={})
    return _remove_host_body(req, aggregate_id)


@validation.schema(schemas.aggregate_remove_host)
def _remove_host_body(req, aggregate_id, body):
    return req.app.compute_api.aggregates.aggregate_remove_host(req.context, aggregate_id,
                                                                body['remove_host']['host'])


def _set_metadata(req, aggregate_id, body):
    req.context.can(policies.AGGREGATES_SET_METADATA, target={})
    return _set_metadata_body(req, aggregate_id)


@validation.schema(schemas.aggregate_set_metadata)
def _set_metadata_body(req, aggregate_id, body):
    return req.app.compute_api.aggregates.aggregate_set_metadata(
        req.context, aggregate_id, body['set_metadata']['metadata'])


_ACTIONS = {'add_host': _add_host, 'remove_host': _remove_host,
            'set_metadata': _set_metadata}


def action(req, aggregate_id):
    body = req.json_body()
    if not isinstance(body, dict) or len(body) != 1 or next(iter(body)) not in _ACTIONS:
        raise wsgi.fault(400, 'Invalid request body: expected one of %s'
                         % ', '.join(sorted(_ACTIONS)))
    agg = _ACTIONS[next(iter(body))](req, _id(aggregate_id), body=body)
    return wsgi.json_response({'aggregate': views.aggregate(req, agg)})


def az_index(req):
    req.context.can(policies.AZ_LIST, target={})
    api = req.app.compute_api.admin
    available, unavailable = api.availability_zones(req.context)
    internal = req.app.conf.internal_service_availability_zone
    info = [{'zoneName': zone, 'zoneState': {'available': True}, 'hosts': None}
            for zone in sorted(available) if zone != internal]
    info += [{'zoneName': zone, 'zoneState': {'available': False}, 'hosts': None}
             for zone in sorted(unavailable) if zone != internal]
    return wsgi.json_response({'availabilityZoneInfo': info})


def az_detail(req):
    req.context.can(policies.AZ_DETAIL, target={})
    api = req.app.compute_api.admin
    available, unavailable = api.availability_zones(req.context)
    info = []
    for zone in sorted(available):
        hosts = {}
        for svc in available[zone]:
            hosts.setdefault(svc['host'], {})[svc['binary']] = {
                'available': api.service_is_up(svc), 'active': not svc['disabled'],
                'updated_at': views.time(svc['updated_at'] or svc['created_at'])}
        info.append({'zoneName': zone, 'zoneState': {'available': True}, 'hosts': hosts})
    info += [{'zoneName': zone, 'zoneState': {'available': False}, 'hosts': None}
             for zone in sorted(unavailable)]
    return wsgi.json_response({'availabilityZoneInfo': info})
