"""Handlers of /os-hypervisors: list, detail, show, statistics, uptime, search, servers."""

from oslo_utils import strutils

from nova import exception
from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import admin_hosts as schemas
from nova.api.views import admin_hosts as views
from nova.api.views import common
from nova.compute import api_admin
from nova.policies import admin_hosts as policies


def _uuids(req):
    return req.is_at_least(mv.SERVICE_HYPERVISOR_UUIDS)


def _view(req, node, svc, detail, servers=None, uptime=None, show_uptime=False):
    api = req.app.compute_api.admin
    usage = api.hypervisor_usage(req.context, node['host']) if detail else (0, 0)
    return views.hypervisor(req, node, svc, api.service_is_up(svc), detail=detail,
                            servers=servers, usage=usage, uptime=uptime,
                            show_uptime=show_uptime)


def _page(req, pairs, params):
    """Filter and page (2.33 limit/marker, 2.53 pattern) the (node, service) pairs."""
    pattern = params.get('hypervisor_hostname_pattern')
    if pattern is not None:
        if 'limit' in params or 'marker' in params:
            raise wsgi.fault(400, 'Paging over hypervisors with the '
                                  'hypervisor_hostname_pattern query parameter is not '
                                  'supported.')
        pairs = [p for p in pairs if pattern in p[0]['hypervisor_hostname']]
        if not pairs:
            raise wsgi.fault(404, "No hypervisor matching '%s' could be found." % pattern)
    marker = params.get('marker')
    if marker is not None:
        key = 'uuid' if _uuids(req) else 'id'
        ids = [str(n[key]) for n, _s in pairs]
        if marker not in ids:
            raise wsgi.fault(400, 'marker [%s] not found' % marker)
        pairs = pairs[ids.index(marker) + 1:]
    limit = None
    if 'limit' in params:
        limit = min(int(params['limit']), req.app.conf.api.max_limit)
        pairs = pairs[:limit]
    return pairs, limit


def _list(req, params, detail):
    req.context.can(policies.HYPERVISORS_LIST_DETAIL if detail else policies.HYPERVISORS_LIST,
                    target={})
    api = req.app.compute_api.admin
    pairs, limit = _page(req, api.hypervisor_list(req.context), params)
    with_servers = strutils.bool_from_string(params.get('with_servers', False))
    hypervisors = [_view(req, node, svc, detail,
                         servers=api.hypervisor_instances(req.context, node['host'])
                         if with_servers else None) for node, svc in pairs]
    body = {'hypervisors': hypervisors}
    if req.is_at_least(mv.HYPERVISOR_PAGINATION):
        links = common.next_link(req, 'os-hypervisors/detail' if detail else 'os-hypervisors',
                                 hypervisors, limit)
        if links:
            body['hypervisors_links'] = links
    return wsgi.json_response(body)


@validation.query_schema(schemas.hypervisor_list_query_v2_53, mv.SERVICE_HYPERVISOR_UUIDS,
                         strict_from=mv.FULL_UPDATE_BODY)
@validation.query_schema(schemas.hypervisor_list_query_v2_33, mv.HYPERVISOR_PAGINATION,
                         mv.HYPERVISOR_ID_PATHS_LAST)
@validation.query_schema(schemas.empty_query, mv.MIN, mv.before(mv.HYPERVISOR_PAGINATION))
def index(req, params):
    return _list(req, params, detail=False)


@validation.query_schema(schemas.hypervisor_list_query_v2_53, mv.SERVICE_HYPERVISOR_UUIDS,
                         strict_from=mv.FULL_UPDATE_BODY)
@validation.query_schema(schemas.hypervisor_list_query_v2_33, mv.HYPERVISOR_PAGINATION,
                         mv.HYPERVISOR_ID_PATHS_LAST)
@validation.query_schema(schemas.empty_query, mv.MIN, mv.before(mv.HYPERVISOR_PAGINATION))
def detail(req, params):
    return _list(req, params, detail=True)


def _get(req, hypervisor_id):
    if _uuids(req):
        if not api_admin.is_uuid(hypervisor_id):
            raise wsgi.fault(400, 'Invalid uuid %s' % hypervisor_id)
    elif not hypervisor_id.isdigit():
        raise exception.HypervisorNotFound(hypervisor_id=hypervisor_id)
    return req.app.compute_api.admin.hypervisor_get(req.context, hypervisor_id, _uuids(req))


@validation.query_schema(schemas.hypervisor_show_query_v2_53, mv.SERVICE_HYPERVISOR_UUIDS,
                         strict_from=mv.FULL_UPDATE_BODY)
@validation.query_schema(schemas.empty_query, mv.MIN, mv.HYPERVISOR_ID_PATHS_LAST)
def show(req, hypervisor_id, params):
    req.context.can(policies.HYPERVISORS_SHOW, target={})
    node, svc = _get(req, hypervisor_id)
    api = req.app.compute_api.admin
    servers = None
    if strutils.bool_from_string(params.get('with_servers', False)):
        servers = api.hypervisor_instances(req.context, node['host'])
    uptime = None
    if req.is_at_least(mv.HYPERVISOR_STATS_REMOVED) and api.service_is_up(svc):
        uptime = api.hypervisor_uptime(req.context, node['host'])
    return wsgi.json_response({'hypervisor': _view(req, node, svc, True, servers=servers,
                                                   uptime=uptime, show_uptime=True)})


def uptime(req, hypervisor_id):
    req.context.can(policies.HYPERVISORS_UPTIME, target={})
    node, svc = _get(req, hypervisor_id)
    api = req.app.compute_api.admin
    if not api.service_is_up(svc):
        raise wsgi.fault(400, 'Service for hypervisor %s is down.' % hypervisor_id)
    body = _view(req, node, svc, False)
    body['uptime'] = api.hypervisor_uptime(req.context, node['host'])
    return wsgi.json_response({'hypervisor': body})


def statistics(req):
    req.context.can(policies.HYPERVISORS_STATISTICS, target={})
    api = req.app.compute_api.admin
    pairs = api.hypervisor_list(req.context)
    return wsgi.json_response(views.statistics(
        [(node, api.hypervisor_usage(req.context, node['host'])) for node, _s in pairs]))


def _matching(req, pattern):
    pairs = [p for p in req.app.compute_api.admin.hypervisor_list(req.context)
             if pattern in p[0]['hypervisor_hostname']]
    if not pairs:
        raise wsgi.fault(404, "No hypervisor matching '%s' could be found." % pattern)
    return pairs


def search(req, hypervisor_hostname_pattern):
    req.context.can(policies.HYPERVISORS_SEARCH, target={})
    pairs = _matching(req, hypervisor_hostname_pattern)
    return wsgi.json_response({'hypervisors': [_view(req, n, s, False) for n, s in pairs]})


def servers(req, hypervisor_hostname_pattern):
    req.context.can(policies.HYPERVISORS_SERVERS, target={})
    api = req.app.compute_api.admin
    pairs = _matching(req, hypervisor_hostname_pattern)
    return wsgi.json_response({'hypervisors': [
        _view(req, n, s, False, servers=api.hypervisor_instances(req.context, n['host']))
        for n, s in pairs]})
