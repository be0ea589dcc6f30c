"""Handlers of /servers/{id}/os-interface: a server's ports, attach and detach."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import networking as schemas
from nova.compute import api_interfaces
from nova.policies import networking as policies


def _server(req, server_id, policy):
    instance = req.app.compute_api.servers.get(req.context, server_id)
    req.context.can(policy, target={'project_id': instance['project_id']})
    return instance


def _attachment(req, instance, port):
    interfaces = req.app.compute_api.interfaces
    return api_interfaces.attachment(port, interfaces.tag_of(instance, port['id']),
                                     with_tag=req.is_at_least(mv.INTERFACE_TAG_SHOWN))


def index(req, server_id):
    instance = _server(req, server_id, policies.INTERFACES_LIST)
    ports = req.app.compute_api.interfaces.list(req.context, instance)
    return wsgi.json_response({'interfaceAttachments': [
        _attachment(req, instance, p) for p in ports]})


def show(req, server_id, port_id):
    instance = _server(req, server_id, policies.INTERFACES_SHOW)
    port = req.app.compute_api.interfaces.show(req.context, instance, port_id)
    return wsgi.json_response({'interfaceAttachment': _attachment(req, instance, port)})


def create(req, server_id):
    # Policy before the body, as every handler here.
    instance = _server(req, server_id, policies.INTERFACES_CREATE)
    return _create(req, instance)


@validation.schema(schemas.interface_attach_v2_1, mv.MIN, mv.before(mv.INTERFACE_ATTACH_TAG))
@validation.schema(schemas.interface_attach_v2_49, mv.INTERFACE_ATTACH_TAG)
def _create(req, instance, body):
    spec = (body or {}).get('interfaceAttachment') or {}
    network_id, port_id = spec.get('net_id'), spec.get('port_id')
    fixed_ips = spec.get('fixed_ips') or ()
    requested_ip = fixed_ips[0]['ip_address'] if fixed_ips else None
    if network_id and port_id:
        raise wsgi.fault(400, 'Must not input both network_id and port_id')
    if requested_ip and not network_id:
        raise wsgi.fault(400, 'Must input network_id when request IP address')
    interfaces = req.app.compute_api.interfaces
    vif = interfaces.attach(req.context, instance, network_id=network_id, port_id=port_id,
                            requested_ip=requested_ip, tag=spec.get('tag'))
    port = interfaces.show(req.context, instance, vif['id'])
    body = api_interfaces.attachment(port, spec.get('tag'),
                                     with_tag=req.is_at_least(mv.INTERFACE_TAG_SHOWN))
    return wsgi.json_response({'interfaceAttachment': body})


def delete(req, server_id, port_id):
    instance = _server(req, server_id, policies.INTERFACES_DELETE)
    req.app.compute_api.interfaces.detach(req.context, instance, port_id)
    return wsgi.empty_response(202)
