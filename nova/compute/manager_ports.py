"""A move's ports: bound to the host the guest runs on, the network info cache rebuilt for it."""

import logging

from nova import exception

LOG = logging.getLogger(__name__)


class PortMoves:
    """The network steps of cold and live migration, resize revert and shelve.

    ``network_api`` (nova.network.neutron.NetworkAPI) None, or a server with
    no port in its cache: every step is a no-op (networkless moves make no
    call). Each step that rebinds saves the fresh network info (the
    binding's ``vif_type``/``vif_details`` may differ per host) on the
    instance and through the conductor, so the driver plugs what the new
    host's binding says.
    """

    def __init__(self, core, network_api):
        self.core = core
        self.host = core.host
        self.conductor_db = core.conductor_db
        self.network_api = network_api

    def _has_ports(self, instance):
        return self.network_api is not None and bool(instance.network_info or [])

    def _save(self, instance, network_info):
        instance.network_info = network_info
        self.conductor_db.instance_update(instance.uuid, {'network_info': network_info})
        return network_info

    # -- one host to another (cold migration, resize revert, unshelve) -----------------
    def bind_here(self, context, instance):
        """Every port of the server bound to this host (a binding that failed
        raises PortBindingFailed); the fresh network info, saved."""
        if not self._has_ports(instance):
            return instance.network_info or []
        with self.core.cache_lock(instance.uuid):
            self.network_api.bindings.bind_instance_ports(context, instance, self.host)
            return self._save(instance, self.network_api.info.build(context, instance))

    def unbind(self, context, instance):
        """Shelve offload: the ports stay the server's, bound to no host (best
        effort: the guest is gone already, and an unshelve binds them again)."""
        if not self._has_ports(instance):
            return
        try:
            self.network_api.bindings.unbind_instance_ports(context, instance)
        except exception.NovaException:
            LOG.exception('Could not unbind the ports of %s', instance.uuid)

    # -- live migration ---------------------------------------------------------------
    def prepare_live_destination(self, context, instance):
        """On the destination before the guest arrives: the network info this
        host plugs. With Neutron's multiple bindings an inactive binding is
        made here and its vif_type/details are used; without, the source's
        binding is marked ``migrating_to`` this host."""
        if not self._has_ports(instance):
            return []
        bindings = self.network_api.bindings
        if not bindings.supports_port_binding_extension(context):
            bindings.setup_networks_on_host(context, instance, host=self.host)
            return list(instance.network_info)
        made = bindings.bind_ports_to_host(context, instance, self.host)
        info = []
        for vif in instance.network_info:
            vif = dict(vif)
            binding = made.get(vif['id'])
            if binding:
                vif['type'] = binding.get('vif_type', vif.get('type'))
                vif['details'] = binding.get('vif_details', vif.get('details'))
            info.append(vif)
        return info

    def activate_on(self, context, instance, dest):
        """On the source once the guest runs on ``dest``: its bindings there are
        active. Returns the ids of the ports activated, for drop_source()."""
        if not self._has_ports(instance):
            return []
        try:
            return self.network_api.bindings.migrate_instance_start(context, instance, dest)
        except exception.NovaException:
            # The destination binds what is left (finish_live_destination).
            LOG.exception('Activating the bindings of %s on %s failed', instance.uuid, dest)
            return []

    def drop_source(self, context, port_ids):
        """On the source once the destination took the guest over: this host's
        (now inactive) bindings of ``port_ids`` go."""
        if port_ids:
            self.network_api.bindings.delete_source_bindings(context, port_ids, self.host)

    def finish_live_destination(self, context, instance):
        """On the destination after the move: every port bound here, the cache fresh."""
        if not self._has_ports(instance):
            return instance.network_info or []
        with self.core.cache_lock(instance.uuid):
            info = self.network_api.bindings.migrate_instance_finish(context, instance,
                                                                     self.host)
            return self._save(instance, info)

    def rollback_live_destination(self, context, instance):
        """The move failed: no binding stays on this host, no ``migrating_to`` mark."""
        if not self._has_ports(instance):
            return
        bindings = self.network_api.bindings
        try:
            if bindings.supports_port_binding_extension(context):
                bindings.delete_instance_bindings(context, instance, self.host)
            else:
                bindings.setup_networks_on_host(context, instance, teardown=True)
        except exception.NovaException:
            LOG.exception('Could not remove the bindings of %s on %s', instance.uuid,
                          self.host)
