"""Client side of the compute RPC methods of resize and shelve (version 1.2)."""

_V = '1.2'


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

    def shelve_instance(self, context, instance, host, image_id):
        self._prepare(host, version=_V).cast(context, 'shelve_instance', instance=instance,
                                             image_id=image_id)

    def shelve_offload_instance(self, context, instance, host):
        self._prepare(host, version=_V).cast(context, 'shelve_offload_instance',
                                             instance=instance)

    def unshelve_instance(self, context, instance, host):
        self._prepare(host, version=_V).cast(context, 'unshelve_instance', instance=instance)
