"""Request context: who is calling, and the policy check every handler starts with."""

from oslo_context import context as o_context

from nova import exception


class RequestContext(o_context.RequestContext):
    """Security context carried from the API through RPC to the compute host."""

    def __init__(self, service_catalog=None, **kwargs):
        super().__init__(**kwargs)
        self.service_catalog = service_catalog or []

    def to_dict(self):
        values = super().to_dict()
        values['service_catalog'] = self.service_catalog
        return values

    @classmethod
    def from_dict(cls, values):
        return cls(
            user_id=values.get('user'),
            project_id=values.get('project_id') or values.get('project'),
            roles=values.get('roles', []), is_admin=values.get('is_admin', False),
            auth_token=values.get('auth_token'), request_id=values.get('request_id'),
            global_request_id=values.get('global_request_id'),
            user_name=values.get('user_name'), project_name=values.get('project_name'),
            read_only=values.get('read_only', False),
            service_catalog=values.get('service_catalog'),
            system_scope=values.get('system_scope'),
            overwrite=False)

    def elevated(self):
        ctx = self.from_dict(self.to_dict())
        ctx.is_admin = True
        if 'admin' not in ctx.roles:
            ctx.roles = list(ctx.roles) + ['admin']
        return ctx

    def can(self, action, target=None, fatal=True):
        """Check policy ``action``; raise PolicyNotAuthorized unless allowed."""
        from nova import policy
        if target is None:
            target = {'project_id': self.project_id, 'user_id': self.user_id}
        allowed = policy.authorize(self, action, target)
        if not allowed and fatal:
            raise exception.PolicyNotAuthorized(action=action)
        return allowed


def check_is_admin(ctx):
    """Administrator as the policy says (``context_is_admin``), as upstream decides."""
    from nova import policy
    return policy.check_is_admin(ctx)


def clear_store():
    """Forget this thread's current context (what log lines are tagged with).

    Threads serve one request or RPC message after another; without this a
    line logged before the next context exists names the previous one.
    """
    o_context._request_store.context = None


def get_admin_context():
    return RequestContext(user_id=None, project_id=None, is_admin=True,
                          roles=['admin'], overwrite=False)
