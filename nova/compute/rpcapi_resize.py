"""Client side of the compute RPC methods of resize, migration (1.3) and shelve (1.2)."""

_V = '1.2'
_MOVE = '1.3'


class ResizeShelveRPCMixin:
    """Mixed into compute.rpcapi.ComputeAPI (needs self._prepare)."""

    def prep_resize(self, context, instance, host, migration_id):
        self._prepare(host, version=_V).cast(context, 'prep_resize', instance=instance,
                                             migration_id=migration_id)

    def confirm_resize(self, context, instance, host, migration_id):
        self._prepare(host, version=_V).cast(context, 'confirm_resize', instance=instance,
                                             migration_id=migration_id)

    def revert_resize(self, context, instance, host, migration_id):
        self._prepare(host, version=_V).cast(context, 'revert_resize', instance=instance,
                                             migration_id=migration_id)

    # -- between two hosts (1.3) ------------------------------------------------
    def resize_instance(self, context, instance, host, migration_id):
        """To the source: stop the guest and hand its disks to the destination."""
        self._prepare(host, version=_MOVE).cast(context, 'resize_instance', instance=instance,
                                                migration_id=migration_id)

    def finish_resize(self, context, instance, host, migration_id, disk_dir):
        """To the destination: take the disks from ``disk_dir`` and start the guest."""
        self._prepare(host, version=_MOVE).cast(context, 'finish_resize', instance=instance,
                                                migration_id=migration_id, disk_dir=disk_dir)

    def finish_revert_resize(self, context, instance, host, migration_id, status):
        """To the source: the guest back from the disks it kept; migration ends ``status``."""
        self._prepare(host, version=_MOVE).cast(context, 'finish_revert_resize',
                                                instance=instance, migration_id=migration_id,
                                                status=status)

    def abort_migration(self, context, instance, host, migration_id):
        """To the destination: the move stopped before it arrived; free its claim."""
        self._prepare(host, version=_MOVE).cast(context, 'abort_migration', instance=instance,
                                                migration_id=migration_id)

    def shelve_instance(self, context, instance, host, image_id):
        self._prepare(host, version=_V).cast(context, 'shelve_instance', instance=instance,
                                             image_id=image_id)

    def shelve_offload_instance(self, context, instance, host):
        self._prepare(host, version=_V).cast(context, 'shelve_offload_instance',
                                             instance=instance)

    def unshelve_instance(self, context, instance, host):
        self._prepare(host, version=_V).cast(context, 'unshelve_instance', instance=instance)
