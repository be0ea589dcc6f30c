"""Client side of the compute RPC methods of live migration (1.5)."""

LIVE = '1.5'


class LiveMigrateRPCMixin:
    """Mixed into compute.rpcapi.ComputeAPI (needs self._prepare)."""

    def check_can_live_migrate_destination(self, context, instance, host):
        """To the destination: how to reach it ({'error': message} when it cannot take it)."""
        return self._prepare(host, version=LIVE, timeout=60).call(
            context, 'check_can_live_migrate_destination', instance=instance)

    def check_can_live_migrate_source(self, context, instance, host, target):
        """To the source: can the guest go to ``target``? What to prepare there."""
        return self._prepare(host, version=LIVE, timeout=60).call(
            context, 'check_can_live_migrate_source', instance=instance, target=target)

    def pre_live_migration(self, context, instance, host, source):
        """To the destination: the instance directory ready to receive the guest."""
        return self._prepare(host, version=LIVE, timeout=300).call(
            context, 'pre_live_migration', instance=instance, source=source)

    def live_migration(self, context, instance, host, migration_id, target, source):
        """To the source: move the guest to ``target``, then hand it over."""
        self._prepare(host, version=LIVE).cast(
            context, 'live_migration', instance=instance, migration_id=migration_id,
            target=target, source=source)

    def post_live_migration_at_destination(self, context, instance, host, migration_id,
                                           resume=False, volumes=None):
        """To the destination: the guest runs there (``resume``: paused); it is its now.

        ``volumes``: the attachments its pre_live_migration made, to record.
        """
        return self._prepare(host, version=LIVE, timeout=120).call(
            context, 'post_live_migration_at_destination', instance=instance,
            migration_id=migration_id, resume=resume, volumes=volumes or {})

    def rollback_live_migration_at_destination(self, context, instance, host, migration_id,
                                               volumes=None):
        """To the destination: the move failed; drop its files, attachments and claim."""
        self._prepare(host, version=LIVE).cast(
            context, 'rollback_live_migration_at_destination', instance=instance,
            migration_id=migration_id, volumes=volumes or {})

    def live_migration_abort(self, context, instance, host, migration_id):
        """To the source: stop the running migration (2.24)."""
        self._prepare(host, version=LIVE).cast(
            context, 'live_migration_abort', instance=instance, migration_id=migration_id)

    def live_migration_force_complete(self, context, instance, host, migration_id):
        """To the source: pause the guest so that the migration ends (2.22)."""
        self._prepare(host, version=LIVE).cast(
            context, 'live_migration_force_complete', instance=instance,
            migration_id=migration_id)
