"""Deleting servers in the compute API: at once, deferred (soft) and restored, or forced."""

import logging

from oslo_utils import timeutils

from nova import exception
from nova import vm_states as vs
from nova.compute import api_core, api_handoff
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)


class DeleteAPI:
    """Delete, soft delete, restore and force delete of servers."""

    def __init__(self, conf, db, compute_rpcapi, core, shelve, network_api=None):
        self._conf = conf
        # A server on no host (shelved offloaded) has ports only the API can release.
        self._network_api = network_api
        self._db = db
        self._compute_rpcapi = compute_rpcapi
        self._core = core
        self._shelve = shelve

    def delete(self, context, instance):
        if self.deferred_delete_applies(instance):
            return self.soft_delete(context, instance)
        api_core.check_locked(context, instance)
        self.hard_delete(context, instance)

    def hard_delete(self, context, instance):
        action_id = self._db.action_start(context, instance['uuid'], 'delete')
        # Console URLs of a deleted server open nothing any more.
        self._db.console_token_destroy_for_instance(instance['uuid'])
        self._shelve.delete_shelved_image(context, instance)
        if not instance['host']:
            # Never reached a host: nothing to clean up but the record, as
            # long as no host claimed it since we read it (then that host
            # must delete it, releasing its claim and any guest it started).
            if self._db.instance_destroy_unscheduled(instance['uuid']):
                self._release_ports(context, instance)
                return
        updated = self._db.instance_update(instance['uuid'], {'task_state': vs.DELETING})
        claim = api_handoff.Claim(instance['uuid'], 'delete', task_state=vs.DELETING,
                                  restore={'task_state': instance['task_state']},
                                  action_id=action_id)
        with self._core.handoff.sending(context, claim):
            self._compute_rpcapi.terminate_instance(
                context, instance_obj.Instance.from_db(updated), updated['host'])

    def _release_ports(self, context, instance):
        """The ports of a server deleted on no host: made for it, deleted; the
        user's, unbound (as its host would on a delete)."""
        if self._network_api is None or not instance.get('network_info'):
            return
        try:
            self._network_api.ports.deallocate_for_instance(context, instance)
        except exception.NovaException:
            LOG.exception('Could not release the ports of deleted server %s',
                          instance['uuid'])

    # -- deferred delete -------------------------------------------------------
    def deferred_delete_applies(self, instance):
        """Soft delete needs the option, and a server that was ever launched (upstream)."""
        return bool(self._conf.reclaim_instance_interval and instance['launched_at']
                    and instance['host'] and instance['vm_state'] != vs.SOFT_DELETED)

    def soft_delete(self, context, instance):
        """Power off and keep the server SOFT_DELETED until reclaimed or restored."""
        api_core.check_locked(context, instance)
        action_id = self._db.action_start(context, instance['uuid'], 'delete')
        self._db.console_token_destroy_for_instance(instance['uuid'])
        row = self._db.instance_update(
            instance['uuid'], {'task_state': vs.SOFT_DELETING,
                               'deleted_at': timeutils.utcnow().replace(microsecond=0)})
        claim = api_handoff.Claim(instance['uuid'], 'delete', task_state=vs.SOFT_DELETING,
                                  restore={'task_state': instance['task_state'],
                                           'deleted_at': instance['deleted_at']},
                                  action_id=action_id)
        with self._core.handoff.sending(context, claim):
            self._compute_rpcapi.soft_delete_instance(
                context, instance_obj.Instance.from_db(row), row['host'])

    def restore(self, context, instance):
        with self._core.action(context, instance, 'restore',
                               extra_values={'deleted_at': None}) as inst:
            self._compute_rpcapi.restore_instance(context, inst, inst.host)

    def force_delete(self, context, instance):
        """Delete now, whatever the state (a soft-deleted server included)."""
        api_core.check_locked(context, instance)
        self.hard_delete(context, instance)
