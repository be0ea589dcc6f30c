"""Handler of /limits: the project's absolute limits and usage (no rate limits)."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import quotas as schemas
from nova.api.views import quotas as views
from nova.policies import limits as policies


@validation.query_schema(schemas.limits_query_v2_1, strict_from=mv.FULL_UPDATE_BODY)
def index(req, params):
    ctx = req.context
    ctx.can(policies.LIMITS, target={})
    project_id = ctx.project_id
    if 'tenant_id' in params:
        project_id = params['tenant_id']
        ctx.can(policies.OTHER_PROJECT, target={'project_id': project_id})
    quotas = req.app.compute_api.quota.get_quotas(project_id, usages=True)
    return wsgi.json_response(views.limits(req, quotas))
