"""Handlers of the deprecated network proxies os-networks and os-tenant-networks (up to 2.35)."""

from nova.api import wsgi
from nova.api.views import networking as views
from nova.policies import networking as net_policies
from nova.policies import networks_proxy as policies


def _can(req, policy):
    req.context.can(policy, target={'project_id': req.context.project_id})


def index(req):
    """The networks the caller can see in the network service (none without one)."""
    _can(req, policies.NETWORKS_LIST)
    nets = req.app.compute_api.network_proxy.networks(req.context)
    return wsgi.json_response({'networks': [views.network(n, req.context.is_admin)
                                            for n in nets]})


def show(req, network_id):
    _can(req, policies.NETWORKS_SHOW)
    net = req.app.compute_api.network_proxy.network(req.context, network_id)
    return wsgi.json_response({'network': views.network(net, req.context.is_admin)})


def gone(req, *args, **kwargs):
    """Creating, deleting and associating networks went with nova-network: 410, as upstream."""
    raise wsgi.fault(410, 'This API is gone: networks are managed by the network service.')


def tenant_index(req):
    _can(req, net_policies.TENANT_NETWORKS_LIST)
    nets = req.app.compute_api.network_proxy.networks(req.context)
    return wsgi.json_response({'networks': [views.tenant_network(n) for n in nets]})


def tenant_show(req, network_id):
    _can(req, net_policies.TENANT_NETWORKS_SHOW)
    net = req.app.compute_api.network_proxy.network(req.context, network_id)
    return wsgi.json_response({'network': views.tenant_network(net)})
