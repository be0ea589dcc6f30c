"""Instance rows: create (with their mappings), read, list, compare-and-swap update, delete."""

import functools

import sqlalchemy as sa
from oslo_db.sqlalchemy import utils as db_utils
from oslo_utils import uuidutils

from nova import exception
from nova.db import instance_actions, models, statements, store

INSTANCES = models.InstanceRecord.__table__
BDMS = models.BlockDeviceMappingRecord.__table__
FAULTS = models.InstanceFaultRecord.__table__
ACTIONS = models.InstanceActionRecord.__table__
EVENTS = models.InstanceActionEventRecord.__table__
GROUPS = models.InstanceGroupRecord.__table__
MEMBERS = models.InstanceGroupMemberRecord.__table__
TOKENS = models.ConsoleAuthTokenRecord.__table__


class InstancesDB(store.DBStore):
    """The instances table, and the rows that live and die with an instance."""

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
                self._insert(conn, ACTIONS,
                             instance_actions.action_values(context, row['uuid'], action))
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
        return self._one_by(conn, INSTANCES, uuid=values['uuid'])

    def instance_get(self, uuid, project_id=None, read_deleted=False):
        where = {'uuid': uuid}
        if project_id is not None:
            where['project_id'] = project_id
        if not read_deleted:
            where['deleted'] = 0
        with self.engine.connect() as conn:
            inst = self._one_by(conn, INSTANCES, **where)
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
        query = _view_query(with_groups, project_id is not None)
        where = {'uuid': uuid} if project_id is None else {'uuid': uuid, 'project_id': project_id}
        with self.engine.connect() as conn:
            rows = [row._mapping for row in conn.execute(query, statements.params(where))]
        if not rows:
            raise exception.InstanceNotFound(instance_id=uuid)
        inst = store.decode_values(INSTANCES, {col.name: rows[0][col] for col in INSTANCES.c})
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
        changes_before = filters.pop('changes-before', None)
        if changes_before is not None:
            query = query.where(INSTANCES.c.updated_at <= changes_before)
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
                # The marker must be a server the caller may list: another
                # project's id answers as an absent one (upstream pages from it).
                where = [INSTANCES.c.uuid == marker]
                if isinstance(filters.get('project_id'), str):
                    where.append(INSTANCES.c.project_id == filters['project_id'])
                mrow = conn.execute(sa.select(INSTANCES).where(*where)).first()
                if mrow is None:
                    raise exception.Invalid(reason='marker [%s] not found' % marker)
            # oslo.db's keyset pagination copes with NULLs in the marker row.
            query = db_utils.paginate_query(query, models.InstanceRecord, limit,
                                            list(sort_keys), marker=mrow,
                                            sort_dirs=list(sort_dirs))
            return [store.decode_row(INSTANCES, r) for r in conn.execute(query)]

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
        return self._instance_cas(uuid, values, expected_task_state, expected_vm_state,
                                  expected_host)[0]

    def instance_claim(self, uuid, values, expected_task_state=(), expected_vm_state=(),
                       context=None, action=None, end_consoles=False):
        """instance_update() and, when it applies, in the same transaction, the
        row of the ``action`` it starts for ``context`` and (``end_consoles``)
        the removal of the instance's console tokens: (row, action id)."""
        def started(conn):
            action_id = self._insert(conn, ACTIONS,
                                     instance_actions.action_values(context, uuid, action))
            if end_consoles:
                conn.execute(statements.delete_by(TOKENS, ('instance_uuid',)),
                             statements.params({'instance_uuid': uuid}))
            return action_id
        return self._instance_cas(uuid, values, expected_task_state, expected_vm_state, (),
                                  started)

    def _instance_cas(self, uuid, values, expected_task_state, expected_vm_state,
                      expected_host, then=None):
        """(row, what ``then(conn)`` returned in the same transaction once the update applied)."""
        values = store.encode_values(INSTANCES, values)
        values.setdefault('updated_at', store.now())
        shape, bound = [], statements.params({'uuid': uuid}, values)
        for column, expected in (('task_state', expected_task_state),
                                 ('vm_state', expected_vm_state), ('host', expected_host)):
            if expected is None:
                expected = (None,)
            elif isinstance(expected, str):
                expected = (expected,)
            expected = list(expected)
            if expected:
                shape.append((column, None in expected))
                bound[statements.where_param(column)] = [e for e in expected if e is not None]
        extra = None
        with self.writer.begin() as conn:
            count = conn.execute(_update_query(tuple(sorted(values)), tuple(shape)),
                                 bound).rowcount
            current = self._one_by(conn, INSTANCES, uuid=uuid)
            if count and then is not None and current is not None and not current['deleted']:
                extra = then(conn)
        if current is None or current['deleted']:
            raise exception.InstanceNotFound(instance_id=uuid)
        if not count:
            raise exception.UnexpectedTaskStateError(
                instance_uuid=uuid, expected={'task_state': expected_task_state,
                                              'vm_state': expected_vm_state},
                actual={'task_state': current['task_state'],
                        'vm_state': current['vm_state']})
        return current, extra

    def instance_destroy(self, uuid):
        """Soft-delete the instance and drop its block device mappings."""
        now = store.now()
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
            conn.execute(MEMBERS.delete().where(MEMBERS.c.instance_uuid == uuid))

    def instance_hard_delete(self, uuid):
        """Remove every trace of an instance (used when a create is rolled back)."""
        with self.writer.begin() as conn:
            action_ids = sa.select(ACTIONS.c.id).where(ACTIONS.c.instance_uuid == uuid)
            conn.execute(EVENTS.delete().where(EVENTS.c.action_id.in_(action_ids)))
            for table in (ACTIONS, FAULTS, BDMS, MEMBERS):
                conn.execute(table.delete().where(table.c.instance_uuid == uuid))
            conn.execute(INSTANCES.delete().where(INSTANCES.c.uuid == uuid))

    def instance_count(self, **filters):
        query = sa.select(sa.func.count()).select_from(INSTANCES).where(INSTANCES.c.deleted == 0)
        for key, value in filters.items():
            query = query.where(INSTANCES.c[key] == value)
        with self.engine.connect() as conn:
            return conn.execute(query).scalar()


@functools.cache
def _view_query(with_groups, by_project):
    """instance_get_for_view's query (built once per shape)."""
    cols = list(INSTANCES.c) + [col.label('bdm_' + col.name) for col in BDMS.c]
    joined = INSTANCES.outerjoin(BDMS, sa.and_(BDMS.c.instance_uuid == INSTANCES.c.uuid,
                                               BDMS.c.destination_type == 'volume'))
    order = [BDMS.c.id]
    if with_groups:
        cols.append(GROUPS.c.uuid.label('group_uuid'))
        joined = joined.outerjoin(MEMBERS, MEMBERS.c.instance_uuid == INSTANCES.c.uuid) \
            .outerjoin(GROUPS, GROUPS.c.id == MEMBERS.c.group_id)
        order.append(MEMBERS.c.id)
    where = [INSTANCES.c.uuid == sa.bindparam(statements.where_param('uuid')),
             INSTANCES.c.deleted == 0]
    if by_project:
        where.append(INSTANCES.c.project_id == sa.bindparam(statements.where_param('project_id')))
    return sa.select(*cols).select_from(joined).where(*where).order_by(*order)


@functools.cache
def _update_query(columns, expectations):
    """instance_update's compare-and-swap (built once per shape): sets ``columns``
    where the uuid matches, the row is live, and each (column, None allowed) of
    ``expectations`` is IN its list parameter (or NULL when allowed)."""
    where = [INSTANCES.c.uuid == sa.bindparam(statements.where_param('uuid')),
             INSTANCES.c.deleted == 0]
    for name, none_allowed in expectations:
        column = INSTANCES.c[name]
        clauses = [column.in_(sa.bindparam(statements.where_param(name), expanding=True))]
        if none_allowed:
            clauses.append(column.is_(None))
        where.append(sa.or_(*clauses))
    return INSTANCES.update().where(*where).values(
        {name: sa.bindparam(statements.value_param(name)) for name in columns})
