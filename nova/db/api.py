"""Database access: plain-dict rows in, plain-dict rows out, one query per call."""

import datetime
import json
import threading

import sqlalchemy as sa
from oslo_db.sqlalchemy import engines
from oslo_db.sqlalchemy import utils as db_utils
from oslo_utils import timeutils, uuidutils

from nova import exception
from nova.db import (
    aggregates,
    claims,
    console_tokens,
    flavor_access,
    host_scope,
    keypairs,
    migration,
    migrations_db,
    models,
    sqlite_engine,
)
from nova.db import instance_actions as actions_db
from nova.db import quotas as quota_db
from nova.db import server_groups as server_groups_db
from nova.db import usage as usage_db
from nova.version import SERVICE_VERSION

_JSON_COLUMNS = {
    'instances': {'metadata': '{}', 'system_metadata': '{}', 'flavor': 'null',
                  'tags': '[]', 'image_props_override': 'null', 'network_info': '[]'},
    'flavors': {'extra_specs': '{}'},
    'compute_nodes': {'capabilities': 'null'},
}
_T = {t.name: t for t in models.BASE.metadata.sorted_tables}
INSTANCES = _T['instances']
FLAVORS = _T['flavors']
BDMS = _T['block_device_mapping']
SERVICES = _T['services']
NODES = _T['compute_nodes']
FAULTS = _T['instance_faults']
ACTIONS = _T['instance_actions']
EVENTS = _T['instance_actions_events']


def _now():
    return timeutils.utcnow().replace(microsecond=0)


def _decode(table, row):
    return _decode_values(table, dict(row._mapping))


def _decode_values(table, values):
    for col, default in _JSON_COLUMNS.get(table.name, {}).items():
        raw = values.get(col)
        values[col] = json.loads(raw if raw is not None else default)
    return values


def _encode(table, values):
    out = dict(values)
    for col in _JSON_COLUMNS.get(table.name, {}):
        if col in out and not isinstance(out[col], str | type(None)):
            out[col] = json.dumps(out[col])
        elif col in out and out[col] is None and col in ('metadata', 'system_metadata', 'tags'):
            out[col] = _JSON_COLUMNS[table.name][col]
    return out


# The [database] options that the engine honours, besides connection,
# max_retries and retry_interval; nova.conf.database lists only these.
ENGINE_OPTIONS = ('sqlite_synchronous', 'mysql_sql_mode', 'mysql_wsrep_sync_wait',
                  'connection_recycle_time', 'max_pool_size', 'max_overflow',
                  'pool_timeout', 'connection_debug', 'connection_trace',
                  'connection_parameters')


def engine_options_from_conf(conf):
    """oslo.db create_engine arguments from the [database] options."""
    return {name: getattr(conf.database, name) for name in ENGINE_OPTIONS}


class Database(keypairs.KeyPairsMixin, flavor_access.FlavorAccessMixin,
               aggregates.AggregatesMixin, quota_db.QuotaDBMixin,
               server_groups_db.ServerGroupsDBMixin, usage_db.UsageDBMixin,
               claims.ClaimsMixin, console_tokens.ConsoleTokensMixin,
               migrations_db.MigrationsDBMixin, actions_db.InstanceActionsMixin,
               host_scope.HostScopeMixin):
    """A handle on one database; every method is a single short transaction."""

    def __init__(self, connection_url, max_retries=10, retry_interval=10, **engine_options):
        self.url = connection_url
        # thread_checkin (a sleep(0) on every connection check-in) exists for
        # eventlet; with OS threads it only hands the GIL away mid-request.
        self.engine = engines.create_engine(connection_url, max_retries=max_retries,
                                            retry_interval=retry_interval,
                                            thread_checkin=False,
                                            _engine_target=sqlite_engine.pooled_engine,
                                            **engine_options)
        if self.engine.dialect.name == 'sqlite':
            sqlite_engine.replace_oslo_begin(self.engine)
        self.writer = self.engine.execution_options(nova_write=True)
        self._lock = threading.Lock()

    @classmethod
    def from_conf(cls, conf):
        # [database] max_retries / retry_interval bound how long a service waits
        # for an unreachable database at start before it says so and exits.
        return cls(conf.database.connection, max_retries=conf.database.max_retries,
                   retry_interval=conf.database.retry_interval,
                   **engine_options_from_conf(conf))

    def sync(self):
        migration.db_sync(self.engine)

    def sync_in_child(self):
        """Migrate in a short-lived child process when needed, so that a
        long-running service never loads alembic (about 12 MB it would keep)."""
        if not migration.at_heads(self.engine):
            migration.db_sync_in_child(self.url)
            if not migration.at_heads(self.engine):
                raise RuntimeError('database migration failed: the schema is not at the '
                                   'newest revision (%s) after it' % ', '.join(
                                       sorted(migration.script_heads())))

    def dispose(self):
        self.engine.dispose()

    # -- generic helpers -------------------------------------------------
    def _insert(self, conn, table, values):
        values = _encode(table, values)
        if 'created_at' in table.c and not values.get('created_at'):
            values['created_at'] = _now()
        result = conn.execute(table.insert().values(**values))
        return result.inserted_primary_key[0]

    def _one(self, conn, table, *where):
        row = conn.execute(sa.select(table).where(*where)).first()
        return _decode(table, row) if row is not None else None

    # -- flavors -----------------------------------------------------------
    def flavor_create(self, values):
        with self.writer.begin() as conn:
            for key in ('flavorid', 'name'):
                if conn.execute(sa.select(FLAVORS.c.id).where(
                        FLAVORS.c[key] == values[key])).first():
                    raise exception.FlavorExists(key=key, value=values[key])
            fid = self._insert(conn, FLAVORS, values)
            return self._one(conn, FLAVORS, FLAVORS.c.id == fid)

    def flavor_get(self, flavorid):
        with self.engine.connect() as conn:
            flavor = self._one(conn, FLAVORS, FLAVORS.c.flavorid == str(flavorid))
        if flavor is None:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        return flavor

    def flavor_get_all(self, is_public=True, min_ram=None, min_disk=None,
                       sort_key='flavorid', sort_dir='asc', limit=None, marker=None,
                       project_id=None):
        """Flavors; with ``project_id`` the private ones that project may use count too."""
        query = sa.select(FLAVORS).where(FLAVORS.c.disabled == sa.false())
        if is_public is not None:
            clause = FLAVORS.c.is_public == bool(is_public)
            if project_id is not None and is_public:
                access = flavor_access.FLAVOR_PROJECTS
                clause = sa.or_(clause, FLAVORS.c.id.in_(sa.select(access.c.flavor_id).where(
                    access.c.project_id == project_id)))
            query = query.where(clause)
        if min_ram is not None:
            query = query.where(FLAVORS.c.memory_mb >= min_ram)
        if min_disk is not None:
            query = query.where(FLAVORS.c.root_gb >= min_disk)
        with self.engine.connect() as conn:
            mrow = None
            if marker is not None:
                mrow = conn.execute(sa.select(FLAVORS).where(
                    FLAVORS.c.flavorid == marker)).first()
                if mrow is None:
                    raise exception.Invalid(reason='marker [%s] not found' % marker)
            # Keyset pagination that copes with NULL sort values (description).
            query = db_utils.paginate_query(query, models.Flavor, limit, [sort_key, 'id'],
                                            marker=mrow, sort_dirs=[sort_dir, 'asc'])
            return [_decode(FLAVORS, r) for r in conn.execute(query)]

    def flavor_destroy(self, flavorid):
        with self.writer.begin() as conn:
            # Its access list goes with it (SQLite does not enforce the cascade).
            conn.execute(flavor_access.FLAVOR_PROJECTS.delete().where(
                flavor_access.FLAVOR_PROJECTS.c.flavor_id.in_(sa.select(FLAVORS.c.id).where(
                    FLAVORS.c.flavorid == str(flavorid)))))
            if not conn.execute(FLAVORS.delete().where(
                    FLAVORS.c.flavorid == str(flavorid))).rowcount:
                raise exception.FlavorNotFound(flavor_id=flavorid)

    # -- instances ---------------------------------------------------------
    def instance_create(self, values, bdms=(), name_template='instance-%08x'):
        """Create an instance and its block device mappings in one transaction.

        The hypervisor-side name comes from ``name_template`` and the new
        row's id (or its uuid, for a '%(uuid)s' template).
        """
        with self.writer.begin() as conn:
            return self._instance_insert(conn, values, bdms, name_template)

    def instances_create(self, conn, values_list, bdms=(), name_template='instance-%08x',
                         context=None, action=None):
        """Insert the instances of one request (and their ``action`` records) in ``conn``.

        The caller owns the transaction, so a quota check made in it and the
        rows it allowed commit together or not at all.
        """
        rows = []
        for values in values_list:
            row = self._instance_insert(conn, values, bdms, name_template)
            if action:
                self._insert(conn, ACTIONS, self._action_values(context, row['uuid'], action))
            rows.append(row)
        return rows

    def _instance_insert(self, conn, values, bdms, name_template):
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        row_id = self._insert(conn, INSTANCES, values)
        if not values.get('name'):
            name = (name_template % {'uuid': values['uuid'], 'id': row_id}
                    if '%(' in name_template else name_template % row_id)
            conn.execute(INSTANCES.update().where(INSTANCES.c.id == row_id)
                         .values(name=name))
        for bdm in bdms:
            bdm = dict(bdm, instance_uuid=values['uuid'])
            bdm.setdefault('uuid', uuidutils.generate_uuid())
            self._insert(conn, BDMS, bdm)
        return self._one(conn, INSTANCES, INSTANCES.c.uuid == values['uuid'])

    def instance_get(self, uuid, project_id=None, read_deleted=False):
        where = [INSTANCES.c.uuid == uuid]
        if project_id is not None:
            where.append(INSTANCES.c.project_id == project_id)
        if not read_deleted:
            where.append(INSTANCES.c.deleted == 0)
        with self.engine.connect() as conn:
            inst = self._one(conn, INSTANCES, *where)
        if inst is None:
            raise exception.InstanceNotFound(instance_id=uuid)
        return inst

    def instance_get_for_view(self, uuid, project_id=None, with_groups=False):
        """(instance, its volume mappings, its server group uuids) in one query.

        What one server's view needs (``GET /servers/{id}``, the call a client
        polls): the instance row joined (LEFT OUTER, on indexed columns) with
        its volume mappings and, ``with_groups``, its group memberships: one
        row per mapping and group, the instance's columns repeated.
        """
        bdm_cols = [col.label('bdm_' + col.name) for col in BDMS.c]
        cols = list(INSTANCES.c) + bdm_cols
        joined = INSTANCES.outerjoin(BDMS, sa.and_(BDMS.c.instance_uuid == INSTANCES.c.uuid,
                                                   BDMS.c.destination_type == 'volume'))
        order = [BDMS.c.id]
        if with_groups:
            members, groups = server_groups_db.MEMBERS, server_groups_db.GROUPS
            cols.append(groups.c.uuid.label('group_uuid'))
            joined = joined.outerjoin(members, members.c.instance_uuid == INSTANCES.c.uuid) \
                .outerjoin(groups, groups.c.id == members.c.group_id)
            order.append(members.c.id)
        where = [INSTANCES.c.uuid == uuid, INSTANCES.c.deleted == 0]
        if project_id is not None:
            where.append(INSTANCES.c.project_id == project_id)
        query = sa.select(*cols).select_from(joined).where(*where).order_by(*order)
        with self.engine.connect() as conn:
            rows = [row._mapping for row in conn.execute(query)]
        if not rows:
            raise exception.InstanceNotFound(instance_id=uuid)
        inst = _decode_values(INSTANCES, {col.name: rows[0][col] for col in INSTANCES.c})
        volumes, seen, group_uuids = [], set(), []
        for row in rows:
            if row['bdm_id'] is not None and row['bdm_id'] not in seen:
                seen.add(row['bdm_id'])
                volumes.append({col.name: row['bdm_' + col.name] for col in BDMS.c})
            group = row['group_uuid'] if with_groups else None
            if group is not None and group not in group_uuids:
                group_uuids.append(group)
        return inst, volumes, group_uuids

    def instance_get_all(self, filters=None, limit=None, marker=None,
                         sort_keys=('created_at', 'id'), sort_dirs=('desc', 'desc')):
        """List instances with equality/LIKE filters and marker pagination."""
        filters = dict(filters or {})
        query = sa.select(INSTANCES)
        if not filters.pop('deleted', False):
            query = query.where(INSTANCES.c.deleted == 0)
        if filters.pop('hide_soft_deleted', False):
            # Lists leave SOFT_DELETED servers out unless asked for, as upstream.
            query = query.where(sa.or_(INSTANCES.c.vm_state != 'soft-delete',
                                       INSTANCES.c.vm_state.is_(None)))
        # String filters upstream matches as regular expressions (search, not
        # whole-string): {'column': pattern} under 'regex'.
        for column, pattern in (filters.pop('regex', None) or {}).items():
            query = query.where(self._regexp(INSTANCES.c[column], pattern))
        changes_since = filters.pop('changes-since', None)
        if changes_since is not None:
            query = query.where(INSTANCES.c.updated_at >= changes_since)
        flavorid = filters.pop('instance_type_flavorid', None)
        if flavorid is not None:
            # In SQL, before LIMIT: filtering a page afterwards empties pages.
            query = query.where(self._flavorid_column() == str(flavorid))
        for key, value in filters.items():
            column = INSTANCES.c[key]
            if isinstance(value, (list, tuple, set)):
                query = query.where(column.in_(list(value)))
            else:
                query = query.where(column == value)
        with self.engine.connect() as conn:
            mrow = None
            if marker is not None:
                mrow = conn.execute(sa.select(INSTANCES).where(
                    INSTANCES.c.uuid == marker)).first()
                if mrow is None:
                    raise exception.Invalid(reason='marker [%s] not found' % marker)
            # oslo.db's keyset pagination copes with NULLs in the marker row.
            query = db_utils.paginate_query(query, models.Instance, limit, list(sort_keys),
                                            marker=mrow, sort_dirs=list(sort_dirs))
            return [_decode(INSTANCES, r) for r in conn.execute(query)]

    def _regexp(self, column, pattern):
        # SQLite gets REGEXP from oslo.db (Python re.search); PostgreSQL's ~ and
        # MariaDB's REGEXP search too.
        op = '~' if self.engine.dialect.name == 'postgresql' else 'REGEXP'
        return sa.and_(column.is_not(None), column.op(op)(pattern))

    def _flavorid_column(self):
        """The flavorid inside the instance's flavor JSON, per database dialect."""
        dialect = self.engine.dialect.name
        if dialect == 'postgresql':
            # Here, not at import: a SQLite or MySQL service never loads it (2 MB).
            from sqlalchemy.dialects import postgresql
            return sa.func.json_extract_path_text(
                sa.cast(INSTANCES.c.flavor, postgresql.JSON), 'flavorid')
        if dialect == 'mysql':
            return sa.func.json_unquote(sa.func.json_extract(INSTANCES.c.flavor, '$.flavorid'))
        return sa.func.json_extract(INSTANCES.c.flavor, '$.flavorid')

    def instance_update(self, uuid, values, expected_task_state=(),
                        expected_vm_state=(), expected_host=()):
        """Compare-and-swap update: only applies while the states still match.

        ``expected_task_state`` / ``expected_vm_state`` / ``expected_host`` are
        iterables of allowed current values (None allowed); empty means no check.
        """
        values = _encode(INSTANCES, values)
        values.setdefault('updated_at', _now())
        where = [INSTANCES.c.uuid == uuid, INSTANCES.c.deleted == 0]
        for column, expected in ((INSTANCES.c.task_state, expected_task_state),
                                 (INSTANCES.c.vm_state, expected_vm_state),
                                 (INSTANCES.c.host, expected_host)):
            if expected is None:
                expected = (None,)
            elif isinstance(expected, str):
                expected = (expected,)
            expected = list(expected)
            if expected:
                clauses = [column.in_([e for e in expected if e is not None])]
                if None in expected:
                    clauses.append(column.is_(None))
                where.append(sa.or_(*clauses))
        with self.writer.begin() as conn:
            count = conn.execute(INSTANCES.update().where(*where).values(**values)).rowcount
            current = self._one(conn, INSTANCES, INSTANCES.c.uuid == uuid)
        if current is None or current['deleted']:
            raise exception.InstanceNotFound(instance_id=uuid)
        if not count:
            raise exception.UnexpectedTaskStateError(
                instance_uuid=uuid, expected={'task_state': expected_task_state,
                                              'vm_state': expected_vm_state},
                actual={'task_state': current['task_state'],
                        'vm_state': current['vm_state']})
        return current

    def instance_destroy(self, uuid):
        """Soft-delete the instance and drop its block device mappings."""
        now = _now()
        with self.writer.begin() as conn:
            row = conn.execute(sa.select(INSTANCES.c.id).where(
                INSTANCES.c.uuid == uuid, INSTANCES.c.deleted == 0)).first()
            if row is None:
                raise exception.InstanceNotFound(instance_id=uuid)
            conn.execute(INSTANCES.update().where(INSTANCES.c.uuid == uuid).values(
                deleted=row.id, deleted_at=now, updated_at=now, terminated_at=now,
                vm_state='deleted', task_state=None))
            conn.execute(BDMS.delete().where(BDMS.c.instance_uuid == uuid))
            # A deleted server leaves its server groups, as upstream.
            conn.execute(server_groups_db.MEMBERS.delete().where(
                server_groups_db.MEMBERS.c.instance_uuid == uuid))

    def instance_hard_delete(self, uuid):
        """Remove every trace of an instance (used when a create is rolled back)."""
        with self.writer.begin() as conn:
            action_ids = sa.select(ACTIONS.c.id).where(ACTIONS.c.instance_uuid == uuid)
            conn.execute(EVENTS.delete().where(EVENTS.c.action_id.in_(action_ids)))
            for table in (ACTIONS, FAULTS, BDMS, server_groups_db.MEMBERS):
                conn.execute(table.delete().where(table.c.instance_uuid == uuid))
            conn.execute(INSTANCES.delete().where(INSTANCES.c.uuid == uuid))

    def instance_count(self, **filters):
        query = sa.select(sa.func.count()).select_from(INSTANCES).where(INSTANCES.c.deleted == 0)
        for key, value in filters.items():
            query = query.where(INSTANCES.c[key] == value)
        with self.engine.connect() as conn:
            return conn.execute(query).scalar()

    # -- block device mappings ----------------------------------------------
    def bdm_get_by_instance(self, instance_uuid):
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(BDMS).where(
                BDMS.c.instance_uuid == instance_uuid).order_by(BDMS.c.id))
            return [dict(r._mapping) for r in rows]

    def volume_bdms_by_instance(self, instance_uuids):
        """Volume mappings of a page of instances, one query, keyed by instance."""
        if not instance_uuids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(BDMS).where(
                BDMS.c.instance_uuid.in_(list(instance_uuids)),
                BDMS.c.destination_type == 'volume').order_by(BDMS.c.id))
            result = {}
            for row in rows:
                result.setdefault(row.instance_uuid, []).append(dict(row._mapping))
            return result

    def bdm_get_by_volume(self, volume_id):
        """The mappings of ``volume_id`` on instances not deleted (several when multi-attached)."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(BDMS).select_from(BDMS.join(
                INSTANCES, INSTANCES.c.uuid == BDMS.c.instance_uuid)).where(
                BDMS.c.volume_id == volume_id, INSTANCES.c.deleted == 0).order_by(BDMS.c.id))
            return [dict(r._mapping) for r in rows]

    def bdm_create(self, values):
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        with self.writer.begin() as conn:
            self._insert(conn, BDMS, values)
            return self._one(conn, BDMS, BDMS.c.uuid == values['uuid'])

    def bdm_update(self, bdm_uuid, values):
        values = dict(values, updated_at=_now())
        with self.writer.begin() as conn:
            conn.execute(BDMS.update().where(BDMS.c.uuid == bdm_uuid).values(**values))
            return self._one(conn, BDMS, BDMS.c.uuid == bdm_uuid)

    def bdm_destroy(self, bdm_uuid):
        with self.writer.begin() as conn:
            conn.execute(BDMS.delete().where(BDMS.c.uuid == bdm_uuid))

    # -- services and compute nodes -------------------------------------------
    def service_heartbeat(self, host, binary, topic=None, version=None):
        """``version``: the reporting service's code (nova-compute's, via the conductor)."""
        now = _now()
        version = SERVICE_VERSION if version is None else version
        with self.writer.begin() as conn:
            count = conn.execute(SERVICES.update().where(
                SERVICES.c.host == host, SERVICES.c.binary == binary).values(
                last_seen_up=now, updated_at=now, version=version)).rowcount
            if not count:
                self._insert(conn, SERVICES, dict(host=host, binary=binary, topic=topic,
                                                  last_seen_up=now, version=version,
                                                  uuid=uuidutils.generate_uuid()))
            return self._one(conn, SERVICES, SERVICES.c.host == host,
                             SERVICES.c.binary == binary)

    def service_get_all(self, binary=None):
        query = sa.select(SERVICES).order_by(SERVICES.c.id)
        if binary:
            query = query.where(SERVICES.c.binary == binary)
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(query)]

    def service_update(self, host, binary, values):
        with self.writer.begin() as conn:
            conn.execute(SERVICES.update().where(SERVICES.c.host == host,
                                                 SERVICES.c.binary == binary).values(**values))

    def compute_node_update(self, host, resources):
        """Record a host's capacity; usage columns belong to the claims below."""
        capacity = {k: resources[k] for k in (
            'hypervisor_hostname', 'hypervisor_type', 'hypervisor_version', 'vcpus',
            'memory_mb', 'local_gb', 'cpu_allocation_ratio', 'ram_allocation_ratio',
            'disk_allocation_ratio', 'reserved_memory_mb', 'reserved_disk_mb',
            'capabilities') if k in resources}
        capacity = _encode(NODES, capacity)
        capacity['updated_at'] = _now()
        with self.writer.begin() as conn:
            count = conn.execute(NODES.update().where(NODES.c.host == host)
                                 .values(**capacity)).rowcount
            if not count:
                self._insert(conn, NODES, dict(capacity, host=host,
                                               uuid=uuidutils.generate_uuid()))
            return self._one(conn, NODES, NODES.c.host == host)

    def compute_nodes_with_room(self, vcpus, memory_mb, disk_gb, up_since):
        """Enabled, live hosts whose free capacity covers the request."""
        query = sa.select(NODES).join(SERVICES, sa.and_(
            SERVICES.c.host == NODES.c.host, SERVICES.c.binary == 'nova-compute')).where(
            SERVICES.c.disabled == sa.false(), SERVICES.c.forced_down == sa.false(),
            SERVICES.c.last_seen_up >= up_since, *_room_clauses(vcpus, memory_mb, disk_gb))
        with self.engine.connect() as conn:
            return [_decode(NODES, r) for r in conn.execute(query)]

    def compute_node_claim(self, host, vcpus, memory_mb, disk_gb):
        """Atomically add usage if it still fits; False when another claim won."""
        with self.writer.begin() as conn:
            return bool(conn.execute(NODES.update().where(
                NODES.c.host == host, *_room_clauses(vcpus, memory_mb, disk_gb)).values(
                vcpus_used=NODES.c.vcpus_used + vcpus,
                memory_mb_used=NODES.c.memory_mb_used + memory_mb,
                local_gb_used=NODES.c.local_gb_used + disk_gb)).rowcount)

    def compute_node_release(self, host, vcpus, memory_mb, disk_gb):
        with self.writer.begin() as conn:
            conn.execute(NODES.update().where(NODES.c.host == host).values(
                vcpus_used=_floor0(self, NODES.c.vcpus_used - vcpus),
                memory_mb_used=_floor0(self, NODES.c.memory_mb_used - memory_mb),
                local_gb_used=_floor0(self, NODES.c.local_gb_used - disk_gb)))

    def _decode_node(self, row):
        return _decode(NODES, row)

    def compute_node_get(self, host):
        with self.engine.connect() as conn:
            return self._one(conn, NODES, NODES.c.host == host)


def _floor0(db, expr):
    fn = sa.func.max if db.engine.dialect.name == 'sqlite' else sa.func.greatest
    return fn(expr, 0)


def _room_clauses(vcpus, memory_mb, disk_gb):
    return (
        NODES.c.vcpus_used + vcpus <= NODES.c.vcpus * NODES.c.cpu_allocation_ratio,
        NODES.c.memory_mb_used + memory_mb
        <= (NODES.c.memory_mb - NODES.c.reserved_memory_mb) * NODES.c.ram_allocation_ratio,
        NODES.c.local_gb_used + disk_gb
        <= (NODES.c.local_gb - NODES.c.reserved_disk_mb / 1024) * NODES.c.disk_allocation_ratio,
    )


def utcnow_minus(seconds):
    return _now() - datetime.timedelta(seconds=seconds)
