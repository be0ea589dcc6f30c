"""Port bindings across hosts: migrations, evacuate, shelve/unshelve, and multiple bindings.

With Neutron's ``binding-extended`` extension a port can have an inactive
binding on a migration's destination next to its active one on the source:
bind_ports_to_host() makes them before a live migration, activate and
delete switch over or roll back. Without it (or for cold migration, resize,
evacuate and unshelve) bind_instance_ports() moves ``binding:host_id``.
"""

import copy
import logging

from nova import exception
from nova.network import model
from nova.network import networks as net_lookups

LOG = logging.getLogger(__name__)

MIGRATING_TO = 'migrating_to'
# A binding in these states must be redone even on the same host.
_FAILED = (model.VIF_TYPE_UNBOUND, model.VIF_TYPE_BINDING_FAILED)


def _field(obj, name):
    return net_lookups.instance_field(obj, name)


class PortBindings:
    """Binding calls, all with the admin client (binding is an admin attribute)."""

    def __init__(self, conf, client, extensions, info):
        self._conf = conf
        self._client = client
        self._extensions = extensions
        self._info = info

    def supports_port_binding_extension(self, context):
        return self._extensions.has(context, self._extensions.PORT_BINDING_EXTENDED)

    # -- multiple bindings (binding-extended) --------------------------------

    def bind_ports_to_host(self, context, instance, host, vnic_types=None, profiles=None):
        """An inactive binding on ``host`` for every port in the server's cache:
        {port id: binding}. If one fails those made are deleted and
        PortBindingFailed is raised."""
        made = {}
        for vif in _field(instance, 'network_info') or []:
            binding = {'host': host,
                       'vnic_type': (vnic_types or {}).get(vif['id'], vif.get('vnic_type')
                                                           or model.VNIC_TYPE_NORMAL)}
            profile = copy.deepcopy((profiles or {}).get(vif['id'], vif.get('profile')) or {})
            profile.pop(MIGRATING_TO, None)
            if profile:
                binding['profile'] = profile
            try:
                made[vif['id']] = self._create_binding(context, vif['id'], binding)
            except exception.NovaException as exc:
                LOG.error('Binding port %s to host %s failed: %s', vif['id'], host, exc)
                for port_id in made:
                    try:
                        self.delete_port_binding(context, port_id, host)
                    except exception.PortBindingDeletionFailed:
                        LOG.warning('Could not remove the binding of port %s on %s',
                                    port_id, host)
                raise exception.PortBindingFailed(port_id=vif['id']) from exc
        return made

    def _create_binding(self, context, port_id, binding):
        """POST the binding. An inactive one already on that host (the source
        binding of an earlier move that was never deleted, or what a crash
        left) is replaced: it would refuse every move to that host."""
        path = self._client.path('ports', port_id, 'bindings')
        try:
            return self._client.call(context, 'POST', path, admin=True,
                                     json={'binding': binding})['binding']
        except exception.Conflict:
            existing = self._client.call(
                context, 'GET', self._client.path('ports', port_id, 'bindings', binding['host']),
                admin=True)['binding']
            if existing.get('status') != 'INACTIVE':
                raise
        LOG.info('Replacing the inactive binding of port %s on host %s', port_id,
                 binding['host'])
        self.delete_port_binding(context, port_id, binding['host'])
        return self._client.call(context, 'POST', path, admin=True,
                                 json={'binding': binding})['binding']

    def activate_port_binding(self, context, port_id, host):
        """Make ``host``'s binding the active one (already active is fine)."""
        try:
            self._client.call(context, 'PUT',
                              self._client.path('ports', port_id, 'bindings', host, 'activate'),
                              admin=True)
        except exception.Conflict:
            LOG.info('Binding of port %s on host %s is already active', port_id, host)
        except exception.NovaException as exc:
            raise exception.PortBindingActivationFailed(port_id=port_id, host=host) from exc

    def delete_port_binding(self, context, port_id, host):
        """Remove the port's binding on ``host`` (none there is fine)."""
        try:
            self._client.call(context, 'DELETE',
                              self._client.path('ports', port_id, 'bindings', host),
                              admin=True)
        except exception.NotFound:
            LOG.debug('Port %s has no binding on %s', port_id, host)
        except exception.NovaException as exc:
            raise exception.PortBindingDeletionFailed(port_id=port_id, host=host) from exc

    def delete_instance_bindings(self, context, instance, host):
        """Every binding of the server's ports on ``host`` (a rolled-back live
        migration's destination); raises PortBindingDeletionFailed naming all
        that failed."""
        if not self.supports_port_binding_extension(context):
            return
        failed = []
        for vif in _field(instance, 'network_info') or []:
            try:
                self.delete_port_binding(context, vif['id'], host)
            except exception.PortBindingDeletionFailed:
                failed.append(vif['id'])
        if failed:
            raise exception.PortBindingDeletionFailed(port_id=','.join(failed), host=host)

    # -- migration hooks -----------------------------------------------------

    def setup_networks_on_host(self, context, instance, host=None, teardown=False):
        """Without multiple bindings: mark the source binding ``migrating_to``
        ``host`` before a live migration, or clear the mark (``teardown``)."""
        migrating = host and host != _field(instance, 'host')
        if not (migrating or teardown):
            return
        ports = self._client.instance_ports(
            context, instance, tenant_id=_field(instance, 'project_id'),
            **{'binding:host_id': _field(instance, 'host')})
        for port in ports:
            profile = dict(port.get('binding:profile') or {})
            if migrating and not teardown:
                if profile.get(MIGRATING_TO) == host:
                    continue
                profile[MIGRATING_TO] = host
            elif MIGRATING_TO in profile:
                del profile[MIGRATING_TO]
            else:
                continue
            self._client.update_port(context, port['id'], {'binding:profile': profile})

    def migrate_instance_start(self, context, instance, dest_host):
        """Activate the destination bindings bind_ports_to_host() made (this
        moves binding:host_id atomically): the ids of the ports now active on
        ``dest_host``. A port without a destination binding is left to
        migrate_instance_finish()."""
        if not self.supports_port_binding_extension(context):
            return []
        active = []
        for vif in _field(instance, 'network_info') or []:
            try:
                binding = self._client.call(
                    context, 'GET', self._client.path('ports', vif['id'], 'bindings', dest_host),
                    admin=True)['binding']
            except exception.NotFound:
                continue
            except exception.NovaException as exc:
                LOG.error('Reading the binding of port %s on %s failed: %s', vif['id'],
                          dest_host, exc)
                continue
            if binding.get('status') == 'INACTIVE':
                self.activate_port_binding(context, vif['id'], dest_host)
            active.append(vif['id'])
        return active

    def delete_source_bindings(self, context, port_ids, host):
        """After a live migration: the bindings on the source ``host`` of the
        ports migrate_instance_start() activated elsewhere, which Neutron
        keeps as inactive ones (as upstream's teardown on the source: left,
        they would refuse the next move back there). Best effort."""
        for port_id in port_ids:
            try:
                self.delete_port_binding(context, port_id, host)
            except exception.PortBindingDeletionFailed:
                # The next move there replaces it (_create_binding).
                LOG.warning('Could not delete the binding of port %s on %s', port_id, host)

    def migrate_instance_finish(self, context, instance, dest_host):
        """After a migration: every port bound to ``dest_host``; the fresh network info."""
        self.bind_instance_ports(context, instance, dest_host)
        return self._info.build(context, instance)

    # -- one host to another -------------------------------------------------

    def bind_instance_ports(self, context, instance, host):
        """Bind the server's ports to ``host`` (unshelve, evacuate, resize, or
        a repair after a lost binding); ``device_owner`` follows the server's
        availability zone. Returns the ports as Neutron answered."""
        zone = _field(instance, 'availability_zone') or self._conf.default_availability_zone
        updated = []
        for port in self._client.instance_ports(context, instance,
                                                tenant_id=_field(instance, 'project_id')):
            if (port.get('binding:host_id') == host
                    and port.get('binding:vif_type') not in _FAILED):
                updated.append(port)
                continue
            values = {'binding:host_id': host, 'device_owner': 'compute:%s' % zone}
            profile = dict(port.get('binding:profile') or {})
            if profile.pop(MIGRATING_TO, None) is not None:
                values['binding:profile'] = profile
            LOG.info('Binding port %s of %s to host %s', port['id'], _field(instance, 'uuid'),
                     host)
            port = self._client.update_port(context, port['id'], values)
            if port.get('binding:vif_type') == model.VIF_TYPE_BINDING_FAILED:
                raise exception.PortBindingFailed(port_id=port['id'])
            updated.append(port)
        return updated

    def unbind_instance_ports(self, context, instance):
        """Shelve offload: no host for the server's ports, which stay the
        server's (device_id and device_owner kept)."""
        for port in self._client.instance_ports(context, instance,
                                                tenant_id=_field(instance, 'project_id')):
            if not port.get('binding:host_id'):
                continue
            values = {'binding:host_id': None}
            profile = dict(port.get('binding:profile') or {})
            if profile.pop(MIGRATING_TO, None) is not None:
                values['binding:profile'] = profile
            self._client.update_port(context, port['id'], values)
