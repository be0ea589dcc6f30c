"""Instance faults, instance actions and their events."""

import functools

import sqlalchemy as sa

from nova.db import models, statements, store

FAULTS = models.InstanceFaultRecord.__table__
ACTIONS = models.InstanceActionRecord.__table__
EVENTS = models.InstanceActionEventRecord.__table__
INSTANCES = models.InstanceRecord.__table__


def action_values(context, instance_uuid, action):
    """The instance_actions row that starts ``action`` on an instance for ``context``."""
    return dict(instance_uuid=instance_uuid, action=action,
                request_id=getattr(context, 'request_id', None),
                user_id=getattr(context, 'user_id', None),
                project_id=getattr(context, 'project_id', None), start_time=store.now())


class InstanceActionsDB(store.DBStore):
    """The instance_faults, instance_actions and instance_actions_events tables."""

    def fault_create(self, instance_uuid, code, message, details=None, host=None):
        with self.writer.begin() as conn:
            self._insert(conn, FAULTS, dict(instance_uuid=instance_uuid, code=code,
                                            message=(message or '')[:255],
                                            details=details, host=host))

    def faults_latest(self, instance_uuids):
        """Latest fault per instance, one query for the whole page."""
        if not instance_uuids:
            return {}
        latest = sa.select(sa.func.max(FAULTS.c.id)).where(
            FAULTS.c.instance_uuid.in_(list(instance_uuids))).group_by(FAULTS.c.instance_uuid)
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(FAULTS).where(FAULTS.c.id.in_(latest)))
            return {r.instance_uuid: dict(r._mapping) for r in rows}

    def action_start(self, context, instance_uuid, action):
        with self.writer.begin() as conn:
            return self._insert(conn, ACTIONS, action_values(context, instance_uuid, action))

    def action_finish(self, action_id, message=None):
        with self.writer.begin() as conn:
            conn.execute(ACTIONS.update().where(ACTIONS.c.id == action_id).values(
                finish_time=store.now(), updated_at=store.now(), message=message))

    def event_start(self, instance_uuid, request_id, event, host=None, instance_host=None):
        """The new event's id under the request's newest action of the instance;
        None without one, or (``instance_host``) when the instance is not on it."""
        where = {'instance_uuid': instance_uuid, 'request_id': request_id}
        if instance_host is None:
            query = statements.select_by(ACTIONS, ('instance_uuid', 'request_id'), '-id',
                                         ('id',))
        else:
            query, where['host'] = _action_on_host_query(), instance_host
        with self.writer.begin() as conn:
            action = conn.execute(query, statements.params(where)).first()
            if action is None:
                return None
            return self._insert(conn, EVENTS, dict(action_id=action.id, event=event,
                                                   host=host, start_time=store.now()))

    def event_finish(self, event_id, result, traceback=None, details=None,
                     instance_host=None):
        """Record the event's end and its action's; with ``instance_host``, only
        when the event's instance is on that host: False when it is not."""
        if event_id is None:
            return False
        now = store.now()
        where = {'id': event_id}
        if instance_host is None:
            query = statements.update_by(EVENTS, ('id',), _EVENT_END)
        else:
            query, where['host'] = _event_end_on_host_query(), instance_host
        with self.writer.begin() as conn:
            ended = conn.execute(query, statements.params(
                where, {'finish_time': now, 'result': result,
                        'traceback': traceback, 'details': details}))
            if instance_host is not None and ended.rowcount == 0:
                return False
            # The event's action, in the same statement (no read in between).
            values = {'updated_at': now, 'finish_time': now}
            if result == 'Error':
                values['message'] = 'Error'
            conn.execute(_action_end_query(tuple(sorted(values))),
                         statements.params({'id': event_id}, values))
        return True

    def actions_get(self, instance_uuid, limit=None, marker_id=None, changes_since=None,
                    changes_before=None):
        """Newest first; ``marker_id`` pages past that action."""
        query = sa.select(ACTIONS).where(ACTIONS.c.instance_uuid == instance_uuid)
        if marker_id is not None:
            query = query.where(ACTIONS.c.id < marker_id)
        changed = sa.func.coalesce(ACTIONS.c.updated_at, ACTIONS.c.start_time)
        if changes_since is not None:
            query = query.where(changed >= changes_since)
        if changes_before is not None:
            query = query.where(changed <= changes_before)
        query = query.order_by(ACTIONS.c.id.desc())
        if limit is not None:
            query = query.limit(limit)
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(query)]

    def events_get(self, action_id):
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(EVENTS).where(
                EVENTS.c.action_id == action_id).order_by(EVENTS.c.id))
            return [dict(r._mapping) for r in rows]


def _actions_on_host():
    """The ids of the actions of instances that are on the 'host' parameter."""
    return sa.select(ACTIONS.c.id).select_from(
        ACTIONS.join(INSTANCES, INSTANCES.c.uuid == ACTIONS.c.instance_uuid)).where(
        INSTANCES.c.host == sa.bindparam(statements.where_param('host')))


@functools.cache
def _action_on_host_query():
    """The request's newest action of an instance that is on the 'host' parameter."""
    return _actions_on_host().where(
        ACTIONS.c.instance_uuid == sa.bindparam(statements.where_param('instance_uuid')),
        ACTIONS.c.request_id == sa.bindparam(statements.where_param('request_id'))).order_by(
        ACTIONS.c.id.desc())


_EVENT_END = ('details', 'finish_time', 'result', 'traceback')


@functools.cache
def _event_end_on_host_query():
    """UPDATE the event whose id is the 'id' parameter if its instance is on 'host'."""
    return EVENTS.update().where(
        EVENTS.c.id == sa.bindparam(statements.where_param('id')),
        EVENTS.c.action_id.in_(_actions_on_host())).values(
        {name: sa.bindparam(statements.value_param(name)) for name in _EVENT_END})


@functools.cache
def _action_end_query(columns):
    """UPDATE the action of the event whose id is the 'id' parameter."""
    action_id = sa.select(EVENTS.c.action_id).where(
        EVENTS.c.id == sa.bindparam(statements.where_param('id'))).scalar_subquery()
    return ACTIONS.update().where(ACTIONS.c.id == action_id).values(
        {name: sa.bindparam(statements.value_param(name)) for name in columns})
