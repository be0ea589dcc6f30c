"""Handlers of the os-floating-ips and os-floating-ip-pools proxies (up to 2.35)."""

from nova import exception
from nova.api import validation, wsgi
from nova.api.schemas import networking as schemas
from nova.api.views import networking as views
from nova.policies import networking as policies


def _can(req, policy):
    req.context.can(policy, target={'project_id': req.context.project_id})


def index(req):
    _can(req, policies.FLOATING_IPS_LIST)
    fips = req.app.compute_api.network_proxy.floating_ips(req.context)
    return wsgi.json_response({'floating_ips': [views.floating_ip(f) for f in fips]})


def show(req, floating_ip_id):
    _can(req, policies.FLOATING_IPS_SHOW)
    fip = req.app.compute_api.network_proxy.floating_ip(req.context, floating_ip_id)
    return wsgi.json_response({'floating_ip': views.floating_ip(fip)})


def create(req):
    _can(req, policies.FLOATING_IPS_CREATE)
    # The body is optional (the default pool), as upstream.
    return _create(req) if req.body else _allocate(req, None)


@validation.schema(schemas.floating_ip_create)
def _create(req, body):
    return _allocate(req, (body or {}).get('pool'))


def _allocate(req, pool):
    try:
        fip = req.app.compute_api.network_proxy.allocate_floating_ip(req.context, pool)
    except exception.NoMoreFloatingIps:
        raise wsgi.fault(404, 'No more floating IPs in pool %s.' % pool if pool
                         else 'No more floating IPs available.')
    except exception.FloatingIpLimitExceeded:
        raise wsgi.fault(403, 'IP allocation over quota in pool %s.' % pool if pool
                         else 'IP allocation over quota.')
    except exception.FloatingIpPoolNotFound as exc:
        raise wsgi.fault(404, exc.format_message())
    return wsgi.json_response({'floating_ip': views.floating_ip(fip)})


def delete(req, floating_ip_id):
    _can(req, policies.FLOATING_IPS_DELETE)
    req.app.compute_api.network_proxy.release_floating_ip(req.context, floating_ip_id)
    return wsgi.empty_response(202)


def pools(req):
    _can(req, policies.FLOATING_IP_POOLS)
    names = req.app.compute_api.network_proxy.floating_ip_pools(req.context)
    return wsgi.json_response({'floating_ip_pools': [{'name': n} for n in names]})


# -- server actions below 2.44 ----------------------------------------------------

def _server(req, server_id, policy):
    instance = req.app.compute_api.servers.get(req.context, server_id)
    req.context.can(policy, target={'project_id': instance['project_id']})
    return instance


@validation.schema(schemas.add_floating_ip)
def _add(req, instance, body):
    spec = body['addFloatingIp']
    req.app.compute_api.networking.add_floating_ip(req.context, instance, spec['address'],
                                                   spec.get('fixed_address'))
    return wsgi.empty_response(202)


def add_floating_ip(req, server_id, body):
    return _add(req, _server(req, server_id, policies.FLOATING_IP_ADD))


@validation.schema(schemas.remove_floating_ip)
def _remove(req, instance, body):
    req.app.compute_api.networking.remove_floating_ip(req.context, instance,
                                                      body['removeFloatingIp']['address'])
    return wsgi.empty_response(202)


def remove_floating_ip(req, server_id, body):
    return _remove(req, _server(req, server_id, policies.FLOATING_IP_REMOVE))


@validation.schema(schemas.add_fixed_ip)
def _add_fixed(req, instance, body):
    req.app.compute_api.networking.add_fixed_ip(req.context, instance,
                                                str(body['addFixedIp']['networkId']))
    return wsgi.empty_response(202)


def add_fixed_ip(req, server_id, body):
    return _add_fixed(req, _server(req, server_id, policies.MULTINIC_ADD))


@validation.schema(schemas.remove_fixed_ip)
def _remove_fixed(req, instance, body):
    req.app.compute_api.networking.remove_fixed_ip(req.context, instance,
                                                   body['removeFixedIp']['address'])
    return wsgi.empty_response(202)


def remove_fixed_ip(req, server_id, body):
    return _remove_fixed(req, _server(req, server_id, policies.MULTINIC_REMOVE))
