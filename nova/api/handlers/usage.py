"""Handlers of os-simple-tenant-usage and os-instance_usage_audit_log."""

import datetime

from oslo_utils import timeutils

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import usage as schemas
from nova.api.views import common
from nova.policies import usage as policies

_TIME_FORMATS = ('%Y-%m-%dT%H:%M:%S', '%Y-%m-%dT%H:%M:%S.%f', '%Y-%m-%d %H:%M:%S.%f')
_AUDIT_FORMATS = ('%Y-%m-%d %H:%M:%S.%f', '%Y-%m-%d %H:%M:%S')
_PERFECT = '%Y-%m-%dT%H:%M:%S.%f'

def _parse(value, formats, message):
    if not value:
        return timeutils.utcnow()
    for fmt in formats:
        try:
            return datetime.datetime.strptime(value, fmt)
        except ValueError:
            continue
    raise wsgi.fault(400, message)


def _window(params):
    message = 'Invalid datetime string: Datetime is in invalid format'
    start = _parse(params.get('start'), _TIME_FORMATS, message)
    stop = _parse(params.get('end'), _TIME_FORMATS, message)
    if not start < stop:
        raise wsgi.fault(400, 'Invalid start time. The start time cannot occur after the '
                              'end time.')
    return start, stop, params.get('detailed') == '1'


def _paging(req, params):
    if not req.is_at_least(mv.USAGE_PAGINATION):
        return None, None
    max_limit = req.app.conf.api.max_limit
    return min(int(params.get('limit') or max_limit), max_limit), params.get('marker')


def _times(value):
    """Datetimes as upstream's JSON encoder writes them."""
    if isinstance(value, datetime.datetime):
        return value.strftime(_PERFECT)
    if isinstance(value, dict):
        return {k: _times(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_times(v) for v in value]
    return value


def _usages(req, params, project_id):
    start, stop, detailed = _window(params)
    limit, marker = _paging(req, params)
    # An unknown marker is a 400 (exception.Invalid) from the compute API.
    return req.app.compute_api.usage.tenant_usages(
        req.context, start, stop, project_id=project_id,
        detailed=detailed or project_id is not None, limit=limit, marker=marker), limit


def _links(req, body, key, servers, limit, path):
    links = common.next_link(req, path, [{'id': s['instance_id']} for s in servers], limit)
    if links:
        body[key] = links


@validation.query_schema(schemas.query_v2_1, max_version=mv.before(mv.USAGE_PAGINATION))
@validation.query_schema(schemas.query_v2_40, mv.USAGE_PAGINATION,
                         strict_from=mv.FULL_UPDATE_BODY)
def index(req, params):
    req.context.can(policies.USAGE_LIST, target={'project_id': req.context.project_id})
    (summaries, servers), limit = _usages(req, params, None)
    body = {'tenant_usages': _times(summaries)}
    _links(req, body, 'tenant_usages_links', servers, limit, 'os-simple-tenant-usage')
    return wsgi.json_response(body)


@validation.query_schema(schemas.query_v2_1, max_version=mv.before(mv.USAGE_PAGINATION))
@validation.query_schema(schemas.query_v2_40, mv.USAGE_PAGINATION,
                         strict_from=mv.FULL_UPDATE_BODY)
def show(req, tenant_id, params):
    req.context.can(policies.USAGE_SHOW, target={'project_id': tenant_id})
    (summaries, servers), limit = _usages(req, params, tenant_id)
    body = {'tenant_usage': _times(summaries[0]) if summaries else {}}
    _links(req, body, 'tenant_usage_links', servers, limit,
           'os-simple-tenant-usage/%s' % tenant_id)
    return wsgi.json_response(body)


def audit_index(req):
    req.context.can(policies.AUDIT_LIST, target={})
    log = req.app.compute_api.usage.usage_audit_log(req.context)
    return wsgi.json_response({'instance_usage_audit_logs': log})


def audit_show(req, before):
    req.context.can(policies.AUDIT_SHOW, target={})
    moment = _parse(before, _AUDIT_FORMATS, 'Invalid timestamp for date %s' % before)
    log = req.app.compute_api.usage.usage_audit_log(req.context, before=moment)
    return wsgi.json_response({'instance_usage_audit_log': log})
