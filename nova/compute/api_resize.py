"""Resize, confirm/revert and cold migrate in the compute API: upstream's checks, then a cast."""

from nova import exception
from nova.compute import api_boot_image, api_core, api_handoff, personality
from nova.image import sysmeta
from nova.objects import instance as instance_obj

_FLAVOR_KEYS = ('id', 'flavorid', 'name', 'vcpus', 'memory_mb', 'root_gb', 'ephemeral_gb',
                'swap', 'rxtx_factor', 'is_public', 'disabled', 'description', 'extra_specs')


def flavor_snapshot(flavor):
    """The flavor as an instance keeps it (the same keys server create stores)."""
    return {k: flavor.get(k) for k in _FLAVOR_KEYS}


def move_spec(db, instance, host):
    """What the scheduler must keep for a move: the zone, the server group, the image's needs."""
    image = sysmeta.sysmeta_to_image(instance['system_metadata'] or {})
    groups = db.server_groups_by_instance([instance['uuid']]).get(instance['uuid'])
    # Within the zone the server is pinned to (2.104; '' once unpinned).
    zone = (instance['system_metadata'] or {}).get('pinned_az', instance['availability_zone'])
    return {'host': host, 'availability_zone': zone or None,
            'group': groups[0] if groups else None,
            'image_properties': image.get('properties') or {}}


class ResizeAPI:
    """Resize (to another flavor), cold migration (to another host) and their ends."""

    def __init__(self, conf, db, quota, conductor_api, compute_rpcapi, core, flavors):
        self._conf = conf
        self._db = db
        self._quota = quota
        self._conductor_api = conductor_api
        self._compute_rpcapi = compute_rpcapi
        self._core = core
        self._flavors = flavors

    def resize(self, context, instance, flavor_id, disk_config=None):
        """Validate, record the migration, claim the task and cast prep_resize to the host.

        ``disk_config`` (OS-DCF:diskConfig, AUTO or MANUAL) becomes the server's, as upstream.
        """
        api_core.check_locked(context, instance)
        api_core.check_state(instance, api_core.SPECS['resize'])
        current = instance['flavor']
        try:
            new = self._flavors.flavor_get(context, str(flavor_id))
        except exception.FlavorNotFound:
            raise exception.Invalid(reason='Unable to locate requested flavor.')
        if new['disabled']:
            raise exception.Invalid(reason='Unable to locate requested flavor.')
        if new['flavorid'] == current['flavorid']:
            raise exception.Invalid(reason='When resizing, instances must change flavor!')
        if not self._core.is_volume_backed(context, instance):
            if new['root_gb'] == 0 and current['root_gb'] != 0:
                raise exception.Invalid(reason='Server disk was unable to be resized because: '
                                               'Resize to zero disk flavor is not allowed.')
            if new['root_gb'] < current['root_gb']:
                # Upstream's libvirt driver refuses this on the host; here the
                # answer comes before anything changes.
                raise exception.Invalid(reason='Resize error: Unable to resize disk down.')
        # The new flavor must agree with the server's image (NUMA, CPU topology...),
        # as at boot.
        image = sysmeta.sysmeta_to_image(instance['system_metadata'] or {})
        api_boot_image.check_flavor(new, image['properties'])
        extra = None
        if disk_config is not None:
            extra = {'system_metadata': dict(instance['system_metadata'] or {}, **{
                personality.DISK_CONFIG_KEY: personality.disk_config(disk_config, image)})}
        self._check_resize_quota(context, instance, current, new)
        return self._start_migration(context, instance, current, new, extra)

    def _check_resize_quota(self, context, instance, current, new):
        deltas = {k: max(0, new[f] - current[f])
                  for k, f in (('cores', 'vcpus'), ('ram', 'memory_mb'))}
        deltas = {k: v for k, v in deltas.items() if v}
        if not deltas:
            return
        try:
            self._quota.check_deltas(context, deltas, instance['project_id'],
                                     instance['user_id'])
        except exception.OverQuota as exc:
            overs, quotas, usages = (exc.kwargs[k] for k in ('overs', 'quotas', 'usages'))
            raise exception.TooManyInstances(
                overs=', '.join(overs), req=', '.join(str(deltas[r]) for r in overs),
                used=', '.join(str(usages[r]) for r in overs),
                allowed=', '.join(str(quotas[r]) for r in overs))

    def _start_migration(self, context, instance, current, new, extra_values=None,
                         cold=False, host=None):
        """Record the migration, claim the task, then hand it on.

        A resize stays on the server's host when ``allow_resize_to_same_host``
        (the compute host claims the new flavor); a cold migration, or a
        resize without that option, goes to the conductor, which picks and
        claims another host.
        """
        in_place = not cold and self._conf.allow_resize_to_same_host
        if not in_place:
            self._check_move_rpc()
        migration = self._db.migration_create({
            'instance_uuid': instance['uuid'], 'status': 'pre-migrating',
            'migration_type': 'migration' if cold else 'resize',
            'source_compute': instance['host'], 'source_node': instance['node'],
            'dest_compute': instance['host'] if in_place else None,
            'dest_node': instance['node'] if in_place else None,
            'old_instance_type_id': current.get('id'), 'new_instance_type_id': new.get('id'),
            'old_flavor': flavor_snapshot(current), 'new_flavor': flavor_snapshot(new),
            'user_id': context.user_id, 'project_id': context.project_id})
        # Refused or not sent, the migration record ends in error.
        with self._core.action(
                context, instance, 'migrate' if cold else 'resize', extra_values=extra_values,
                undo=[lambda: self._db.migration_update(migration['id'], {'status': 'error'})],
                service='nova-compute' if in_place else 'nova-conductor') as inst:
            if in_place:
                self._compute_rpcapi.prep_resize(context, inst, inst.host, migration['id'])
            else:
                self._conductor_api.migrate_server(context, inst, migration['id'],
                                                   move_spec(self._db, instance, host))
        return migration

    def _check_move_rpc(self):
        """409 before anything is written when an [upgrade_levels] pin forbids the move."""
        for client, topic, needed in ((self._conductor_api.client, 'conductor', '1.4'),
                                      (self._compute_rpcapi.client, 'compute', '1.3')):
            if not client.can_send_version(needed):
                exc = exception.RPCVersionPinned(
                    what='Moving a server to another host', topic=topic, needed=needed,
                    pin=client.version_cap)
                exc.code = 409
                raise exc

    def migrate(self, context, instance, host=None):
        """Cold migrate to another host, picked by the conductor (or ``host``, 2.56).

        Upstream never places it on the server's own host: with one compute
        host the answer is still 202, and the migration fails as upstream's
        scheduler fails it (migration 'error', a fault, the server unchanged).
        """
        api_core.check_locked(context, instance)
        api_core.check_state(instance, api_core.SPECS['migrate'])
        if host is not None:
            if self._db.compute_node_get(host) is None:
                raise exception.Invalid(reason='Compute host %s could not be found.' % host)
            if host == instance['host']:
                raise exception.Invalid(reason='The target host can\'t be the same one.')
        flavor = instance['flavor']
        return self._start_migration(context, instance, flavor, flavor, cold=True, host=host)

    def confirm_resize(self, context, instance):
        api_core.check_locked(context, instance)
        api_core.check_state(instance, api_core.SPECS['confirmResize'])
        migration = self._db.migration_get_by_instance_and_status(instance['uuid'],
                                                                  ('finished',))
        if migration is None:
            raise exception.Invalid(reason='Instance has not been resized.')
        self._db.migration_update(migration['id'], {'status': 'confirming'},
                                  expected_status=('finished',))
        action_id = self._db.action_start(context, instance['uuid'], 'confirmResize')
        # Not sent, the resize stays there to confirm.
        claim = api_handoff.Claim(instance['uuid'], 'confirmResize', action_id=action_id,
                                  undo=[self._migration_back(migration, 'confirming')])
        with self._core.handoff.sending(context, claim):
            # The source host lets go of what it kept (itself, for a resize in place).
            self._compute_rpcapi.confirm_resize(
                context, instance_obj.Instance.from_db(instance), migration['source_compute'],
                migration['id'])

    def revert_resize(self, context, instance):
        api_core.check_locked(context, instance)
        api_core.check_state(instance, api_core.SPECS['revertResize'])
        migration = self._db.migration_get_by_instance_and_status(instance['uuid'],
                                                                  ('finished',))
        if migration is None:
            raise exception.Invalid(reason='Instance has not been resized.')
        self._db.migration_update(migration['id'], {'status': 'reverting'},
                                  expected_status=('finished',))
        with self._core.action(context, instance, 'revertResize',
                               undo=[self._migration_back(migration, 'reverting')]) as inst:
            self._compute_rpcapi.revert_resize(context, inst, inst.host, migration['id'])

    def _migration_back(self, migration, status):
        """Undo of a finished migration's move to ``status``: finished again."""
        return lambda: self._db.migration_update(migration['id'], {'status': 'finished'},
                                                 expected_status=(status,))

    # -- os-migrations -------------------------------------------------------
    def migration_list(self, context, filters=None, limit=None, marker=None):
        return self._db.migration_list(filters, limit=limit, marker=marker)
