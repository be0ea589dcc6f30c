"""Handlers of the deprecated network proxy os-networks (up to microversion 2.35)."""

from nova.api import wsgi
from nova.policies import networks_proxy as policies


def _can(req, policy):
    req.context.can(policy, target={'project_id': req.context.project_id})


def index(req):
    """The networks the caller can use: none, as this deployment has no network service."""
    _can(req, policies.NETWORKS_LIST)
    return wsgi.json_response({'networks': []})


def show(req, network_id):
    _can(req, policies.NETWORKS_SHOW)
    raise wsgi.fault(404, 'Network %s could not be found.' % network_id)


def gone(req, *args, **kwargs):
    """Creating, deleting and associating networks went with nova-network: 410, as upstream."""
    raise wsgi.fault(410, 'This API is gone: networks are managed by the network service.')
