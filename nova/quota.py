"""Counting quotas: limits from config, classes, projects and users; usage counted live.

As upstream since Pike there are no reservations: a check counts what exists
and compares usage + delta with the limit. Callers that then write (server
create, and key pairs or server groups) do the check and the insert in the
transaction ``QuotaEngine.locked(project_id)`` yields, which serialises them
per project across processes, so concurrent requests cannot both use the last
unit of a quota.

Usage comes from counters, one per group of resources, looked up in
``COUNTERS``. A counter is ``fn(db, conn, project_id, user_id, **scope)``
returning ``{'project': {resource: n}, 'user': {resource: n}}`` (either part
may be absent; a user-scoped resource such as key_pairs returns only 'user').
Resources whose counter is not registered yet count as 0 in use; their
feature registers one with ``register_counter``.
"""

import contextlib

from nova import exception
from nova.conf import quota as quota_conf

# Every resource of the API, in upstream's order.
RESOURCES = ('instances', 'cores', 'ram', 'floating_ips', 'fixed_ips', 'metadata_items',
             'injected_files', 'injected_file_content_bytes', 'injected_file_path_bytes',
             'key_pairs', 'security_groups', 'security_group_rules', 'server_groups',
             'server_group_members')
# nova-network leftovers: unlimited unless set, shown before 2.36, never enforced.
LEGACY_NETWORK = ('floating_ips', 'fixed_ips', 'security_groups', 'security_group_rules')
DEFAULT_CLASS = 'default'
UNLIMITED = -1
# Stands for "no limit" in headroom arithmetic (integer, so // stays exact).
_NO_LIMIT = 2 ** 62

_OPTION_OF = {resource: option for option, resource, _d, _h in quota_conf.LIMIT_DEFAULTS}


def _count_instances(db, conn, project_id, user_id=None, **_scope):
    return db.quota_count_instances(project_id, user_id=user_id, conn=conn)


def _count_key_pairs(db, conn, project_id, user_id=None, **_scope):
    # Key pairs belong to users, not projects: only the user's count exists.
    return {'user': {'key_pairs': db.key_pair_count(user_id)}} if user_id else {}


def _count_server_groups(db, conn, project_id, user_id=None, **_scope):
    counts = {'project': {'server_groups': db.server_group_count(project_id)}}
    if user_id is not None:
        counts['user'] = {'server_groups': db.server_group_count(project_id, user_id)}
    return counts


def _count_group_members(db, conn, project_id, user_id=None, group_uuid=None, **_scope):
    # Members are counted per group; the limit is the project's (as upstream).
    members = db.server_group_member_count(group_uuid) if group_uuid else 0
    return {'project': {'server_group_members': members}}


# resource -> counter; None: the owning feature has not registered one (0 in use).
COUNTERS = {
    'instances': _count_instances,
    'cores': _count_instances,
    'ram': _count_instances,
    'key_pairs': _count_key_pairs,
    'server_groups': _count_server_groups,
    'server_group_members': _count_group_members,
}


def register_counter(resources, counter):
    """Make ``counter`` the usage source of ``resources`` (for every engine built after)."""
    for resource in resources:
        if resource not in RESOURCES:
            raise exception.QuotaResourceUnknown(unknown=[resource])
        COUNTERS[resource] = counter


def _headroom(limit, used):
    return _NO_LIMIT if limit < 0 else limit - used


class QuotaEngine:
    """Limits and usage of projects and users, and the checks that enforce them."""

    def __init__(self, conf, db, counters=None):
        self.conf = conf
        self.db = db
        self.counters = dict(COUNTERS if counters is None else counters)

    # -- limits ------------------------------------------------------------
    def _config_defaults(self):
        return {r: (self.conf.quota[_OPTION_OF[r]] if r in _OPTION_OF else UNLIMITED)
                for r in RESOURCES}

    def class_limits(self, class_name, conn=None):
        """Configured defaults overlaid with the class's own rows."""
        limits = self._config_defaults()
        limits.update(self.db.quota_limits_get(class_name=class_name, conn=conn))
        return limits

    def defaults(self, conn=None):
        return self.class_limits(DEFAULT_CLASS, conn=conn)

    def project_limits(self, project_id, conn=None):
        limits = self.defaults(conn=conn)
        limits.update(self.db.quota_limits_get(project_id=project_id, conn=conn))
        return limits

    def user_limits(self, project_id, user_id, conn=None):
        limits = self.project_limits(project_id, conn=conn)
        limits.update(self.db.quota_limits_get(project_id=project_id, user_id=user_id,
                                               conn=conn))
        return limits

    # -- usage -------------------------------------------------------------
    def _counts(self, resources, project_id, user_id, conn, scope):
        """{'project': {...}, 'user': {...}} for ``resources``, each counter run once."""
        counts = {'project': {}, 'user': {}}
        done = set()
        for resource in resources:
            counter = self.counters.get(resource)
            if counter is None or counter in done:
                continue
            done.add(counter)
            found = counter(self.db, conn, project_id, user_id, **scope)
            for level in ('project', 'user'):
                counts[level].update(found.get(level, {}))
        return counts

    def count(self, ctx, resource, project_id, user_id=None, conn=None, **scope):
        """Usage of one resource as upstream's count_as_dict: {'project': n, 'user': n}."""
        if resource not in RESOURCES:
            raise exception.QuotaResourceUnknown(unknown=[resource])
        counts = self._counts([resource], project_id, user_id, conn, scope)
        return {level: found[resource] for level, found in counts.items()
                if resource in found}

    def usages(self, project_id, user_id=None, conn=None):
        """{resource: in_use}: the user's usage when ``user_id`` is given, else the project's."""
        counts = self._counts(RESOURCES, project_id, user_id, conn, {})
        found = counts['user'] if user_id is not None else counts['project']
        return {r: found.get(r, 0) for r in RESOURCES}

    def get_quotas(self, project_id, user_id=None, usages=False):
        """{resource: limit}, or with ``usages`` {resource: {limit, in_use, reserved}}."""
        limits = (self.user_limits(project_id, user_id) if user_id is not None
                  else self.project_limits(project_id))
        if not usages:
            return limits
        used = self.usages(project_id, user_id)
        return {r: {'limit': limits[r], 'in_use': used[r], 'reserved': 0} for r in RESOURCES}

    # -- checks ------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self, project_id):
        """A write transaction (a connection) in which the project's quota checks are exclusive."""
        with self.db.quota_transaction(project_id) as conn:
            yield conn

    def check_deltas(self, ctx, deltas, project_id, user_id=None, conn=None, **scope):
        """Raise OverQuota if adding ``deltas`` ({resource: n}) would pass a limit.

        The project's usage is checked against the project's limit, and the
        user's usage against the user's limit where one is set (user-scoped
        resources such as key_pairs always use the user's limit, which
        defaults to the project's). OverQuota's kwargs carry ``overs``, and
        ``quotas``/``usages`` of the scope with the least headroom.
        """
        unknown = sorted(set(deltas) - set(RESOURCES))
        if unknown:
            raise exception.QuotaResourceUnknown(unknown=unknown)
        counts = self._counts(deltas, project_id, user_id, conn, scope)
        project_limits = self.project_limits(project_id, conn=conn)
        own = (self.db.quota_limits_get(project_id=project_id, user_id=user_id, conn=conn)
               if user_id is not None else {})
        overs, quotas, usages = [], {}, {}
        for resource, delta in deltas.items():
            scopes = []
            if resource in counts['project']:
                scopes.append((project_limits[resource], counts['project'][resource]))
            if resource in counts['user'] and (resource in own
                                               or resource not in counts['project']):
                scopes.append((own.get(resource, project_limits[resource]),
                               counts['user'][resource]))
            if not scopes:
                scopes.append((project_limits[resource], 0))
            limit, used = min(scopes, key=lambda s: _headroom(*s))
            quotas[resource], usages[resource] = limit, used
            if delta > 0 and _headroom(limit, used) < delta:
                overs.append(resource)
        if overs:
            raise exception.OverQuota(overs=sorted(overs), quotas=quotas, usages=usages)

    def limit_check(self, ctx, project_id, user_id=None, **values):
        """Absolute limits (nothing counted): e.g. metadata_items=len(metadata)."""
        limits = (self.user_limits(project_id, user_id) if user_id is not None
                  else self.project_limits(project_id))
        unknown = sorted(set(values) - set(RESOURCES))
        if unknown:
            raise exception.QuotaResourceUnknown(unknown=unknown)
        overs = sorted(r for r, v in values.items() if 0 <= limits[r] < v)
        if overs:
            raise exception.OverQuota(overs=overs, quotas=limits, usages={})

    def check_metadata(self, ctx, metadata, project_id, user_id=None):
        try:
            self.limit_check(ctx, project_id, user_id, metadata_items=len(metadata or {}))
        except exception.OverQuota as exc:
            raise exception.MetadataLimitExceeded(
                allowed=exc.kwargs['quotas']['metadata_items'])

    def check_instances(self, ctx, flavor, min_count, max_count, project_id, user_id,
                        conn=None):
        """How many of ``max_count`` servers fit; TooManyInstances if not even ``min_count``.

        Upstream's _check_num_instances_quota: when max_count does not fit
        but min_count does, the request is lowered to what fits.
        """
        vcpus, ram = int(flavor['vcpus']), int(flavor['memory_mb'])
        deltas = {'instances': max_count, 'cores': max_count * vcpus, 'ram': max_count * ram}
        try:
            self.check_deltas(ctx, deltas, project_id, user_id, conn=conn)
            return max_count
        except exception.OverQuota as exc:
            overs, quotas, usages = (exc.kwargs[k] for k in ('overs', 'quotas', 'usages'))
        allowed = _headroom(quotas['instances'], usages['instances'])
        if vcpus:
            allowed = min(allowed, _headroom(quotas['cores'], usages['cores']) // vcpus)
        if ram:
            allowed = min(allowed, _headroom(quotas['ram'], usages['ram']) // ram)
        if min_count <= allowed:
            return allowed
        requested = dict(deltas, instances=str(min_count) if min_count == max_count
                         else '%d-%d' % (min_count, max_count))
        raise exception.TooManyInstances(
            overs=', '.join(overs), req=', '.join(str(requested[r]) for r in overs),
            used=', '.join(str(usages[r]) for r in overs),
            allowed=', '.join(str(quotas[r]) for r in overs))

    # -- updates -----------------------------------------------------------
    def settable(self, project_id, user_id=None):
        """{resource: (minimum, maximum)} a new limit must fall in, as upstream."""
        project_limits = self.project_limits(project_id)
        users = self.db.quota_user_limits_all(project_id)
        if user_id is None:
            used = self.usages(project_id)
            result = {}
            for r in RESOURCES:
                given = sum(max(limits.get(r, 0), 0) for limits in users.values())
                result[r] = (max(given, used[r]), UNLIMITED)
            return result
        used = self.usages(project_id, user_id)
        result = {}
        for r in RESOURCES:
            if project_limits[r] < 0:
                result[r] = (used[r], UNLIMITED)
                continue
            others = sum(max(limits.get(r, 0), 0) for uid, limits in users.items()
                         if uid != user_id)
            result[r] = (used[r], project_limits[r] - others)
        return result

    def update(self, ctx, project_id, values, user_id=None, force=False):
        """Set limits; unless ``force``, each must cover usage and fit the project's."""
        if not force:
            bounds = self.settable(project_id, user_id)
            for resource, limit in values.items():
                minimum, maximum = bounds[resource]
                _check_bounds(resource, limit, minimum, maximum)
        if values:
            self.db.quota_limits_set(values, project_id=project_id, user_id=user_id)

    def delete(self, ctx, project_id, user_id=None):
        self.db.quota_limits_destroy(project_id, user_id=user_id)

    def update_class(self, ctx, class_name, values):
        if values:
            self.db.quota_limits_set(values, class_name=class_name)


def _check_bounds(resource, limit, minimum, maximum):
    def inf(value):
        return float('inf') if value == UNLIMITED else value

    if inf(limit) < inf(minimum):
        raise exception.Invalid(reason='Quota limit %s for %s must be greater than or equal '
                                       'to already used and reserved %s.'
                                       % (limit, resource, minimum))
    if inf(limit) > inf(maximum):
        raise exception.Invalid(reason='Quota limit %s for %s must be less than or equal '
                                       'to %s.' % (limit, resource, maximum))
