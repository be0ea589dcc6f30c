"""Compute manager: a server's ports after its build (attach, detach, events, cache heal)."""

import logging

from nova import context as nova_context
from nova import exception
from nova import vm_states as vs
from nova.compute import actions, manager_core
from nova.network import model, vif_events
from nova.objects import image_meta as image_meta_obj
from nova.virt import instance_events as events_mod

LOG = logging.getLogger(__name__)

# What the host acts on among the events Neutron sends.
NETWORK_EVENTS = (vif_events.EVENT_PLUGGED, vif_events.EVENT_UNPLUGGED,
                  vif_events.EVENT_DELETED, vif_events.EVENT_CHANGED)
# Servers whose cache the heal leaves alone: being built or going away.
_NO_HEAL_TASKS = (vs.SCHEDULING, vs.NETWORKING, vs.BLOCK_DEVICE_MAPPING, vs.SPAWNING,
                  vs.DELETING)


class InterfacesManager:
    """os-interface attach/detach (RPC 1.7), network-* events and the heal.

    ``network_api`` (nova.network.neutron.NetworkAPI, None: networkless)
    makes and removes the ports; ``instance_events``
    (nova.virt.instance_events.InstanceEvents) hands network-vif-plugged and
    -unplugged to the guest start waiting for them. The network info cache
    is written through the conductor, one writer at a time per server.
    """

    target = manager_core.RPC_TARGET

    def __init__(self, core, network_api, instance_events):
        self.core = core
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        self.network_api = network_api
        # None: nothing on this host waits for events (a driver without starts to hold).
        self._events = instance_events or events_mod.InstanceEvents()

    def _require_network(self, instance):
        if self.network_api is None:
            raise exception.InterfaceAttachFailed(instance_uuid=instance.uuid)

    def _save(self, instance, network_info):
        instance.network_info = network_info
        try:
            self.conductor_db.instance_update(instance.uuid, {'network_info': network_info})
        except exception.InstanceNotFound:
            LOG.info('Instance %s went away before its network info was saved',
                     instance.uuid)

    def _cache_lock(self, uuid):
        return self.core.cache_lock(uuid)

    def _current(self, instance):
        """The instance with the network info the database holds now."""
        row = self.conductor_db.instance_get(instance.uuid)
        instance.network_info = row.get('network_info') or []
        return instance

    # -- os-interface (RPC 1.7) ----------------------------------------------------

    def attach_interface(self, context, instance, network_id=None, port_id=None,
                         requested_ip=None, tag=None):
        """A port (made on ``network_id`` or the user's ``port_id``) bound here and
        hot-plugged into the guest; answers its VIF. Anything failing is undone."""
        self._require_network(instance)
        with self.core.lock(instance.uuid), self._cache_lock(instance.uuid):
            with actions.event(self.conductor_db, context, instance.uuid,
                               'compute_attach_interface', host=self.host):
                instance = self._current(instance)
                network_info, vif = self.network_api.ports.allocate_port_for_instance(
                    context, instance, port_id=port_id, network_id=network_id,
                    requested_ip=requested_ip, tag=tag, bind_host_id=self.host)
                try:
                    self.driver.attach_interface(
                        context, instance, image_meta_obj.ImageMeta.from_instance(instance),
                        vif)
                except Exception as exc:
                    LOG.exception('Hot-plugging port %s into %s failed', vif['id'],
                                  instance.uuid)
                    instance.network_info = network_info
                    try:
                        self.network_api.ports.deallocate_port_for_instance(
                            context, instance, vif['id'])
                    except Exception:  # noqa: BLE001 - the attach failure is what counts.
                        LOG.exception('Could not release port %s after the failed attach',
                                      vif['id'])
                    raise exception.InterfaceAttachFailed(
                        instance_uuid=instance.uuid) from exc
                self._save(instance, network_info)
                self.core.record_device_metadata(instance)
        LOG.info('Port %s attached to %s', vif['id'], instance.uuid)
        return vif

    def detach_interface(self, context, instance, port_id):
        """The port's NIC out of the guest, then the port deleted (made for the
        server) or unbound and kept (the user's)."""
        if self.network_api is None:
            return
        with self.core.lock(instance.uuid), self._cache_lock(instance.uuid):
            with actions.event(self.conductor_db, context, instance.uuid,
                               'compute_detach_interface', host=self.host):
                instance = self._current(instance)
                vif = model.find_vif(instance.network_info, port_id)
                if vif is None:
                    LOG.info('Port %s is not attached to %s', port_id, instance.uuid)
                    return
                self.driver.detach_interface(context, instance, vif)
                network_info = self.network_api.ports.deallocate_port_for_instance(
                    context, instance, port_id)
                self._save(instance, network_info)
                self.core.record_device_metadata(instance)
        LOG.info('Port %s detached from %s', port_id, instance.uuid)

    # -- events from Neutron -------------------------------------------------------

    def handle_event(self, context, instance, event):
        """One network-* event of os-server-external-events."""
        name, tag = event['name'], event.get('tag')
        if name in (vif_events.EVENT_PLUGGED, vif_events.EVENT_UNPLUGGED):
            if not self._events.deliver(instance.uuid, name, tag,
                                        event.get('status', 'completed')):
                LOG.debug('Nobody waits for %s:%s of %s', name, tag, instance.uuid)
            return
        try:
            if name == vif_events.EVENT_CHANGED:
                self.refresh_cache(context, instance)
            elif name == vif_events.EVENT_DELETED:
                self._port_deleted(context, instance, tag)
        except exception.InstanceNotFound:
            # Neutron tells of the ports of a server being deleted: nothing left to do.
            LOG.info('Instance %s is gone; %s:%s needs nothing', instance.uuid, name, tag)

    def refresh_cache(self, context, instance):
        """The network info cache rebuilt from Neutron (network-changed)."""
        if self.network_api is None:
            return
        with self._cache_lock(instance.uuid):
            instance = self._current(instance)
            try:
                network_info = self.network_api.info.build(context, instance)
            except exception.NovaException as exc:
                LOG.warning('Refreshing the network info of %s failed: %s', instance.uuid,
                            exc)
                return
            self._save(instance, network_info)

    def _port_deleted(self, context, instance, port_id):
        """Neutron deleted an attached port: its NIC leaves the guest and the cache."""
        if self.network_api is None or port_id is None:
            return
        with self.core.lock(instance.uuid), self._cache_lock(instance.uuid):
            instance = self._current(instance)
            vif = model.find_vif(instance.network_info, port_id)
            if vif is None:
                return
            try:
                self.driver.detach_interface(context, instance, vif)
            except exception.InstanceNotFound:
                pass
            except Exception:  # noqa: BLE001 - the cache still drops the port.
                LOG.exception('Could not take the deleted port %s out of %s', port_id,
                              instance.uuid)
            self._save(instance, model.without_vif(instance.network_info, port_id))
        LOG.info('Port %s of %s was deleted in the network service', port_id, instance.uuid)

    # -- periodic task -------------------------------------------------------------

    def heal_info_cache(self):
        """One of this host's servers gets its network info rebuilt from Neutron."""
        if self.network_api is None:
            return
        rows = [r for r in self.conductor_db.instance_get_all({'host': self.host})
                if r.get('task_state') not in _NO_HEAL_TASKS]
        ctx = nova_context.get_admin_context()
        healed = self.network_api.healer.heal_next(ctx, rows)
        if healed is None:
            return
        row, network_info = healed
        with self._cache_lock(row['uuid']):
            try:
                saved = self.conductor_db.instance_get(row['uuid']).get('network_info') or []
            except exception.InstanceNotFound:
                return
            if saved != (row.get('network_info') or []):
                return      # written since it was read: the newer cache stays
            if network_info != saved:
                LOG.info('Healed the network info cache of %s', row['uuid'])
                try:
                    self.conductor_db.instance_update(row['uuid'],
                                                      {'network_info': network_info})
                except exception.InstanceNotFound:
                    pass
