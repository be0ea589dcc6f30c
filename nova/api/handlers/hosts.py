"""Handlers of /os-hosts (until 2.42): list, show, and the actions libvirt does not support."""

from nova.api import validation, wsgi
from nova.api.schemas import admin_hosts as schemas
from nova.policies import admin_hosts as policies

# Upstream's libvirt driver implements none of the host power or maintenance
# calls; the API answers them with this 501 after the host is found.
_NOT_SUPPORTED = 'The requested functionality is not supported.'


@validation.query_schema(schemas.host_list_query)
def index(req, params):
    req.context.can(policies.HOSTS_LIST, target={})
    # A blank zone means every zone, as upstream.
    hosts = req.app.compute_api.admin.host_list(req.context, zone=params.get('zone') or None)
    return wsgi.json_response({'hosts': hosts})


def _resource(host, project, cpu, memory_mb, disk_gb):
    return {'resource': {'host': host, 'project': project, 'cpu': cpu,
                         'memory_mb': memory_mb, 'disk_gb': disk_gb}}


def show(req, host_name):
    req.context.can(policies.HOSTS_SHOW, target={})
    node, instances = req.app.compute_api.admin.host_get(req.context, host_name)
    node = node or {}
    body = [_resource(host_name, '(total)', node.get('vcpus', 0), node.get('memory_mb', 0),
                      node.get('local_gb', 0)),
            _resource(host_name, '(used_now)', node.get('vcpus_used', 0),
                      node.get('memory_mb_used', 0), node.get('local_gb_used', 0))]
    totals = {}
    for inst in instances:
        usage = totals.setdefault(inst['project_id'], [0, 0, 0])
        usage[0] += inst['vcpus'] or 0
        usage[1] += inst['memory_mb'] or 0
        usage[2] += (inst['root_gb'] or 0) + (inst['ephemeral_gb'] or 0)
    used_max = [sum(u[i] for u in totals.values()) for i in range(3)]
    body.append(_resource(host_name, '(used_max)', *used_max))
    body += [_resource(host_name, project, *usage) for project, usage in sorted(totals.items())]
    return wsgi.json_response({'host': body})


@validation.schema(schemas.host_update)
def update(req, host_name, body):
    req.context.can(policies.HOSTS_UPDATE, target={})
    req.app.compute_api.admin.host_get(req.context, host_name)
    raise wsgi.fault(501, _NOT_SUPPORTED)


def _power_action(action, policy):
    def handler(req, host_name):
        req.context.can(policy, target={})
        req.app.compute_api.admin.host_get(req.context, host_name)
        raise wsgi.fault(501, _NOT_SUPPORTED)
    handler.__name__ = action
    handler.__doc__ = 'GET /os-hosts/{host_name}/%s: not supported by libvirt.' % action
    return handler


reboot = _power_action('reboot', policies.HOSTS_REBOOT)
shutdown = _power_action('shutdown', policies.HOSTS_SHUTDOWN)
startup = _power_action('start', policies.HOSTS_START)
