"""Compute API: a server's network interfaces (os-interface): list, show, attach, detach."""

from nova import exception
from nova import vm_states as vs
from nova.compute import api_core
from nova.compute import rpcapi as compute_rpcapi_mod
from nova.network import model
from nova.network import requests as net_requests
from nova.objects import instance as instance_obj

# Upstream attaches and detaches interfaces in these states, with no task running.
ATTACH_SPEC = api_core.ActionSpec('attach_interface', (vs.ACTIVE, vs.PAUSED, vs.STOPPED),
                                  (None,), None)
DETACH_SPEC = api_core.ActionSpec('detach_interface', (vs.ACTIVE, vs.PAUSED, vs.STOPPED),
                                  (None,), None)


def attachment(port, tag=None, with_tag=False):
    """An ``interfaceAttachment`` of a Neutron port, as upstream renders it."""
    body = {'net_id': port.get('network_id'), 'port_id': port['id'],
            'mac_addr': port.get('mac_address'), 'port_state': port.get('status'),
            'fixed_ips': [{'subnet_id': ip.get('subnet_id'), 'ip_address': ip.get('ip_address')}
                          for ip in port.get('fixed_ips') or ()]}
    if with_tag:
        body['tag'] = tag
    return body


class InterfacesAPI:
    """Ports of a server read from Neutron; attach and detach done by its host (RPC 1.7)."""

    def __init__(self, db, network_api, compute_rpcapi):
        self._db = db
        self._network_api = network_api
        self._compute_rpcapi = compute_rpcapi

    def _network(self):
        if self._network_api is None:
            # Upstream's answer for a network API that cannot do it.
            exc = exception.NovaException('Network driver does not support this function.')
            exc.code = 501
            raise exc
        return self._network_api

    def list(self, context, instance):
        """The server's ports (those whose device_id is the server)."""
        return self._network().networks.list_ports(context, device_id=instance['uuid'])

    def show(self, context, instance, port_id):
        try:
            port = self._network().networks.show_port(context, port_id)
        except exception.PortNotFound as exc:
            raise _not_found(exc) from None
        if port.get('device_id') != instance['uuid']:
            raise exception.NotFound('Instance %(instance)s does not have a port with id '
                                     '%(port)s' % {'instance': instance['uuid'],
                                                   'port': port_id})
        return port

    @staticmethod
    def tag_of(instance, port_id):
        """The device tag the port was attached with (create or attach), or None."""
        found = model.find_vif(instance['network_info'] or [], port_id)
        return model.tag(found) if found else None

    def _check_rpc(self):
        client = self._compute_rpcapi.client
        if not client.can_send_version(compute_rpcapi_mod.INTERFACES):
            exc = exception.RPCVersionPinned(
                what='Attaching and detaching interfaces', topic='compute',
                needed=compute_rpcapi_mod.INTERFACES, pin=client.version_cap)
            exc.code = 409
            raise exc

    def attach(self, context, instance, network_id=None, port_id=None, requested_ip=None,
               tag=None):
        """The host creates (or binds) the port and hot-plugs it; the vif dict it answers.

        Upstream's 4xx come before the call: Neutron's answers for the port or
        network (404 for an unknown one, 409 for a port or address in use), the
        lock and the server's state.
        """
        network_api = self._network()
        api_core.check_locked(context, instance)
        api_core.check_state(instance, ATTACH_SPEC)
        self._check_rpc()
        self._check_request(context, network_api, instance, network_id, port_id,
                            requested_ip)
        self._db.action_start(context, instance['uuid'], 'attach_interface')
        return self._compute_rpcapi.attach_interface(
            context, instance_obj.Instance.from_db(instance), instance['host'],
            network_id=network_id, port_id=port_id, requested_ip=requested_ip, tag=tag)

    def _check_request(self, context, network_api, instance, network_id, port_id,
                       requested_ip):
        if port_id:
            request = net_requests.NetworkRequest(port_id=port_id)
        elif network_id:
            request = net_requests.NetworkRequest(network_id=network_id, address=requested_ip)
        else:
            nets = network_api.networks.available(context, instance['project_id'])
            if not nets:
                raise exception.InterfaceAttachFailedNoNetwork(
                    project_id=instance['project_id'])
            if len(nets) > 1:
                raise exception.NetworkAmbiguous()
            return
        try:
            # A create's checks for one more port; PortLimitExceeded (403) when
            # the project has no room for it, as upstream.
            room = network_api.validation.validate_networks(
                context, net_requests.RequestedNetworks([request]), 1,
                instance_uuid=instance['uuid'])
        except (exception.PortNotFound, exception.NetworkNotFound) as exc:
            raise _not_found(exc) from None
        except exception.FixedIpAlreadyInUse as exc:
            raise _conflict(exc) from None
        if room < 1:
            raise exception.PortLimitExceeded()

    def detach(self, context, instance, port_id):
        """Cast the detach to the host, after upstream's checks; 404 for a port that
        is not the server's."""
        network_api = self._network()
        api_core.check_locked(context, instance)
        api_core.check_state(instance, DETACH_SPEC)
        self._check_rpc()
        if model.find_vif(instance['network_info'] or [], port_id) is None:
            try:
                port = network_api.networks.show_port(context, port_id)
            except exception.PortNotFound as exc:
                raise _not_found(exc) from None
            if port.get('device_id') != instance['uuid']:
                raise exception.NotFound('Port %s is not attached' % port_id)
        self._db.action_start(context, instance['uuid'], 'detach_interface')
        self._compute_rpcapi.detach_interface(
            context, instance_obj.Instance.from_db(instance), instance['host'], port_id)


def _not_found(exc):
    return exception.NotFound(exc.format_message())


def _conflict(exc):
    return exception.Conflict(exc.format_message())
