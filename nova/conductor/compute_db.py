"""The conductor's side of the compute hosts' database access: each call confined to its host."""

import logging

import oslo_messaging as messaging

from nova import exception
from nova.compute import conductor_db
from nova.conductor import rpc_target, wire

LOG = logging.getLogger(__name__)

# Instance columns no compute host may set: identity and ownership.
_FROZEN_COLUMNS = frozenset({'id', 'uuid', 'project_id', 'user_id', 'created_at', 'deleted',
                             'deleted_at', 'availability_zone'})
# What a host may read of an instance that is not its own.
_FOREIGN_VIEW = ('uuid', 'host', 'deleted', 'deleted_at', 'vm_state', 'task_state')


class HostScopedDB:
    """The operations of ``conductor_db.OPERATIONS``, each refused unless the row is the caller's.

    A row is a host's when its instance runs there (``instance.host``), when
    a migration of it still in progress starts or ends there, or when the
    instance was shelved from there and is not yet placed anywhere else. A
    build scheduled to the host is covered by the first rule: the conductor
    sets ``instance.host`` before it casts the build.
    """

    def __init__(self, db, default_zone='nova'):
        self.db = db
        self.default_zone = default_zone

    def dispatch(self, context, caller, method, args, kwargs):
        if method == 'ping':
            return True
        if method not in conductor_db.OPERATIONS:
            self._refuse(caller, 'call', method)
        return getattr(self, method)(context, caller, *args, **kwargs)

    # -- the checks -----------------------------------------------------------
    @staticmethod
    def _refuse(caller, operation, target):
        LOG.warning('Refused: host %s asked to %s %s, which is not its own',
                    caller, operation, target)
        raise exception.HostNotAuthorized(host=caller, operation=operation, target=target)

    def _owner_host(self, caller, instance_uuid, operation, owner=None):
        """The instance's current host (for an atomic update) if ``caller`` may touch it."""
        owner = owner or self.db.instance_owner(instance_uuid)
        if owner is None:
            raise exception.InstanceNotFound(instance_id=instance_uuid)
        if owner['host'] == caller:
            return caller
        if owner['host'] is None and owner['shelved_host'] == caller:
            return None
        if caller in self.db.migration_hosts(instance_uuid):
            return owner['host']
        self._refuse(caller, operation, 'instance %s' % instance_uuid)

    def _own_host(self, caller, named, operation):
        if named != caller:
            self._refuse(caller, operation, 'the records of host %s' % named)

    def _migration(self, caller, migration_id, operation):
        migration = self.db.migration_get(migration_id)
        if caller not in (migration['source_compute'], migration['dest_compute']):
            self._refuse(caller, operation, 'migration %s' % migration_id)
        return migration

    # -- instances ------------------------------------------------------------
    def instance_get(self, context, caller, uuid, read_deleted=False):
        row = self.db.instance_get(uuid, read_deleted=read_deleted)
        if row['host'] == caller:
            return row   # the common case: no second query
        try:
            self._owner_host(caller, uuid, 'read', owner=_owner_of(row))
        except exception.HostNotAuthorized:
            # Enough to tell a domain of another host's instance from an
            # orphan (lifecycle events, running-deleted cleanup); nothing of
            # its project, name, flavor or metadata.
            return {key: row[key] for key in _FOREIGN_VIEW}
        return row

    def instance_get_all(self, context, caller, filters=None):
        filters = dict(filters or {})
        self._own_host(caller, filters.setdefault('host', caller), 'list the instances of')
        return self.db.instance_get_all(filters)

    def instance_update(self, context, caller, uuid, values, expected_task_state=(),
                        expected_vm_state=()):
        frozen = sorted(_FROZEN_COLUMNS.intersection(values))
        if frozen:
            self._refuse(caller, 'set %s of' % ', '.join(frozen), 'instance %s' % uuid)
        # A host may let an instance go (shelve offload) or take it (the end of
        # a migration to it: _owner_host checks that), never hand it to another.
        if values.get('host') not in (None, caller) or (
                values.get('node') is not None and values.get('host') != caller):
            self._refuse(caller, 'move to another host', 'instance %s' % uuid)
        # One statement: the states and the host are checked where they change.
        # Tried first as the instance's host (the common case, no extra query);
        # only a miss looks at why.
        try:
            return self.db.instance_update(
                uuid, values, expected_task_state=expected_task_state,
                expected_vm_state=expected_vm_state, expected_host=[caller])
        except exception.UnexpectedTaskStateError:
            current = self._owner_host(caller, uuid, 'update')
            if current == caller:
                raise   # its own instance: the states did not match
        if values.get('host') == caller:
            # The instance arrives here (a move ends or is reverted): it is now
            # in this host's availability zone, as upstream's conductor records.
            zone = self.db.host_zones().get(caller, self.default_zone)
            values = dict(values, availability_zone=zone)
        return self.db.instance_update(uuid, values, expected_task_state=expected_task_state,
                                       expected_vm_state=expected_vm_state,
                                       expected_host=[current])

    def instance_destroy(self, context, caller, uuid):
        self._owner_host(caller, uuid, 'delete')
        return self.db.instance_destroy(uuid)

    # -- migrations -----------------------------------------------------------
    def migration_get(self, context, caller, migration_id):
        return self._migration(caller, migration_id, 'read')

    def migration_update(self, context, caller, migration_id, values, expected_status=None):
        self._migration(caller, migration_id, 'update')
        if {'source_compute', 'dest_compute', 'instance_uuid'}.intersection(values):
            self._refuse(caller, 're-address', 'migration %s' % migration_id)
        return self.db.migration_update(migration_id, values, expected_status=expected_status)

    def migration_get_by_instance_and_status(self, context, caller, instance_uuid, statuses):
        self._owner_host(caller, instance_uuid, 'read the migrations of')
        return self.db.migration_get_by_instance_and_status(instance_uuid, statuses)

    def migrations_finished_before(self, context, caller, named_host, cutoff):
        self._own_host(caller, named_host, 'list the migrations of')
        return self.db.migrations_finished_before(caller, cutoff)

    def migrations_in_progress(self, context, caller, named_host):
        self._own_host(caller, named_host, 'list the migrations of')
        return self.db.migrations_in_progress(caller)

    def evacuations_from(self, context, caller, named_host):
        """The caller's evacuated servers to clean up: each migration with only what the
        clean-up needs of its instance (where it is now and its ports), nothing more."""
        self._own_host(caller, named_host, 'list the evacuations from')
        found = []
        for migration in self.db.evacuations_from(caller, ('done', 'failed')):
            try:
                row = self.db.instance_get(migration['instance_uuid'], read_deleted=True)
            except exception.InstanceNotFound:
                row = None
            if row is not None and row['host'] == caller:
                continue   # back here (it failed before it left): nothing to clean up
            found.append({'id': migration['id'], 'status': migration['status'],
                          'instance_uuid': migration['instance_uuid'],
                          'old_flavor': migration['old_flavor'],
                          'network_info': row['network_info'] if row else None})
        return found

    # -- block device mappings --------------------------------------------------
    def bdm_get_by_instance(self, context, caller, instance_uuid):
        self._owner_host(caller, instance_uuid, 'read the volumes of')
        return self.db.bdm_get_by_instance(instance_uuid)

    def bdm_create(self, context, caller, values):
        self._owner_host(caller, values.get('instance_uuid'), 'add a volume to')
        return self.db.bdm_create(values)

    def _bdm(self, caller, bdm_uuid, operation):
        owner = self.db.bdm_owner(bdm_uuid)
        if owner is None:
            raise exception.NotFound('Block device mapping %s could not be found.' % bdm_uuid)
        self._owner_host(caller, owner['uuid'], operation, owner=owner)

    def bdm_update(self, context, caller, bdm_uuid, values):
        self._bdm(caller, bdm_uuid, 'update the volumes of')
        if 'instance_uuid' in values:
            self._refuse(caller, 'move', 'block device mapping %s' % bdm_uuid)
        return self.db.bdm_update(bdm_uuid, values)

    def bdm_destroy(self, context, caller, bdm_uuid):
        owner = self.db.bdm_owner(bdm_uuid)
        if owner is None:
            return None  # already gone: deleting is idempotent, as in the database
        self._owner_host(caller, owner['uuid'], 'remove the volumes of', owner=owner)
        return self.db.bdm_destroy(bdm_uuid)

    # -- actions, events and faults -------------------------------------------------
    def action_start(self, context, caller, instance_uuid, action):
        self._owner_host(caller, instance_uuid, 'record an action on')
        return self.db.action_start(context, instance_uuid, action)

    def actions_get(self, context, caller, instance_uuid, limit=None):
        self._owner_host(caller, instance_uuid, 'read the actions of')
        return self.db.actions_get(instance_uuid, limit=limit)

    def event_start(self, context, caller, instance_uuid, request_id, event, host=None):
        # The event names the host that ran it: the caller, whatever it says.
        # Tried first as the instance's host, the check in the action's
        # look-up (the common case, no extra query); a miss looks at why.
        event_id = self.db.event_start(instance_uuid, request_id, event, host=caller,
                                       instance_host=caller)
        if event_id is not None:
            return event_id
        self._owner_host(caller, instance_uuid, 'record an event on')
        return self.db.event_start(instance_uuid, request_id, event, host=caller)

    def event_finish(self, context, caller, event_id, result, traceback=None, details=None):
        if event_id is None:
            return None
        # Tried first as the instance's host, the check in the update itself
        # (the common case, no extra query); a miss looks at why.
        if self.db.event_finish(event_id, result, traceback=traceback, details=details,
                                instance_host=caller):
            return None
        owner = self.db.event_owner(event_id)
        if owner is None:
            self._refuse(caller, 'finish', 'event %s' % event_id)
        self._owner_host(caller, owner['uuid'], 'finish an event of', owner=owner)
        self.db.event_finish(event_id, result, traceback=traceback, details=details)
        return None

    def events_get(self, context, caller, action_id):
        owner = self.db.action_owner(action_id)
        if owner is None:
            return []
        self._owner_host(caller, owner['uuid'], 'read the events of', owner=owner)
        return self.db.events_get(action_id)

    def fault_create(self, context, caller, instance_uuid, code, message, details=None,
                     host=None):
        # The fault names the host that saw it: the caller, whatever it says.
        self._owner_host(caller, instance_uuid, 'record a fault on')
        return self.db.fault_create(instance_uuid, code, message, details=details, host=caller)

    # -- the host's own records -----------------------------------------------------
    def compute_node_update(self, context, caller, named_host, resources):
        self._own_host(caller, named_host, 'report the resources of')
        return self.db.compute_node_update(caller, resources)

    def compute_node_claim(self, context, caller, named_host, vcpus, memory_mb, disk_gb):
        self._own_host(caller, named_host, 'claim resources on')
        return self.db.compute_node_claim(caller, vcpus, memory_mb, disk_gb)

    def compute_node_release(self, context, caller, named_host, vcpus, memory_mb, disk_gb):
        self._own_host(caller, named_host, 'release resources on')
        return self.db.compute_node_release(caller, vcpus, memory_mb, disk_gb)

    def compute_node_set_usage(self, context, caller, named_host, vcpus, memory_mb, disk_gb):
        self._own_host(caller, named_host, 'set the usage of')
        return self.db.compute_node_set_usage(caller, vcpus, memory_mb, disk_gb)

    def service_heartbeat(self, context, caller, named_host, binary, topic=None,
                          version=None):
        self._own_host(caller, named_host, 'report the liveness of')
        if binary != 'nova-compute':
            self._refuse(caller, 'report the liveness of', binary)
        if not isinstance(version, int) or isinstance(version, bool):
            version = None   # not given: the conductor's own
        return self.db.service_heartbeat(caller, binary, topic, version=version)


def _owner_of(row):
    return {'host': row['host'], 'project_id': row['project_id'],
            'shelved_host': (row['system_metadata'] or {}).get('shelved_host')}


class ComputeDBConductor:
    """The conductor's RPC endpoint for it (1.2; 1.3 signed): rows travel through ``wire``.

    With host keys configured (``host_verifier`` set) a call counts only when
    the key of the host it names signed it; the rules above then hold for
    the real caller, not for whichever host a message claims to be.
    """

    target = rpc_target.TARGET

    def __init__(self, host_scoped_db, host_verifier=None):
        self.host_scoped_db = host_scoped_db
        self.host_verifier = host_verifier

    # Lookups that miss and compare-and-swap losses are answers, not conductor errors.
    @messaging.expected_exceptions(exception.NovaException)
    def compute_db(self, context, host, operation, args, kwargs, signature=None):
        if self.host_verifier is not None:
            self.host_verifier.check(host, operation, args, kwargs, signature)
        result = self.host_scoped_db.dispatch(context, host, operation, wire.decode(args),
                                              wire.decode(kwargs))
        return wire.encode(result)
