"""Conductor: pick, claim and check a destination for a live migration, then start it."""

import logging

from nova import exception
from nova.compute import actions
from nova.conductor import rpc_target

LOG = logging.getLogger(__name__)

_PREFIX = 'Migration pre-check error: '

EVENT = 'conductor_live_migrate_instance'


def _refusal(message):
    """A host's answer as MigrationPreCheckError (its message not prefixed twice)."""
    if message.startswith(_PREFIX):
        message = message[len(_PREFIX):]
    return exception.MigrationPreCheckError(reason=message)


class LiveMigrateConductor:
    """Live migration: a destination claimed that both hosts accept, then the source's cast."""

    target = rpc_target.TARGET

    def __init__(self, db, scheduler, compute_rpcapi):
        self.db = db
        self.scheduler = scheduler
        self.compute_rpcapi = compute_rpcapi

    def live_migrate_instance(self, context, instance, migration_id, host=None):
        """Claim a destination both hosts agree on and cast the migration to the source.

        ``host``: the requested destination (None: the scheduler's choice;
        a host that fails the checks is left out and the next one tried).
        Returns None once the source has the work, or the error message after
        recording the failed attempt (migration 'error', fault, the server
        unchanged), as upstream's conductor does before it answers a pre-2.34
        request.
        """
        migration = self.db.migration_get(migration_id)
        flavor = migration['new_flavor']
        tried, refused = [instance.host], None
        try:
            with actions.event(self.db, context, instance.uuid, EVENT):
                while True:
                    try:
                        node = self._pick_live_destination(instance, flavor, host, tried)
                    except exception.NoValidHost:
                        # Every host left refused: say why the last one did.
                        if refused is not None:
                            raise refused from None
                        raise
                    try:
                        target, source = self._live_checks(context, instance, node['host'])
                        break
                    except exception.MigrationPreCheckError as exc:
                        self.scheduler.release(node['host'], flavor)
                        if host is not None:
                            raise
                        LOG.info('Live migration of %s: %s refused (%s)',
                                 instance.uuid, node['host'], exc)
                        tried.append(node['host'])
                        refused = exc
        except (exception.NoValidHost, exception.MigrationPreCheckError) as exc:
            LOG.info('No live migration destination for %s: %s', instance.uuid, exc)
            self._live_refused(instance, migration_id, exc)
            return exc.format_message()
        try:
            self.db.migration_update(migration_id, {
                'dest_compute': node['host'], 'dest_node': node['hypervisor_hostname'],
                'status': 'preparing'},
                expected_status=('accepted',))
        except exception.NovaException:
            # Gone or changed meanwhile: give the room and the server back.
            self.scheduler.release(node['host'], flavor)
            self._live_refused(instance, migration_id, None)
            return 'the migration changed meanwhile'
        LOG.info('Live migrating %s from %s to %s', instance.uuid, instance.host, node['host'])
        self.compute_rpcapi.live_migration(context, instance, instance.host, migration_id,
                                           target, source)
        return None

    def _pick_live_destination(self, instance, flavor, host, tried):
        try:
            return self.scheduler.select_and_claim(
                flavor, exclude=tuple(tried), force_host=host,
                exclude_instance=instance.uuid)
        except exception.NoValidHost:
            if host is not None:
                raise exception.MigrationPreCheckError(
                    reason='host %s cannot take the server (not enough room, or '
                           'not up)' % host) from None
            raise exception.NoValidHost(
                reason='There are not enough hosts available.') from None

    def _live_checks(self, context, instance, dest):
        """(target, source) answers of both hosts; MigrationPreCheckError if either says no."""
        rpc = self.compute_rpcapi
        try:
            target = rpc.check_can_live_migrate_destination(context, instance, dest)
            if target.get('error'):
                raise _refusal(target['error'])
            source = rpc.check_can_live_migrate_source(context, instance, instance.host,
                                                        target)
        except exception.MigrationPreCheckError:
            raise
        except Exception as exc:  # noqa: BLE001 - a host that does not answer says no.
            raise exception.MigrationPreCheckError(reason=str(exc)) from None
        if source.get('error'):
            raise _refusal(source['error'])
        return target, source

    def _live_refused(self, instance, migration_id, exc):
        if exc is not None:
            actions.record_fault(self.db, instance.uuid, exc)
            self.db.migration_update(migration_id, {'status': 'error'})
        try:
            self.db.instance_update(instance.uuid, {'task_state': None},
                                    expected_task_state=['migrating'])
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            pass
