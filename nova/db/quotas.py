"""Database access for quotas: limit rows, usage counts, and the per-project quota lock."""

import contextlib

import sqlalchemy as sa
from oslo_db import exception as db_exc

from nova.db import models, store

_T = models.BASE.metadata.tables
QUOTAS = _T['quotas']
USER_QUOTAS = _T['project_user_quotas']
CLASSES = _T['quota_classes']
LOCKS = _T['quota_locks']
INSTANCES = _T['instances']


def _scope(table, project_id=None, user_id=None, class_name=None):
    where = []
    if table is CLASSES:
        where.append(CLASSES.c.class_name == class_name)
    else:
        where.append(table.c.project_id == project_id)
    if table is USER_QUOTAS:
        where.append(USER_QUOTAS.c.user_id == user_id)
    return where


class QuotasDB(store.DBStore):
    """Quota limits, usage counts and locks; methods taking ``conn`` join the caller's
    transaction."""

    @contextlib.contextmanager
    def _quota_conn(self, conn):
        if conn is not None:
            yield conn
        else:
            with self.engine.connect() as own:
                yield own

    # -- limits ------------------------------------------------------------
    def quota_limits_get(self, project_id=None, user_id=None, class_name=None, conn=None):
        """{resource: hard_limit} set explicitly for a class, a project or a project user."""
        table = (CLASSES if class_name is not None
                 else USER_QUOTAS if user_id is not None else QUOTAS)
        query = sa.select(table.c.resource, table.c.hard_limit).where(
            *_scope(table, project_id, user_id, class_name))
        with self._quota_conn(conn) as c:
            return {r.resource: r.hard_limit for r in c.execute(query)}

    def quota_user_limits_all(self, project_id, conn=None):
        """{user_id: {resource: hard_limit}} of every user with own limits in the project."""
        query = sa.select(USER_QUOTAS).where(USER_QUOTAS.c.project_id == project_id)
        result = {}
        with self._quota_conn(conn) as c:
            for row in c.execute(query):
                result.setdefault(row.user_id, {})[row.resource] = row.hard_limit
        return result

    def quota_limits_set(self, values, project_id=None, user_id=None, class_name=None):
        """Create or update several limits of one scope in one transaction."""
        table = (CLASSES if class_name is not None
                 else USER_QUOTAS if user_id is not None else QUOTAS)
        scope = _scope(table, project_id, user_id, class_name)
        keys = {'class_name': class_name} if table is CLASSES else {'project_id': project_id}
        if table is USER_QUOTAS:
            keys['user_id'] = user_id
        for attempt in (1, 2):
            try:
                with self.writer.begin() as conn:
                    for resource, limit in values.items():
                        now = store.now()
                        if not conn.execute(table.update().where(
                                *scope, table.c.resource == resource).values(
                                hard_limit=limit, updated_at=now)).rowcount:
                            conn.execute(table.insert().values(
                                resource=resource, hard_limit=limit, created_at=now, **keys))
                return
            except db_exc.DBDuplicateEntry:
                # A concurrent writer inserted the same limit first: update it instead.
                if attempt == 2:
                    raise

    def quota_limits_destroy(self, project_id, user_id=None):
        """Drop a user's own limits, or a project's and all of its users' limits."""
        with self.writer.begin() as conn:
            if user_id is not None:
                conn.execute(USER_QUOTAS.delete().where(*_scope(USER_QUOTAS, project_id,
                                                                user_id)))
                return
            for table in (USER_QUOTAS, QUOTAS):
                conn.execute(table.delete().where(table.c.project_id == project_id))

    # -- usage -------------------------------------------------------------
    def quota_count_instances(self, project_id, user_id=None, conn=None):
        """Non-deleted instances, vCPUs and RAM of a project (and of one user in it)."""
        cols = [sa.func.count(), sa.func.coalesce(sa.func.sum(INSTANCES.c.vcpus), 0),
                sa.func.coalesce(sa.func.sum(INSTANCES.c.memory_mb), 0)]
        if user_id is not None:
            mine = INSTANCES.c.user_id == user_id
            cols += [sa.func.coalesce(sa.func.sum(sa.case((mine, 1), else_=0)), 0),
                     sa.func.coalesce(sa.func.sum(sa.case((mine, INSTANCES.c.vcpus),
                                                          else_=0)), 0),
                     sa.func.coalesce(sa.func.sum(sa.case((mine, INSTANCES.c.memory_mb),
                                                          else_=0)), 0)]
        query = sa.select(*cols).where(INSTANCES.c.project_id == project_id,
                                       INSTANCES.c.deleted == 0)
        with self._quota_conn(conn) as c:
            row = [int(v or 0) for v in c.execute(query).one()]
        names = ('instances', 'cores', 'ram')
        counts = {'project': dict(zip(names, row[:3]))}
        if user_id is not None:
            counts['user'] = dict(zip(names, row[3:]))
        return counts

    # -- serialisation -----------------------------------------------------
    @contextlib.contextmanager
    def quota_transaction(self, project_id):
        """A write transaction holding the project's quota lock until it ends.

        SQLite writers already queue on BEGIN IMMEDIATE, one at a time across
        processes. Elsewhere the project's row in quota_locks is locked FOR
        UPDATE; READ COMMITTED makes sure the counts read after the lock see
        what the previous holder committed, whatever the server's default
        isolation level.
        """
        if self.engine.dialect.name == 'sqlite':
            with self.writer.begin() as conn:
                yield conn
            return
        self._quota_lock_row(project_id)
        engine = self.writer.execution_options(isolation_level='READ COMMITTED')
        with engine.begin() as conn:
            conn.execute(sa.select(LOCKS.c.project_id).where(
                LOCKS.c.project_id == project_id).with_for_update())
            yield conn

    def _quota_lock_row(self, project_id):
        # Its own short transaction: a failed duplicate insert inside the
        # locking transaction would leave InnoDB shared locks that deadlock.
        exists = sa.select(LOCKS.c.project_id).where(LOCKS.c.project_id == project_id)
        with self.engine.connect() as conn:
            if conn.execute(exists).first() is not None:
                return
        try:
            with self.writer.begin() as conn:
                conn.execute(LOCKS.insert().values(project_id=project_id))
        except db_exc.DBDuplicateEntry:
            pass
