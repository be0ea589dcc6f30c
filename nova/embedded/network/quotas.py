"""Per-project quotas of the embedded network service: defaults, overrides, live usage counts."""

from nova.embedded.network import access, common, errors, store
from nova.embedded.network import validators as v

# Neutron's defaults ([QUOTAS] quota_*), for the resources served here.
DEFAULTS = {'network': 100, 'subnet': 100, 'port': 500, 'security_group': 10,
            'security_group_rule': 100}
_KINDS = {'network': store.NETWORKS, 'subnet': store.SUBNETS, 'port': store.PORTS,
          'security_group': store.SECURITY_GROUPS,
          'security_group_rule': store.RULES}
UNLIMITED = -1
_MAX = 2 ** 31 - 1


class NetworkQuotaEngine:
    """Counts what a project holds and refuses creations beyond its limits."""

    def __init__(self, records):
        self._store = records

    def limits(self, project_id):
        override = self._store.get(store.QUOTAS, project_id)
        return dict(DEFAULTS, **(override or {}).get('limits', {}))

    def usage(self, project_id, resource):
        return sum(1 for r in self._store.list(_KINDS[resource])
                   if r.get('project_id') == project_id)

    def check(self, project_id, **deltas):
        """OverQuota (409) if adding ``deltas`` passes a limit; call inside
        the transaction that creates them."""
        limits = self.limits(project_id)
        overs = sorted(name for name, delta in deltas.items()
                       if delta > 0 and limits[name] != UNLIMITED
                       and self.usage(project_id, name) + delta > limits[name])
        if overs:
            raise errors.NeutronConflict('Quota exceeded for resources: %s.' % overs,
                                         kind='OverQuota')

    def set_limits(self, project_id, limits):
        with self._store.transaction():
            record = self._store.get(store.QUOTAS, project_id)
            if record is None:
                self._store.put(store.QUOTAS, {'id': project_id, 'project_id': project_id,
                                               'limits': limits})
            else:
                self._store.update(store.QUOTAS, project_id,
                                   limits=dict(record['limits'], **limits))

    def reset(self, project_id):
        with self._store.transaction():
            if self._store.get(store.QUOTAS, project_id) is not None:
                self._store.remove(store.QUOTAS, project_id)

    def overridden(self):
        return [r['id'] for r in self._store.list(store.QUOTAS)]


class QuotasResource:
    """/v2.0/quotas: show (own project, or any as administrator), defaults, details, set, reset."""

    def __init__(self, engine):
        self._engine = engine

    @staticmethod
    def _may_read(req, project_id):
        if project_id != req.caller.project_id:
            access.enforce('get_quota', req.caller.is_admin)

    def list(self, req):
        access.enforce('get_quota', req.caller.is_admin)
        return common.json_response({'quotas': [
            dict(self._engine.limits(p), project_id=p, tenant_id=p)
            for p in self._engine.overridden()]})

    def caller_project(self, req):
        return common.json_response({'project': {'project_id': req.caller.project_id}})

    def show(self, req, project_id):
        self._may_read(req, project_id)
        return common.json_response({'quota': self._engine.limits(project_id)})

    def defaults(self, req, project_id):
        self._may_read(req, project_id)
        return common.json_response({'quota': dict(DEFAULTS)})

    def details(self, req, project_id):
        self._may_read(req, project_id)
        limits = self._engine.limits(project_id)
        return common.json_response({'quota': {
            name: {'limit': limit, 'used': self._engine.usage(project_id, name),
                   'reserved': 0}
            for name, limit in limits.items()}})

    def update(self, req, project_id):
        access.enforce('update_quota', req.caller.is_admin)
        body = common.read_json(req)
        if not isinstance(body, dict) or not isinstance(body.get('quota'), dict):
            raise errors.NeutronBadRequest("Unable to find 'quota' in request body")
        wanted = dict(body['quota'])
        force = wanted.pop('force', None) is True
        wanted.pop('check_limit', None)
        unknown = sorted(set(wanted) - set(DEFAULTS))
        if unknown:
            raise errors.NeutronBadRequest("Unrecognized attribute(s) '%s'" % ', '.join(unknown))
        limits = {}
        check = v.int_range(UNLIMITED, _MAX)
        for name, value in wanted.items():
            value = v.to_int(value)
            msg = check(value)
            if msg:
                raise errors.NeutronBadRequest('Invalid input for %s. Reason: %s.' % (name, msg))
            used = self._engine.usage(project_id, name)
            if not force and value != UNLIMITED and used > value:
                raise errors.NeutronBadRequest(
                    'Quota limit %d for %s must be greater than or equal to already '
                    'used %d' % (value, name, used))
            limits[name] = value
        self._engine.set_limits(project_id, limits)
        return common.json_response({'quota': self._engine.limits(project_id)})

    def delete(self, req, project_id):
        access.enforce('delete_quota', req.caller.is_admin)
        self._engine.reset(project_id)
        return common.empty_response()
