"""addSecurityGroup / removeSecurityGroup server actions without a network service."""

from nova.api import wsgi
from nova.policies import server_actions as policies


def _group_name(body, action):
    spec = body[action]
    name = spec.get('name') if isinstance(spec, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise wsgi.fault(400, 'Security group name cannot be empty.' if isinstance(spec, dict)
                         else 'Missing parameter dict.')
    return name.strip()


def _handler(action, policy):
    def handler(req, server_id, body):
        instance = req.app.compute_api.servers.get(req.context, server_id)
        req.context.can(policy,
                        target={'project_id': instance['project_id']})
        _group_name(body, action)
        # Upstream applies groups to the server's ports; with no network service a
        # server has none, and upstream answers this 404 for a server without ports.
        raise wsgi.fault(404, 'instance_id %s could not be found as device id on any '
                              'ports: this deployment has no network service.'
                         % instance['uuid'])
    return handler


add_security_group = _handler('addSecurityGroup', policies.SECURITY_GROUP_ADD)
remove_security_group = _handler('removeSecurityGroup', policies.SECURITY_GROUP_REMOVE)
