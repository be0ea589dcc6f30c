"""Handlers of /servers/{id}/os-instance-actions: the recorded actions and events."""

import hashlib

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import instance_actions as schemas
from nova.api.views import common
from nova.policies import server_actions as policies


def _time(value):
    return value.strftime('%Y-%m-%dT%H:%M:%S.%f') if value is not None else None


def _action_view(req, action):
    body = {'action': action['action'], 'instance_uuid': action['instance_uuid'],
            'request_id': action['request_id'], 'user_id': action['user_id'],
            'project_id': action['project_id'], 'start_time': _time(action['start_time']),
            'message': action['message']}
    if req.is_at_least(mv.INSTANCE_ACTIONS_PAGINATION):
        body['updated_at'] = _time(action['updated_at'] or action['start_time'])
    return body


def _event_view(req, event, project_id, show_traceback, show_details):
    body = {'event': event['event'], 'start_time': _time(event['start_time']),
            'finish_time': _time(event['finish_time']), 'result': event['result']}
    if show_traceback:
        body['traceback'] = event['traceback']
    if req.is_at_least(mv.ACTION_EVENT_HOST):
        host = event['host'] or ''
        body['hostId'] = hashlib.sha224((project_id + host).encode()).hexdigest() \
            if host else ''
        if req.context.is_admin:
            body['host'] = host
    if req.is_at_least(mv.ACTION_EVENT_DETAILS) and show_details:
        body['details'] = event['details']
    return body


def _instance(req, server_id, policy):
    # Deleted servers keep their actions readable, as upstream from 2.21.
    instance = req.app.compute_api.servers.get(
        req.context, server_id, read_deleted=req.is_at_least(mv.DELETED_INSTANCE_ACTIONS))
    req.context.can(policy, target={'project_id': instance['project_id']})
    return instance


def index(req, server_id):
    # The server and the policy first, then the query string.
    return _index(req, _instance(req, server_id, policies.INSTANCE_ACTIONS_LIST))


@validation.query_schema(schemas.list_query_v2_58, mv.INSTANCE_ACTIONS_PAGINATION,
                         mv.before(mv.CHANGES_BEFORE), strict_from=mv.MIN)
@validation.query_schema(schemas.list_query_v2_66, mv.CHANGES_BEFORE, strict_from=mv.MIN)
def _index(req, instance, params=None):
    kwargs, limit = {}, None
    if params is not None:
        if 'limit' in params:
            limit = validation.clamp_int(params['limit'], req.app.conf.api.max_limit)
        kwargs['marker'] = params.get('marker')
        window = validation.changes_window(params)
        kwargs['changes_since'] = window.get('changes-since')
        kwargs['changes_before'] = window.get('changes-before')
    actions = req.app.compute_api.records.action_list(req.context, instance, limit=limit, **kwargs)
    body = {'instanceActions': [_action_view(req, a) for a in actions]}
    links = common.next_link(req, 'servers/%s/os-instance-actions' % instance['uuid'],
                             [{'id': a['request_id']} for a in actions], limit)
    if links:
        body['links'] = links
    return wsgi.json_response(body)


def show(req, server_id, request_id):
    instance = _instance(req, server_id, policies.INSTANCE_ACTIONS_SHOW)
    action = req.app.compute_api.records.action_get(req.context, instance, request_id)
    if action is None:
        raise wsgi.fault(404, 'Action %s not found' % request_id)
    body = _action_view(req, action)
    ctx = req.context
    target = {'project_id': instance['project_id']}
    show_traceback = ctx.can(policies.INSTANCE_ACTIONS_EVENTS, target=target,
                             fatal=False)
    show_details = ctx.can(policies.INSTANCE_ACTIONS_EVENT_DETAILS,
                           target=target, fatal=False)
    # Upstream shows events to everyone from 2.51; tracebacks stay admin-only.
    if show_traceback or req.is_at_least(mv.ACTION_EVENTS_FOR_ALL):
        body['events'] = [_event_view(req, e, instance['project_id'], show_traceback,
                                      show_details)
                          for e in req.app.compute_api.records.action_events(req.context, action)]
    return wsgi.json_response({'instanceAction': body})
