"""Security groups: the add/removeSecurityGroup actions and the os-security-groups proxy."""

from oslo_utils import strutils

from nova.api import validation, wsgi
from nova.api.schemas import networking as schemas
from nova.api.views import networking as views
from nova.policies import networking as net_policies
from nova.policies import server_actions as policies

_MAX_LEN = 255


def _group_name(body, action):
    spec = body[action]
    name = spec.get('name') if isinstance(spec, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise wsgi.fault(400, 'Security group name cannot be empty.' if isinstance(spec, dict)
                         else 'Missing parameter dict.')
    return name.strip()


def _action(action, policy, call):
    def handler(req, server_id, body):
        compute_api = req.app.compute_api
        instance = compute_api.servers.get(req.context, server_id)
        req.context.can(policy, target={'project_id': instance['project_id']})
        name = _group_name(body, action)
        if not compute_api.networking.enabled:
            # Upstream's answer for a server without ports; with no network
            # service a server has none.
            raise wsgi.fault(404, 'instance_id %s could not be found as device id on any '
                                  'ports: this deployment has no network service.'
                             % instance['uuid'])
        getattr(compute_api.networking, call)(req.context, instance, name)
        return wsgi.empty_response(202)
    return handler


add_security_group = _action('addSecurityGroup', policies.SECURITY_GROUP_ADD,
                             'add_security_group')
remove_security_group = _action('removeSecurityGroup', policies.SECURITY_GROUP_REMOVE,
                                'remove_security_group')


# -- os-security-groups and os-security-group-rules (up to 2.35) -----------------

def _can(req, policy):
    req.context.can(policy, target={'project_id': req.context.project_id})


def _render(req, groups):
    proxy = req.app.compute_api.network_proxy
    names = proxy.group_names(req.context, views.source_group_ids(groups))
    return [views.security_group(g, names) for g in groups]


def _checked(value, what):
    """Upstream's checks of a group's name and description."""
    if value is None:
        raise wsgi.fault(400, 'Security group %s is not a string or unicode' % what)
    if not isinstance(value, str):
        raise wsgi.fault(400, 'Security group %s is not a string or unicode' % what)
    if not value.strip():
        raise wsgi.fault(400, 'Security group %s cannot be empty.' % what)
    if len(value) > _MAX_LEN:
        raise wsgi.fault(400, 'Security group %s should not be greater than 255 '
                              'characters.' % what)
    return value


def _int_param(req, name, default, ceiling):
    text = req.GET.get(name)
    if text is None:
        return default
    if not text.isdigit():
        raise wsgi.fault(400, '%s param must be an integer' % name)
    return validation.clamp_int(text, ceiling)


def index(req):
    _can(req, net_policies.SECURITY_GROUPS_GET)
    ctx = req.context
    all_tenants = ctx.is_admin and strutils.bool_from_string(
        req.GET.get('all_tenants', 'false'), default=True)
    groups = req.app.compute_api.network_proxy.security_groups(
        ctx, None if all_tenants else ctx.project_id)
    max_limit = req.app.conf.api.max_limit
    offset = _int_param(req, 'offset', 0, len(groups))
    # As upstream's common.limited(): 0 or no limit is the configured maximum.
    limit = _int_param(req, 'limit', max_limit, max_limit) or max_limit
    groups = groups[offset:offset + limit]
    body = sorted(_render(req, groups), key=lambda g: (g['tenant_id'] or '', g['name']))
    return wsgi.json_response({'security_groups': body})


def show(req, security_group_id):
    _can(req, net_policies.SECURITY_GROUPS_SHOW)
    group = req.app.compute_api.network_proxy.security_group(req.context, security_group_id)
    return wsgi.json_response({'security_group': _render(req, [group])[0]})


@validation.schema(schemas.security_group)
def _create(req, body):
    spec = body['security_group'] if isinstance(body['security_group'], dict) else {}
    group = req.app.compute_api.network_proxy.create_security_group(
        req.context, _checked(spec.get('name'), 'name'),
        _checked(spec.get('description'), 'description'))
    return wsgi.json_response({'security_group': _render(req, [group])[0]})


def create(req):
    _can(req, net_policies.SECURITY_GROUPS_CREATE)
    return _create(req)


@validation.schema(schemas.security_group)
def _update(req, security_group_id, body):
    proxy = req.app.compute_api.network_proxy
    proxy.security_group(req.context, security_group_id)
    spec = body['security_group'] if isinstance(body['security_group'], dict) else {}
    group = proxy.update_security_group(
        req.context, security_group_id, _checked(spec.get('name'), 'name'),
        _checked(spec.get('description'), 'description'))
    return wsgi.json_response({'security_group': _render(req, [group])[0]})


def update(req, security_group_id):
    _can(req, net_policies.SECURITY_GROUPS_UPDATE)
    return _update(req, security_group_id)


def delete(req, security_group_id):
    _can(req, net_policies.SECURITY_GROUPS_DELETE)
    proxy = req.app.compute_api.network_proxy
    proxy.security_group(req.context, security_group_id)
    proxy.delete_security_group(req.context, security_group_id)
    return wsgi.empty_response(202)


@validation.schema(schemas.security_group_rule)
def _rule_create(req, body):
    spec = body['security_group_rule']
    rule = req.app.compute_api.network_proxy.create_security_group_rule(
        req.context, str(spec['parent_group_id']), ip_protocol=spec.get('ip_protocol'),
        from_port=spec.get('from_port'), to_port=spec.get('to_port'), cidr=spec.get('cidr'),
        group_id=str(spec['group_id']) if spec.get('group_id') is not None else None)
    names = req.app.compute_api.network_proxy.group_names(
        req.context, [rule['group_id']] if rule.get('group_id') else [])
    return wsgi.json_response({'security_group_rule': views.security_group_rule(rule, names)})


def rule_create(req):
    _can(req, net_policies.SECURITY_GROUP_RULE_CREATE)
    return _rule_create(req)


def rule_delete(req, security_group_rule_id):
    _can(req, net_policies.SECURITY_GROUP_RULE_DELETE)
    req.app.compute_api.network_proxy.delete_security_group_rule(req.context,
                                                                 security_group_rule_id)
    return wsgi.empty_response(202)


def server_index(req, server_id):
    """GET /servers/{id}/os-security-groups: the groups of the server's ports."""
    compute_api = req.app.compute_api
    instance = compute_api.servers.get(req.context, server_id)
    req.context.can(net_policies.SERVER_SECURITY_GROUPS,
                    target={'project_id': instance['project_id']})
    groups = compute_api.network_proxy.server_security_groups(req.context, instance)
    return wsgi.json_response({'security_groups': _render(req, groups)})
