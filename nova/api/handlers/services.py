"""Handlers of /os-services: list, enable/disable/force-down, delete."""

from oslo_utils import strutils

from nova import exception
from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import admin_hosts as schemas
from nova.api.views import admin_hosts as views
from nova.compute import api_admin
from nova.policies import admin_hosts as policies


def _view(req, svc, zones=None):
    api = req.app.compute_api.admin
    return views.service(req, svc, api.service_zone(svc, zones), api.service_is_up(svc))


@validation.query_schema(schemas.service_query, strict_from=mv.FULL_UPDATE_BODY)
def index(req, params):
    req.context.can(policies.SERVICES_LIST, target={})
    api = req.app.compute_api.admin
    services = api.service_list(req.context, host=params.get('host'),
                                binary=params.get('binary'))
    zones = api.host_zone_map()
    return wsgi.json_response({'services': [_view(req, s, zones) for s in services]})


def _find(req, service_id):
    """The service a path id names: an integer before 2.53, a uuid from it."""
    if req.is_at_least(mv.SERVICE_HYPERVISOR_UUIDS):
        if not api_admin.is_uuid(service_id):
            raise wsgi.fault(400, 'Invalid uuid %s' % service_id)
    elif not service_id.isdigit():
        raise exception.ServiceNotFound(service_id=service_id)
    return req.app.compute_api.admin.service_get(req.context, service_id)


def update(req, service_id):
    req.context.can(policies.SERVICES_UPDATE, target={})
    if req.is_at_least(mv.SERVICE_HYPERVISOR_UUIDS):
        return _update_v2_53(req, service_id)
    _check_legacy_action(req, service_id)
    return _legacy_action(req, service_id)


def _check_legacy_action(req, action):
    # An action unknown at the request's version is a 404 before the body is read.
    forced = req.is_at_least(mv.SERVICE_FORCED_DOWN)
    if action not in ('enable', 'disable', 'disable-log-reason') and not (
            forced and action == 'force-down'):
        raise wsgi.fault(404, 'Unknown action')


@validation.schema(schemas.service_update_v2_1, mv.MIN, mv.before(mv.SERVICE_FORCED_DOWN))
@validation.schema(schemas.service_update_v2_11, mv.SERVICE_FORCED_DOWN,
                   mv.before(mv.SERVICE_HYPERVISOR_UUIDS))
def _legacy_action(req, action, body):
    """PUT /os-services/{enable,disable,disable-log-reason,force-down} before 2.53."""
    api = req.app.compute_api.admin
    svc = api.service_find(req.context, body['host'], body['binary'])
    resp = {'host': body['host'], 'binary': body['binary']}
    if action == 'force-down':
        if 'forced_down' not in body:
            raise wsgi.fault(400, 'Missing forced_down field')
        down = strutils.bool_from_string(body['forced_down'])
        api.service_update(req.context, svc, {'forced_down': down})
        resp['forced_down'] = down
    elif action == 'disable-log-reason':
        if 'disabled_reason' not in body:
            raise wsgi.fault(400, 'Missing disabled reason field')
        api.service_update(req.context, svc, {'disabled': True,
                                              'disabled_reason': body['disabled_reason']})
        resp.update(status='disabled', disabled_reason=body['disabled_reason'])
    else:
        api.service_update(req.context, svc, {'disabled': action == 'disable'})
        resp['status'] = 'disabled' if action == 'disable' else 'enabled'
    return wsgi.json_response({'service': resp})


@validation.schema(schemas.service_update_v2_53, mv.SERVICE_HYPERVISOR_UUIDS)
def _update_v2_53(req, service_id, body):
    svc = _find(req, service_id)
    status = body.get('status')
    if 'disabled_reason' in body and status != 'disabled':
        raise wsgi.fault(400, "Specifying 'disabled_reason' with status other than "
                              "'disabled' is invalid.")
    if status is None and 'forced_down' not in body:
        raise wsgi.fault(400, "No updates were requested. Fields 'status' or "
                              "'forced_down' should be specified.")
    if svc['binary'] != api_admin.COMPUTE:
        raise wsgi.fault(400, 'Updating a %s service is not supported. Only nova-compute '
                              'services can be updated.' % svc['binary'])
    values = {}
    if status is not None:
        values['disabled'] = status == 'disabled'
        values['disabled_reason'] = body.get('disabled_reason')
    if 'forced_down' in body:
        values['forced_down'] = strutils.bool_from_string(body['forced_down'])
    svc = req.app.compute_api.admin.service_update(req.context, svc, values)
    return wsgi.json_response({'service': _view(req, svc)})


def delete(req, service_id):
    req.context.can(policies.SERVICES_DELETE, target={})
    svc = _find(req, service_id)
    req.app.compute_api.admin.service_delete(req.context, svc)
    return wsgi.empty_response(204)
